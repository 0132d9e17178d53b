package media

// Builders of small media files for tests: every byte is made here, so no
// third-party sample is needed. `go test -run TestFixtures -update` writes
// them to testdata/sections/media.

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
)

func testImage(w, h int) image.Image {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 5), 128, 255})
		}
	}
	return m
}

func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// makePNG is a 16×9 PNG with a Title (tEXt) and a Description (iTXt).
func makePNG() []byte {
	var b bytes.Buffer
	png.Encode(&b, testImage(16, 9))
	src := b.Bytes()
	ihdrEnd := 8 + 8 + 13 + 4
	var out bytes.Buffer
	out.Write(src[:ihdrEnd])
	out.Write(pngChunk("tEXt", []byte("Title\x00Build pipeline")))
	out.Write(pngChunk("iTXt", []byte("Description\x00\x00\x00en\x00\x00Stages from commit to memory")))
	out.Write(src[ihdrEnd:])
	return out.Bytes()
}

// tiffBlock is a little-endian TIFF structure with the given ASCII tags
// (and width/height when w > 0).
func tiffBlock(w, h int, tags map[uint16]string) []byte {
	type entry struct {
		tag, typ uint16
		count    uint32
		data     []byte
	}
	var es []entry
	if w > 0 {
		es = append(es, entry{0x0100, 3, 1, []byte{byte(w), byte(w >> 8), 0, 0}}, entry{0x0101, 3, 1, []byte{byte(h), byte(h >> 8), 0, 0}})
	}
	for _, tag := range []uint16{0x010E, 0x010F, 0x0110, 0x013B, 0x8298} {
		if v, ok := tags[tag]; ok {
			es = append(es, entry{tag, 2, uint32(len(v) + 1), append([]byte(v), 0)})
		}
	}
	var b bytes.Buffer
	b.WriteString("II")
	binary.Write(&b, binary.LittleEndian, uint16(42))
	binary.Write(&b, binary.LittleEndian, uint32(8))
	binary.Write(&b, binary.LittleEndian, uint16(len(es)))
	extra := 8 + 2 + 12*len(es) + 4
	var tail bytes.Buffer
	for _, e := range es {
		binary.Write(&b, binary.LittleEndian, e.tag)
		binary.Write(&b, binary.LittleEndian, e.typ)
		binary.Write(&b, binary.LittleEndian, e.count)
		if len(e.data) <= 4 {
			d := append(append([]byte(nil), e.data...), 0, 0, 0, 0)
			b.Write(d[:4])
		} else {
			binary.Write(&b, binary.LittleEndian, uint32(extra+tail.Len()))
			tail.Write(e.data)
		}
	}
	binary.Write(&b, binary.LittleEndian, uint32(0))
	b.Write(tail.Bytes())
	return b.Bytes()
}

// makeJPEG is a 24×16 JPEG with EXIF (description, camera) and a comment.
func makeJPEG() []byte {
	var b bytes.Buffer
	jpeg.Encode(&b, testImage(24, 16), &jpeg.Options{Quality: 50})
	src := b.Bytes()
	exif := append([]byte("Exif\x00\x00"), tiffBlock(0, 0, map[uint16]string{0x010E: "Whiteboard after the design review", 0x010F: "Acme", 0x0110: "Cam 2"})...)
	var out bytes.Buffer
	out.Write(src[:2])
	out.Write([]byte{0xFF, 0xE1})
	binary.Write(&out, binary.BigEndian, uint16(len(exif)+2))
	out.Write(exif)
	com := []byte("shot in room 4")
	out.Write([]byte{0xFF, 0xFE})
	binary.Write(&out, binary.BigEndian, uint16(len(com)+2))
	out.Write(com)
	out.Write(src[2:])
	return out.Bytes()
}

func makeGIF() []byte {
	var b bytes.Buffer
	gif.Encode(&b, testImage(5, 3), nil)
	return b.Bytes()
}

