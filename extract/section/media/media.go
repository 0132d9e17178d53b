// Package media describes images, audio and video files in one metadata
// section: the format, dimensions, duration where the container states it,
// embedded titles and descriptions (PNG text chunks, EXIF, ID3, Vorbis
// comments, MP4 and Matroska titles) and, for SVG, the text a reader sees.
//
// Every reader here only looks at headers and metadata boxes, never
// decodes pixels or samples, and is bounded: offsets and lengths read from
// the file are checked against the bytes at hand, loops advance or stop,
// nesting is limited, and each string is cut to a few KB. A file whose
// header cannot be read still gets its section (type and size), with a
// warning. Location data (EXIF GPS) is never read: a photo's coordinates
// should not travel to every clone.
package media

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif"  // DecodeConfig for GIF
	_ "image/jpeg" // DecodeConfig for JPEG
	_ "image/png"  // DecodeConfig for PNG
	"math"
	"path"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp" // DecodeConfig for WebP

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Kind and Parser of the results.
const (
	Kind   = "media"
	Parser = "media"
)

// Limits on what is kept.
const (
	maxField = 2 << 10  // one title, comment, ...
	maxText  = 64 << 10 // SVG text
	maxDepth = 8        // nested boxes / elements
)

// Class of a file by extension: "image", "audio", "video", or "".
func Class(p string) string {
	return exts[strings.ToLower(path.Ext(p))]
}

var exts = map[string]string{
	".png": "image", ".jpg": "image", ".jpeg": "image", ".gif": "image", ".webp": "image",
	".bmp": "image", ".tif": "image", ".tiff": "image", ".svg": "image",
	".mp3": "audio", ".wav": "audio", ".ogg": "audio", ".oga": "audio", ".opus": "audio",
	".flac": "audio", ".m4a": "audio",
	".mp4": "video", ".m4v": "video", ".mov": "video", ".webm": "video", ".mkv": "video", ".ogv": "video",
}

// Binary reports whether files of p's extension are binary media (SVG is
// text): the gate lets these through only under its media rule.
func Binary(p string) bool {
	c := Class(p)
	return c != "" && strings.ToLower(path.Ext(p)) != ".svg"
}

// info is what the readers found.
type info struct {
	format         string // "PNG image", "MP3 audio", ...
	width, height  int
	duration       float64 // seconds
	approx         bool    // duration estimated from the bit rate
	rate, channels int
	fields         []field
	text           []string // visible text (SVG)
	warnings       []string
}

type field struct{ key, value string }

func (in *info) set(key, value string) {
	value = clean(value)
	if value == "" {
		return
	}
	for _, f := range in.fields {
		if f.key == key {
			return // the first (most specific) source wins
		}
	}
	in.fields = append(in.fields, field{key, value})
}

func (in *info) warn(format string, args ...any) {
	in.warnings = append(in.warnings, fmt.Sprintf(format, args...))
}

// Split describes one media file in a single section (Symbol and Anchor
// "media", Name its title or file name). It never fails: a reader that
// panics (none is known) or a header that does not parse leaves a section
// with the file type and a warning.
func Split(in section.Input) (res section.Result, err error) {
	res = section.Result{Kind: Kind, Language: in.Language, Parser: Parser}
	var nf info
	ext := strings.ToLower(path.Ext(in.Path))
	func() {
		defer func() {
			if r := recover(); r != nil {
				nf.warn("media: reader panic: %v", r)
			}
		}()
		read(&nf, ext, in.Content)
	}()
	if nf.format == "" {
		nf.format = strings.ToUpper(strings.TrimPrefix(ext, ".")) + " " + Class(in.Path)
	}
	name := path.Base(in.Path)
	for _, f := range nf.fields {
		if f.key == "title" {
			name = f.value
			break
		}
	}
	n := 1
	if ext == ".svg" {
		n = max(section.Lines(section.StripBOM(in.Content)).Count(), 1)
	}
	res.Sections = []memory.Section{{
		Anchor: "media", Kind: Kind, Symbol: "media", Parser: Parser, Language: in.Language,
		Name: name, Signature: signature(&nf, len(in.Content)),
		StartLine: 1, EndLine: n, Content: render(&nf, in.Path, len(in.Content)),
	}}
	res.Warnings = nf.warnings
	return res, nil
}

func read(nf *info, ext string, b []byte) {
	switch ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		readImage(nf, b)
		switch {
		case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
			readPNGText(nf, b)
		case bytes.HasPrefix(b, []byte{0xFF, 0xD8}):
			readJPEG(nf, b)
		}
	case ".bmp":
		readBMP(nf, b)
	case ".tif", ".tiff":
		nf.format = "TIFF image"
		if !readTIFF(nf, b, true) {
			nf.warn("media: unreadable TIFF header")
		}
	case ".svg":
		readSVG(nf, b)
	case ".mp3":
		readMP3(nf, b)
	case ".wav":
		readWAV(nf, b)
	case ".flac":
		readFLAC(nf, b)
	case ".ogg", ".oga", ".opus", ".ogv":
		readOgg(nf, b)
	case ".mp4", ".m4v", ".m4a", ".mov":
		readMP4(nf, b, ext)
	case ".webm", ".mkv":
		readMatroska(nf, b)
	}
}

