package media

import (
	"bytes"
	"compress/zlib"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// pngKeys maps PNG text keywords to field names.
var pngKeys = map[string]string{
	"title": "title", "description": "description", "author": "author",
	"comment": "comment", "copyright": "copyright", "software": "software",
}

// readPNGText reads tEXt, zTXt and iTXt chunks.
func readPNGText(nf *info, b []byte) {
	for off := 8; off+12 <= len(b); {
		n := int(be32(b, off))
		typ := string(b[off+4 : off+8])
		if n < 0 || n > len(b)-off-12 {
			return
		}
		data := b[off+8 : off+8+n]
		off += 12 + n
		var key, text string
		switch typ {
		case "tEXt":
			k, v, ok := bytes.Cut(data, []byte{0})
			if !ok {
				continue
			}
			key, text = string(k), latin1(v)
		case "zTXt":
			k, v, ok := bytes.Cut(data, []byte{0})
			if !ok || len(v) < 1 {
				continue
			}
			key, text = string(k), latin1(inflate(v[1:]))
		case "iTXt":
			k, v, ok := bytes.Cut(data, []byte{0})
			if !ok || len(v) < 2 {
				continue
			}
			compressed := v[0] == 1
			v = v[2:]
			if _, v, ok = bytes.Cut(v, []byte{0}); !ok { // language tag
				continue
			}
			if _, v, ok = bytes.Cut(v, []byte{0}); !ok { // translated keyword
				continue
			}
			if compressed {
				v = inflate(v)
			}
			key, text = string(k), string(v)
		case "IEND":
			return
		default:
			continue
		}
		if f := pngKeys[strings.ToLower(key)]; f != "" {
			nf.set(f, text)
		}
	}
}

// inflate decompresses a zlib stream, at most maxField*2 bytes of it.
func inflate(b []byte) []byte {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(io.LimitReader(r, maxField*2))
	return out
}

// readJPEG walks the markers before the image data for EXIF (APP1) and
// comments (COM).
func readJPEG(nf *info, b []byte) {
	for off := 2; off+4 <= len(b); {
		if b[off] != 0xFF {
			return
		}
		marker := b[off+1]
		if marker == 0xFF { // fill byte
			off++
			continue
		}
		if marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 {
			off += 2
			continue
		}
		if marker == 0xDA || marker == 0xD9 { // start of scan, end of image
			return
		}
		n := be16(b, off+2)
		if n < 2 || off+2+n > len(b) {
			return
		}
		seg := b[off+4 : off+2+n]
		switch {
		case marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")):
			readTIFF(nf, seg[6:], false)
		case marker == 0xFE:
			nf.set("comment", string(seg))
		}
		off += 2 + n
	}
}

// EXIF/TIFF tags read.
var tiffTags = map[int]string{
	0x010E: "description", 0x013B: "artist", 0x8298: "copyright",
	0x9C9B: "title", 0x9C9C: "comment", 0x9C9D: "author", 0x9C9F: "subject", // Windows XP tags, UTF-16LE
	0x010F: "camera", 0x0110: "model", 0x0132: "date", 0x9003: "date taken",
}

// readTIFF reads IFD0 (and the EXIF sub-IFD) of a TIFF structure; with
// dims it also takes the image width and height.
func readTIFF(nf *info, b []byte, dims bool) bool {
	if len(b) < 8 {
		return false
	}
	var u16 func([]byte, int) int
	var u32 func([]byte, int) uint32
	switch string(b[:2]) {
	case "II":
		u16, u32 = le16, le32
	case "MM":
		u16, u32 = be16, be32
	default:
		return false
	}
	if u16(b, 2) != 42 {
		return false
	}
	var maker, model string
	ifds := []int{int(u32(b, 4))}
	seen := map[int]bool{}
	for len(ifds) > 0 && len(seen) < 4 {
		ifd := ifds[0]
		ifds = ifds[1:]
		if ifd < 8 || ifd+2 > len(b) || seen[ifd] {
			continue
		}
		seen[ifd] = true
		count := min(u16(b, ifd), 512)
		for i := 0; i < count; i++ {
			e := ifd + 2 + 12*i
			if e+12 > len(b) {
				break
			}
			tag, typ, n := u16(b, e), u16(b, e+2), int(u32(b, e+4))
			size := typeSize(typ) * n
			if size <= 0 || size > maxField*4 {
				continue
			}
			val := b[e+8 : e+12]
			if size > 4 {
				val = slice(b, int(u32(b, e+8)), size)
			} else {
				val = val[:size]
			}
			switch {
			case tag == 0x8769 && (typ == 4 || typ == 13): // EXIF sub-IFD
				ifds = append(ifds, int(u32(b, e+8)))
			case dims && (tag == 0x0100 || tag == 0x0101):
				v := int(u32(b, e+8))
				if typ == 3 {
					v = u16(b, e+8)
				}
				if tag == 0x0100 {
					nf.width = v
				} else {
					nf.height = v
				}
			case tag >= 0x9C9B && tag <= 0x9C9F:
				if f := tiffTags[tag]; f != "" {
					nf.set(f, utf16Text(val, true))
				}
			case tag == 0x010F:
				maker = string(cstr(val))
			case tag == 0x0110:
				model = string(cstr(val))
			case typ == 2:
				if f := tiffTags[tag]; f != "" {
					nf.set(f, string(cstr(val)))
				}
			}
		}
	}
	if cam := strings.TrimSpace(strings.TrimSpace(maker) + " " + strings.TrimSpace(model)); cam != "" {
		nf.set("camera", cam)
	}
	return true
}

// readBMP reads a Windows bitmap's header.
func readBMP(nf *info, b []byte) {
	nf.format = "BMP image"
	if len(b) < 26 || b[0] != 'B' || b[1] != 'M' {
		nf.warn("media: unreadable BMP header")
		return
	}
	if le32(b, 14) == 12 { // OS/2 BITMAPCOREHEADER
		nf.width, nf.height = le16(b, 18), le16(b, 20)
		return
	}
	w, h := int32(le32(b, 18)), int32(le32(b, 22))
	if h < 0 {
		h = -h
	}
	nf.width, nf.height = int(max(w, 0)), int(max(h, 0))
}

// readSVG takes the drawing's size and the text a reader sees: <title>,
// <desc> and <text> content. Styles, scripts and metadata other than
// titles are skipped.
func readSVG(nf *info, b []byte) {
	nf.format = "SVG image"
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var stack []string
	size := 0
	var cur strings.Builder
	collecting := "" // element whose text is being collected
	flush := func() {
		t := clean(cur.String())
		cur.Reset()
		if t == "" {
			return
		}
		switch collecting {
		case "title":
			if len(stack) <= 2 || inside(stack, "metadata") {
				nf.set("title", t)
				return
			}
		case "desc":
			if len(stack) <= 2 {
				nf.set("description", t)
				return
			}
		}
		if size+len(t) <= maxText {
			nf.text = append(nf.text, t)
			size += len(t)
		}
	}
	for tokens := 0; ; tokens++ {
		tok, err := d.Token()
		if err != nil {
			if err != io.EOF && len(stack) > 0 || err != io.EOF && tokens == 0 {
				nf.warn("media: SVG does not parse: %v", err)
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if len(stack) == 0 && name == "svg" {
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "width":
						nf.width = svgLength(a.Value)
					case "height":
						nf.height = svgLength(a.Value)
					case "viewBox":
						if nf.width == 0 || nf.height == 0 {
							if f := strings.Fields(strings.ReplaceAll(a.Value, ",", " ")); len(f) == 4 {
								nf.width, nf.height = svgLength(f[2]), svgLength(f[3])
							}
						}
					}
				}
			}
			if len(stack) < 1<<16 {
				stack = append(stack, name)
			}
			switch name {
			case "title", "desc", "text":
				if collecting == "" {
					flush()
					collecting = name
				}
			}
		case xml.EndElement:
			name := strings.ToLower(t.Name.Local)
			if name == collecting {
				flush()
				collecting = ""
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if collecting != "" && !inside(stack, "style") && !inside(stack, "script") && cur.Len() < maxField*2 {
				cur.Write(t)
				cur.WriteByte(' ')
			}
		}
	}
	flush()
}

func inside(stack []string, name string) bool {
	for i := len(stack) - 1; i >= 0 && i >= len(stack)-maxDepth; i-- {
		if stack[i] == name {
			return true
		}
	}
	return false
}

// svgLength reads "120", "120px", "12.5" as whole user units; 0 for
// relative sizes.
func svgLength(s string) int {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "px"))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1e7 {
		return 0
	}
	return int(f + 0.5)
}

// typeSize is the byte size of one value of a TIFF field type (0: a type
// not read).
func typeSize(typ int) int {
	switch typ {
	case 1, 2, 7: // BYTE, ASCII, UNDEFINED
		return 1
	case 3: // SHORT
		return 2
	case 4: // LONG
		return 4
	}
	return 0
}