// makeWebP is a lossless WebP header for a 30×20 image (enough for
// DecodeConfig; no pixels).
func makeWebP() []byte {
	bits := uint32(30-1) | uint32(20-1)<<14
	vp8l := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+len(vp8l)+1))
	b.WriteString("WEBPVP8L")
	binary.Write(&b, binary.LittleEndian, uint32(len(vp8l)))
	b.Write(vp8l)
	b.WriteByte(0)
	return b.Bytes()
}

func makeBMP() []byte {
	b := make([]byte, 54+4)
	copy(b, "BM")
	binary.LittleEndian.PutUint32(b[2:], uint32(len(b)))
	binary.LittleEndian.PutUint32(b[10:], 54)
	binary.LittleEndian.PutUint32(b[14:], 40)
	binary.LittleEndian.PutUint32(b[18:], 1)
	binary.LittleEndian.PutUint32(b[22:], uint32(0xFFFFFFFF)) // -1: top-down
	return b
}

func makeTIFF() []byte {
	return tiffBlock(64, 48, map[uint16]string{0x010E: "Floor plan", 0x013B: "Dana"})
}

// makeWAV is 1.5 s of 8 kHz mono 8-bit silence with an INFO title.
func makeWAV() []byte {
	var info bytes.Buffer
	info.WriteString("INFO")
	title := "Startup chime\x00"
	info.WriteString("INAM")
	binary.Write(&info, binary.LittleEndian, uint32(len(title)))
	info.WriteString(title)
	var b bytes.Buffer
	data := bytes.Repeat([]byte{128}, 12000)
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+16+8+info.Len()+8+len(data)))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(8000), uint16(1), uint16(8)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("LIST")
	binary.Write(&b, binary.LittleEndian, uint32(info.Len()))
	b.Write(info.Bytes())
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

func vorbisComment(pairs ...string) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(4))
	b.WriteString("test")
	binary.Write(&b, binary.LittleEndian, uint32(len(pairs)))
	for _, p := range pairs {
		binary.Write(&b, binary.LittleEndian, uint32(len(p)))
		b.WriteString(p)
	}
	return b.Bytes()
}

// makeFLAC is a FLAC header: 44.1 kHz stereo, 2.5 s, with a title.
func makeFLAC() []byte {
	var b bytes.Buffer
	b.WriteString("fLaC")
	si := make([]byte, 34)
	rate, ch, bps, total := uint64(44100), uint64(2-1), uint64(16-1), uint64(110250)
	v := rate<<44 | ch<<41 | bps<<36 | total
	binary.BigEndian.PutUint64(si[10:], v)
	b.Write([]byte{0, 0, 0, 34})
	b.Write(si)
	vc := vorbisComment("TITLE=Theme song", "ARTIST=The Testers")
	b.Write([]byte{0x84, byte(len(vc) >> 16), byte(len(vc) >> 8), byte(len(vc))})
	b.Write(vc)
	return b.Bytes()
}

func oggPage(granule uint64, serial, seq uint32, flags byte, packet []byte) []byte {
	var segs []byte
	n := len(packet)
	for n >= 255 {
		segs = append(segs, 255)
		n -= 255
	}
	segs = append(segs, byte(n))
	var b bytes.Buffer
	b.WriteString("OggS")
	b.WriteByte(0)
	b.WriteByte(flags)
	binary.Write(&b, binary.LittleEndian, granule)
	binary.Write(&b, binary.LittleEndian, serial)
	binary.Write(&b, binary.LittleEndian, seq)
	binary.Write(&b, binary.LittleEndian, uint32(0)) // CRC (not checked)
	b.WriteByte(byte(len(segs)))
	b.Write(segs)
	b.Write(packet)
	return b.Bytes()
}

// makeOgg is an Ogg Vorbis stream of 3 s at 48 kHz with a title.
func makeOgg() []byte {
	id := []byte("\x01vorbis")
	id = append(id, 0, 0, 0, 0, 2)
	id = binary.LittleEndian.AppendUint32(id, 48000)
	id = append(id, make([]byte, 14)...)
	com := append([]byte("\x03vorbis"), vorbisComment("TITLE=Ocean", "DATE=2024")...)
	var b bytes.Buffer
	b.Write(oggPage(0, 7, 0, 2, id))
	b.Write(oggPage(0, 7, 1, 0, com))
	b.Write(oggPage(144000, 7, 2, 4, bytes.Repeat([]byte{1}, 300)))
	return b.Bytes()
}