func readImage(nf *info, b []byte) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		nf.warn("media: unreadable image header: %v", err)
		return
	}
	nf.format = strings.ToUpper(format) + " image"
	nf.width, nf.height = cfg.Width, cfg.Height
}

// signature is the one-line description: "PNG image, 640×480".
func signature(nf *info, size int) string {
	parts := []string{nf.format}
	if nf.width > 0 && nf.height > 0 {
		parts = append(parts, strconv.Itoa(nf.width)+"×"+strconv.Itoa(nf.height))
	}
	if nf.duration > 0 && !math.IsInf(nf.duration, 0) && !math.IsNaN(nf.duration) {
		d := formatDuration(nf.duration)
		if nf.approx {
			d = "about " + d
		}
		parts = append(parts, d)
	}
	if nf.rate > 0 {
		parts = append(parts, strconv.Itoa(nf.rate)+" Hz")
	}
	switch {
	case nf.channels == 1:
		parts = append(parts, "mono")
	case nf.channels == 2:
		parts = append(parts, "stereo")
	case nf.channels > 2:
		parts = append(parts, strconv.Itoa(nf.channels)+" channels")
	}
	parts = append(parts, humanSize(size))
	return strings.Join(parts, ", ")
}

func render(nf *info, p string, size int) string {
	var b strings.Builder
	b.WriteString(path.Base(p))
	b.WriteString(": ")
	b.WriteString(signature(nf, size))
	for _, f := range nf.fields {
		b.WriteString("\n" + f.key + ": " + f.value)
	}
	if len(nf.text) > 0 {
		b.WriteString("\ntext:\n")
		b.WriteString(strings.Join(nf.text, "\n"))
	}
	return b.String()
}

func formatDuration(s float64) string {
	if s > 1e9 {
		return "unknown length"
	}
	t := int64(math.Round(s))
	switch {
	case s < 10:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case t >= 3600:
		return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
	}
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

func humanSize(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + " KB"
	}
	return strconv.Itoa(n) + " bytes"
}

// clean makes a metadata string one tidy line of valid UTF-8, cut to
// maxField bytes, without control characters.
func clean(s string) string {
	if len(s) > maxField*2 {
		s = s[:maxField*2]
	}
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0xFFFD || r == 0xFEFF {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxField {
		s = section.CutBytes(s, maxField) + "…"
	}
	return s
}

// latin1 decodes ISO 8859-1 text.
func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// utf16Text decodes UTF-16 with an optional byte order mark (default
// big-endian unless le is set).
func utf16Text(b []byte, le bool) string {
	if len(b) >= 2 {
		switch {
		case b[0] == 0xFF && b[1] == 0xFE:
			le, b = true, b[2:]
		case b[0] == 0xFE && b[1] == 0xFF:
			le, b = false, b[2:]
		}
	}
	var sb strings.Builder
	for i := 0; i+1 < len(b); i += 2 {
		u := rune(b[i])<<8 | rune(b[i+1])
		if le {
			u = rune(b[i+1])<<8 | rune(b[i])
		}
		if u >= 0xD800 && u < 0xDC00 && i+3 < len(b) {
			l := rune(b[i+2])<<8 | rune(b[i+3])
			if le {
				l = rune(b[i+3])<<8 | rune(b[i+2])
			}
			if l >= 0xDC00 && l < 0xE000 {
				sb.WriteRune((u-0xD800)<<10 + (l - 0xDC00) + 0x10000)
				i += 2
				continue
			}
		}
		if u == 0 {
			break
		}
		sb.WriteRune(u)
	}
	return sb.String()
}

// cstr returns b up to its first NUL.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// Bounded little/big-endian readers: zero when out of range.
func be16(b []byte, off int) int {
	if off < 0 || off+2 > len(b) {
		return 0
	}
	return int(b[off])<<8 | int(b[off+1])
}

func be32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		return 0
	}
	return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
}

func be64(b []byte, off int) uint64 {
	return uint64(be32(b, off))<<32 | uint64(be32(b, off+4))
}

func le16(b []byte, off int) int {
	if off < 0 || off+2 > len(b) {
		return 0
	}
	return int(b[off]) | int(b[off+1])<<8
}

func le32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		return 0
	}
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}

func le64(b []byte, off int) uint64 {
	return uint64(le32(b, off)) | uint64(le32(b, off+4))<<32
}

// slice returns b[off:off+n] clamped to b.
func slice(b []byte, off, n int) []byte {
	if off < 0 || off > len(b) || n < 0 {
		return nil
	}
	if n > len(b)-off {
		n = len(b) - off
	}
	return b[off : off+n]
}
