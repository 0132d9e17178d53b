package media

import (
	"bytes"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

const fixtures = "../../../testdata/sections/media"

var update = flag.Bool("update", false, "rewrite the generated fixtures in testdata")

func split(t testing.TB, name string, content []byte) section.Result {
	t.Helper()
	in := section.Input{Path: "assets/" + name, Content: content}
	res, err := Split(in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	section.Finish(&res, in)
	if err := section.Validate(res, in); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Sections) != 1 || res.Sections[0].Anchor != "media" || res.Sections[0].Kind != Kind {
		t.Fatalf("%s: sections %+v", name, res.Sections)
	}
	return res
}

// TestFixtures checks every committed fixture (rewritten from the
// builders in gen_test.go with -update) is described as expected.
func TestFixtures(t *testing.T) {
	if *update {
		for name, mk := range generated {
			if err := os.WriteFile(filepath.Join(fixtures, name), mk(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		file, name, signature string
		has                   []string
	}{
		{"pipeline.png", "Build pipeline", "PNG image, 16×9, ", []string{"description: Stages from commit to memory"}},
		{"whiteboard.jpg", "whiteboard.jpg", "JPEG image, 24×16, ", []string{"description: Whiteboard after the design review", "camera: Acme Cam 2", "comment: shot in room 4"}},
		{"dot.gif", "dot.gif", "GIF image, 5×3, ", nil},
		{"icon.webp", "icon.webp", "WEBP image, 30×20, ", nil},
		{"pixel.bmp", "pixel.bmp", "BMP image, 1×1, ", nil},
		{"plan.tiff", "plan.tiff", "TIFF image, 64×48, ", []string{"description: Floor plan", "artist: Dana"}},
		{"diagram.svg", "Request flow", "SVG image, 320×200, ", []string{"description: How a request travels from the client to the store.", "text:\nClient\ngroup tooltip\nStore & cache"}},
		{"chime.wav", "Startup chime", "WAV audio, 1.5 s, 8000 Hz, mono, ", nil},
		{"theme.flac", "Theme song", "FLAC audio, 2.5 s, 44100 Hz, stereo, ", []string{"artist: The Testers"}},
		{"ocean.ogg", "Ocean", "Ogg Vorbis audio, 3.0 s, 48000 Hz, stereo, ", []string{"year: 2024"}},
		{"notes.mp3", "Release notes podcast", "MP3 audio, 0:10, 44100 Hz, stereo, ", []string{"artist: Team"}},
		{"demo.mp4", "Demo walkthrough", "MPEG-4 video, 640×360, 0:13, ", nil},
		{"capture.webm", "Screen capture", "WebM video, 320×240, 4.2 s, ", nil},
	}
	for _, tt := range tests {
		b := sectiontest.Read(t, fixtures, tt.file)
		res := split(t, tt.file, b)
		s := res.Sections[0]
		if s.Name != tt.name || !strings.HasPrefix(s.Signature, tt.signature) {
			t.Errorf("%s: name %q signature %q, want %q %q...", tt.file, s.Name, s.Signature, tt.name, tt.signature)
		}
		for _, h := range tt.has {
			if !strings.Contains(s.Content, h) {
				t.Errorf("%s: content lacks %q:\n%s", tt.file, h, s.Content)
			}
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%s: warnings %q", tt.file, res.Warnings)
		}
		if strings.Contains(s.Content, "not text") || strings.Contains(s.Content, "font-family") {
			t.Errorf("%s: script or style text kept", tt.file)
		}
	}
	// The SVG is text: its section spans its lines.
	b, _ := os.ReadFile(filepath.Join(fixtures, "diagram.svg"))
	if s := split(t, "diagram.svg", b).Sections[0]; s.StartLine != 1 || s.EndLine != 14 {
		t.Errorf("svg lines %d-%d", s.StartLine, s.EndLine)
	}
}

func TestClass(t *testing.T) {
	for p, want := range map[string]string{"a/B.PNG": "image", "x.svg": "image", "s.flac": "audio", "v.MOV": "video", "x.go": "", "pdf.pdf": ""} {
		if got := Class(p); got != want {
			t.Errorf("Class(%q) = %q, want %q", p, got, want)
		}
	}
	if Binary("x.svg") || !Binary("x.png") || Binary("x.txt") {
		t.Error("Binary")
	}
}

// TestCorrupt feeds truncated and garbled files: each still gives its one
// section, with a warning where the header was unreadable.
func TestCorrupt(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for name, mk := range generated {
		good := mk()
		for _, n := range []int{0, 1, 4, 8, 12, 30, len(good) / 2, len(good) - 1} {
			if n <= len(good) {
				split(t, name, good[:n])
			}
		}
		for i := 0; i < 200; i++ {
			b := append([]byte(nil), good...)
			for j := 0; j < 1+r.Intn(8); j++ {
				b[r.Intn(len(b))] = byte(r.Intn(256))
			}
			split(t, name, b)
		}
	}
	res := split(t, "broken.png", []byte("not a png"))
	if len(res.Warnings) == 0 || !strings.HasPrefix(res.Sections[0].Signature, "PNG image") {
		t.Errorf("broken png: %q %q", res.Sections[0].Signature, res.Warnings)
	}
}

// TestHostileSizes: lengths and counts that claim gigabytes must not be
// trusted, and a large file is read in bounded time.
func TestHostileSizes(t *testing.T) {
	big := bytes.Repeat([]byte{0xFF, 0xFB, 0x90, 0x00}, 2<<20) // 8 MB of frame headers
	start := time.Now()
	split(t, "big.mp3", big)
	split(t, "big.ogg", append([]byte("OggS\x00\x02"), bytes.Repeat([]byte("OggS"), 2<<20)...))
	split(t, "deep.webm", append(ebml(ebmlHeader), bytes.Repeat([]byte{0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, 1<<16)...))
	var nested []byte
	for i := 0; i < 1000; i++ {
		nested = box("moov", nested)
	}
	split(t, "deep.mp4", append(box("ftyp", []byte("isom")), nested...))
	split(t, "deep.svg", []byte(strings.Repeat("<g>", 1<<20)+"<text>x</text>"))
	hdr := []byte("ID3\x03\x00\x00\x7f\x7f\x7f\x7fTIT2\xff\xff\xff\xff\x00\x00")
	split(t, "tag.mp3", hdr)
	if d := time.Since(start); d > 10*time.Second*slow {
		t.Errorf("took %v", d)
	}
}

func FuzzMedia(f *testing.F) {
	names := []string{}
	for name, mk := range generated {
		names = append(names, name)
		f.Add(uint8(len(names)-1), mk())
	}
	names = append(names, "diagram.svg")
	b, _ := os.ReadFile(filepath.Join(fixtures, "diagram.svg"))
	f.Add(uint8(len(names)-1), b)
	f.Fuzz(func(t *testing.T, which uint8, content []byte) {
		split(t, names[int(which)%len(names)], content)
	})
}