// makeMP3 has an ID3v2.3 title and artist and an MPEG-1 Layer III frame
// (128 kbit/s, 44.1 kHz, stereo) with a Xing header of 383 frames (10 s).
func makeMP3() []byte {
	frame := func(id, text string) []byte {
		var f bytes.Buffer
		f.WriteString(id)
		binary.Write(&f, binary.BigEndian, uint32(len(text)+1))
		f.Write([]byte{0, 0, 3})
		f.WriteString(text)
		return f.Bytes()
	}
	tags := append(frame("TIT2", "Release notes podcast"), frame("TPE1", "Team")...)
	var b bytes.Buffer
	b.WriteString("ID3")
	b.Write([]byte{3, 0, 0})
	n := len(tags)
	b.Write([]byte{byte(n >> 21 & 0x7f), byte(n >> 14 & 0x7f), byte(n >> 7 & 0x7f), byte(n & 0x7f)})
	b.Write(tags)
	hdr := []byte{0xFF, 0xFB, 0x90, 0x00}
	body := make([]byte, 417-4)
	copy(body[32:], "Xing")
	binary.BigEndian.PutUint32(body[36:], 1)
	binary.BigEndian.PutUint32(body[40:], 383)
	b.Write(hdr)
	b.Write(body)
	return b.Bytes()
}

func box(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(append(out, typ...), body...)
}

// makeMP4 is an MPEG-4 header: 12.5 s, a 640×360 track, a title.
func makeMP4() []byte {
	mvhd := make([]byte, 100)
	binary.BigEndian.PutUint32(mvhd[12:], 1000)
	binary.BigEndian.PutUint32(mvhd[16:], 12500)
	tkhd := make([]byte, 84)
	binary.BigEndian.PutUint32(tkhd[76:], 640<<16)
	binary.BigEndian.PutUint32(tkhd[80:], 360<<16)
	data := box("data", []byte{0, 0, 0, 1, 0, 0, 0, 0}, []byte("Demo walkthrough"))
	meta := box("meta", []byte{0, 0, 0, 0}, box("hdlr", make([]byte, 25)), box("ilst", box("\xa9nam", data)))
	return append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")),
		box("moov", box("mvhd", mvhd), box("trak", box("tkhd", tkhd)), box("udta", meta))...)
}

func ebml(id uint64, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	var out []byte
	for shift := 24; shift >= 0; shift -= 8 {
		if c := byte(id >> shift); c != 0 || len(out) > 0 {
			out = append(out, c)
		}
	}
	n := uint64(len(body))
	out = append(out, 0x08, byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n)) // 8-byte size
	out[len(out)-8] = 0x01
	return append(out, body...)
}

// makeWebM is a WebM header: 4.25 s, 320×240, a title.
func makeWebM() []byte {
	dur := binary.BigEndian.AppendUint64(nil, math.Float64bits(4250))
	return append(ebml(ebmlHeader, ebml(mkvDocType, []byte("webm"))),
		ebml(mkvSegment,
			ebml(mkvInfo, ebml(mkvScale, []byte{0x0F, 0x42, 0x40}), ebml(mkvDuration, dur), ebml(mkvTitle, []byte("Screen capture"))),
			ebml(mkvTracks, ebml(mkvTrack, ebml(mkvVideo, ebml(mkvWidth, []byte{0x01, 0x40}), ebml(mkvHeight, []byte{0xF0})))),
			ebml(mkvCluster, make([]byte, 64)))...)
}

// generated maps fixture file names to their builders.
var generated = map[string]func() []byte{
	"pipeline.png": makePNG, "whiteboard.jpg": makeJPEG, "dot.gif": makeGIF, "icon.webp": makeWebP,
	"pixel.bmp": makeBMP, "plan.tiff": makeTIFF, "chime.wav": makeWAV, "theme.flac": makeFLAC,
	"ocean.ogg": makeOgg, "notes.mp3": makeMP3, "demo.mp4": makeMP4, "capture.webm": makeWebM,
}
