package media

import (
	"bytes"
	"math"
	"strings"
)

// ---- MP3: ID3v2/ID3v1 tags, duration from the Xing/VBRI header or the bit rate ----

var id3Frames = map[string]string{
	"TIT2": "title", "TT2": "title", "TPE1": "artist", "TP1": "artist",
	"TALB": "album", "TAL": "album", "TIT3": "subtitle", "TT3": "subtitle",
	"COMM": "comment", "COM": "comment", "TYER": "year", "TYE": "year", "TDRC": "year",
}

func readMP3(nf *info, b []byte) {
	nf.format = "MP3 audio"
	audio := 0
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		size := syncsafe(b[6:10])
		readID3v2(nf, slice(b, 10, size), int(b[3]), b[5])
		audio = 10 + size
		if b[5]&0x10 != 0 { // footer
			audio += 10
		}
	}
	end := len(b)
	if end >= 128 && string(b[end-128:end-125]) == "TAG" {
		t := b[end-128:]
		nf.set("title", latin1(cstr(t[3:33])))
		nf.set("artist", latin1(cstr(t[33:63])))
		nf.set("album", latin1(cstr(t[63:93])))
		end -= 128
	}
	readMPEGDuration(nf, b, audio, end)
}

func syncsafe(b []byte) int {
	return int(b[0]&0x7f)<<21 | int(b[1]&0x7f)<<14 | int(b[2]&0x7f)<<7 | int(b[3]&0x7f)
}

func readID3v2(nf *info, b []byte, version int, flags byte) {
	off := 0
	if flags&0x40 != 0 && version >= 3 && len(b) >= 4 { // extended header
		n := int(be32(b, 0))
		if version == 4 {
			n = syncsafe(b[:4])
		} else {
			n += 4
		}
		off = n
	}
	idLen, hdr := 4, 10
	if version == 2 {
		idLen, hdr = 3, 6
	}
	for frames := 0; off+hdr <= len(b) && frames < 1024; frames++ {
		id := string(b[off : off+idLen])
		if id[0] == 0 {
			return // padding
		}
		var n int
		switch version {
		case 2:
			n = int(b[off+3])<<16 | int(b[off+4])<<8 | int(b[off+5])
		case 4:
			n = syncsafe(b[off+4 : off+8])
		default:
			n = int(be32(b, off+4))
		}
		if n < 0 || n > len(b)-off-hdr {
			return
		}
		data := b[off+hdr : off+hdr+n]
		off += hdr + n
		key := id3Frames[id]
		if key == "" || len(data) < 1 {
			continue
		}
		enc, data := data[0], data[1:]
		if key == "comment" { // language, short description, text
			if len(data) < 3 {
				continue
			}
			data = data[3:]
			if i := terminator(data, enc); i >= 0 {
				data = data[i:]
			}
		}
		nf.set(key, id3Text(enc, data))
	}
}

// terminator returns the offset after the first string terminator of
// encoding enc in b, or -1.
func terminator(b []byte, enc byte) int {
	if enc == 1 || enc == 2 {
		for i := 0; i+1 < len(b); i += 2 {
			if b[i] == 0 && b[i+1] == 0 {
				return i + 2
			}
		}
		return -1
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return i + 1
	}
	return -1
}

func id3Text(enc byte, b []byte) string {
	var s string
	switch enc {
	case 1:
		s = utf16Text(b, true)
	case 2:
		s = utf16Text(b, false)
	case 3:
		s = string(b)
	default:
		s = latin1(b)
	}
	// ID3v2.4 separates several values with NUL.
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == 0 }), "; ")
}

var mpegBitrates = [2][3][16]int{ // [MPEG-1, MPEG-2/2.5][layer I, II, III][index] kbit/s
	{
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
	},
	{
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	},
}

// readMPEGDuration finds the first frame header in b[from:to] (within
// 64 KB) and takes the duration from a Xing/Info or VBRI header, else
// estimates it from the bit rate.
func readMPEGDuration(nf *info, b []byte, from, to int) {
	to = min(to, len(b))
	for i := max(from, 0); i+4 <= to && i < from+64<<10; i++ {
		if b[i] != 0xFF || b[i+1]&0xE0 != 0xE0 {
			continue
		}
		ver := (b[i+1] >> 3) & 3   // 0: 2.5, 2: 2, 3: 1
		layer := (b[i+1] >> 1) & 3 // 1: III, 2: II, 3: I
		bri := b[i+2] >> 4
		sri := (b[i+2] >> 2) & 3
		if ver == 1 || layer == 0 || bri == 0 || bri == 15 || sri == 3 {
			continue
		}
		rate := [3]int{44100, 48000, 32000}[sri]
		switch ver {
		case 2:
			rate /= 2
		case 0:
			rate /= 4
		}
		v := 0
		if ver != 3 {
			v = 1
		}
		kbps := mpegBitrates[v][3-layer][bri]
		samples := 1152
		switch {
		case layer == 3:
			samples = 384
		case layer == 1 && ver != 3:
			samples = 576
		}
		mono := b[i+3]>>6 == 3
		nf.rate = rate
		nf.channels = 2
		if mono {
			nf.channels = 1
		}
		// Xing/Info sits after the side information.
		side := 32
		switch {
		case ver == 3 && mono:
			side = 17
		case ver != 3 && !mono:
			side = 17
		case ver != 3 && mono:
			side = 9
		}
		x := i + 4 + side
		if tag := string(slice(b, x, 4)); (tag == "Xing" || tag == "Info") && be32(b, x+4)&1 != 0 {
			if frames := be32(b, x+8); frames > 0 {
				nf.duration = float64(frames) * float64(samples) / float64(rate)
				return
			}
		}
		if string(slice(b, i+36, 4)) == "VBRI" {
			if frames := be32(b, i+36+14); frames > 0 {
				nf.duration = float64(frames) * float64(samples) / float64(rate)
				return
			}
		}
		if kbps > 0 {
			nf.duration = float64(to-i) * 8 / float64(kbps*1000)
			nf.approx = true
		}
		return
	}
	nf.warn("media: no MPEG audio frame found")
}

// ---- WAV (RIFF) ----

func readWAV(nf *info, b []byte) {
	nf.format = "WAV audio"
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		nf.warn("media: not a RIFF WAVE file")
		return
	}
	byteRate := 0
	for off := 12; off+8 <= len(b); {
		id := string(b[off : off+4])
		n := int(le32(b, off+4))
		data := slice(b, off+8, n)
		switch id {
		case "fmt ":
			nf.channels = le16(data, 2)
			nf.rate = int(le32(data, 4))
			byteRate = int(le32(data, 8))
		case "data":
			if byteRate > 0 {
				nf.duration = float64(n) / float64(byteRate)
			}
		case "LIST":
			if string(slice(data, 0, 4)) == "INFO" {
				readRIFFInfo(nf, data[4:])
			}
		}
		if n < 0 || n > len(b) {
			break
		}
		off += 8 + n + n&1
	}
}

func readRIFFInfo(nf *info, b []byte) {
	keys := map[string]string{"INAM": "title", "IART": "artist", "ICMT": "comment", "IPRD": "album", "ICOP": "copyright"}
	for off := 0; off+8 <= len(b); {
		n := int(le32(b, off+4))
		if n < 0 || n > len(b)-off-8 {
			return
		}
		if k := keys[string(b[off:off+4])]; k != "" {
			nf.set(k, string(cstr(b[off+8:off+8+n])))
		}
		off += 8 + n + n&1
	}
}

// ---- FLAC ----

func readFLAC(nf *info, b []byte) {
	nf.format = "FLAC audio"
	off := 0
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		off = 10 + syncsafe(b[6:10])
	}
	if string(slice(b, off, 4)) != "fLaC" {
		nf.warn("media: no FLAC stream marker")
		return
	}
	off += 4
	for blocks := 0; off+4 <= len(b) && blocks < 64; blocks++ {
		hdr := b[off]
		n := int(b[off+1])<<16 | int(b[off+2])<<8 | int(b[off+3])
		data := slice(b, off+4, n)
		switch hdr & 0x7f {
		case 0: // STREAMINFO
			if len(data) >= 18 {
				rate := int(data[10])<<12 | int(data[11])<<4 | int(data[12])>>4
				nf.rate = rate
				nf.channels = int(data[12]>>1&7) + 1
				total := uint64(data[13]&0x0f)<<32 | uint64(be32(data, 14))
				if rate > 0 {
					nf.duration = float64(total) / float64(rate)
				}
			}
		case 4: // VORBIS_COMMENT
			readVorbisComment(nf, data)
		}
		if hdr&0x80 != 0 {
			return
		}
		off += 4 + n
	}
}

// readVorbisComment reads a Vorbis comment block (little-endian lengths).
func readVorbisComment(nf *info, b []byte) {
	vendor := int(le32(b, 0))
	if vendor < 0 || vendor > len(b)-8 {
		return
	}
	off := 4 + vendor
	count := int(le32(b, off))
	off += 4
	keys := map[string]string{"TITLE": "title", "ARTIST": "artist", "ALBUM": "album", "DESCRIPTION": "description", "COMMENT": "comment", "DATE": "year"}
	for i := 0; i < count && i < 256 && off+4 <= len(b); i++ {
		n := int(le32(b, off))
		if n < 0 || n > len(b)-off-4 {
			return
		}
		k, v, ok := strings.Cut(string(b[off+4:off+4+min(n, maxField*2)]), "=")
		if ok {
			if f := keys[strings.ToUpper(k)]; f != "" {
				nf.set(f, v)
			}
		}
		off += 4 + n
	}
}

// ---- Ogg (Vorbis, Opus, Theora) ----

func readOgg(nf *info, b []byte) {
	nf.format = "Ogg audio"
	if !bytes.HasPrefix(b, []byte("OggS")) {
		nf.warn("media: no Ogg page")
		return
	}
	// Gather the first packets of the first logical stream (bounded).
	serial := le32(b, 14)
	var packets [][]byte
	var pkt []byte
	for off, pages := 0, 0; off+27 <= len(b) && pages < 64 && len(packets) < 2; pages++ {
		if string(b[off:off+4]) != "OggS" {
			break
		}
		nseg := int(b[off+26])
		table := slice(b, off+27, nseg)
		body := off + 27 + nseg
		same := le32(b, off+14) == serial
		for _, l := range table {
			if same && len(pkt) < 1<<20 {
				pkt = append(pkt, slice(b, body, int(l))...)
			}
			body += int(l)
			if l < 255 && same {
				packets = append(packets, pkt)
				pkt = nil
				if len(packets) == 2 {
					break
				}
			}
		}
		off = body
	}
	rate, preskip := 0, 0
	if len(packets) > 0 {
		p := packets[0]
		switch {
		case bytes.HasPrefix(p, []byte("\x01vorbis")):
			nf.format = "Ogg Vorbis audio"
			if len(p) > 11 {
				nf.channels = int(p[11])
			}
			rate = int(le32(p, 12))
		case bytes.HasPrefix(p, []byte("OpusHead")):
			nf.format = "Ogg Opus audio"
			if len(p) > 9 {
				nf.channels = int(p[9])
			}
			preskip = le16(p, 10)
			rate = 48000
			nf.rate = int(le32(p, 12))
		case bytes.HasPrefix(p, []byte("\x80theora")):
			nf.format = "Ogg Theora video"
			nf.width, nf.height = int(be32(p, 14)>>8), int(be32(p, 17)>>8)
		}
		if nf.rate == 0 {
			nf.rate = rate
		}
	}
	if len(packets) > 1 {
		p := packets[1]
		switch {
		case bytes.HasPrefix(p, []byte("\x03vorbis")):
			readVorbisComment(nf, p[7:])
		case bytes.HasPrefix(p, []byte("OpusTags")):
			readVorbisComment(nf, p[8:])
		}
	}
	// Duration: the granule position of the stream's last page.
	if rate > 0 {
		tail := max(0, len(b)-64<<10)
		for i := len(b) - 27; i >= tail; i-- {
			if b[i] == 'O' && string(b[i:i+4]) == "OggS" && le32(b, i+14) == serial {
				g := int64(le64(b, i+6))
				if g > 0 {
					nf.duration = float64(g-int64(preskip)) / float64(rate)
				}
				break
			}
		}
	}
}

// ---- MP4 / QuickTime (ISO base media) ----

func readMP4(nf *info, b []byte, ext string) {
	switch ext {
	case ".m4a":
		nf.format = "MPEG-4 audio"
	case ".mov":
		nf.format = "QuickTime video"
	default:
		nf.format = "MPEG-4 video"
	}
	if len(b) < 8 || string(slice(b, 4, 4)) != "ftyp" && string(slice(b, 4, 4)) != "moov" && string(slice(b, 4, 4)) != "wide" && string(slice(b, 4, 4)) != "mdat" {
		nf.warn("media: not an ISO media file")
		return
	}
	walkBoxes(nf, b, 0)
}

var containers = map[string]bool{"moov": true, "trak": true, "mdia": true, "udta": true, "ilst": true}

func walkBoxes(nf *info, b []byte, depth int) {
	if depth > maxDepth {
		return
	}
	for off, boxes := 0, 0; off+8 <= len(b) && boxes < 4096; boxes++ {
		size := int64(be32(b, off))
		typ := string(b[off+4 : off+8])
		hdr := 8
		switch size {
		case 0:
			size = int64(len(b) - off)
		case 1:
			size, hdr = int64(be64(b, off+8)), 16
		}
		if size < int64(hdr) || size > int64(len(b)-off) {
			return
		}
		body := b[off+hdr : off+int(size)]
		off += int(size)
		switch typ {
		case "mvhd":
			var scale, dur uint64
			if len(body) > 0 && body[0] == 1 {
				scale, dur = uint64(be32(body, 20)), be64(body, 24)
			} else {
				scale, dur = uint64(be32(body, 12)), uint64(be32(body, 16))
			}
			if scale > 0 && dur != math.MaxUint32 && dur != math.MaxUint64 {
				nf.duration = float64(dur) / float64(scale)
			}
		case "tkhd":
			at := 76
			if len(body) > 0 && body[0] == 1 {
				at = 88
			}
			if w, h := int(be32(body, at)>>16), int(be32(body, at+4)>>16); w > 0 && h > 0 && nf.width == 0 {
				nf.width, nf.height = w, h
			}
		case "data": // inside an ilst item: type, locale, value
			return // handled by the parent
		case "meta":
			if len(body) >= 8 && string(body[4:8]) != "hdlr" {
				body = body[4:] // ISO full box: version and flags (QuickTime's has none)
			}
			walkBoxes(nf, body, depth+1)
		case "\xa9nam", "\xa9ART", "\xa9cmt", "desc":
			key := map[string]string{"\xa9nam": "title", "\xa9ART": "artist", "\xa9cmt": "comment", "desc": "description"}[typ]
			if len(body) >= 16 && string(body[4:8]) == "data" {
				n := int(be32(body, 0))
				nf.set(key, string(slice(body, 16, n-16)))
			} else if len(body) >= 4 && depth > 0 { // QuickTime udta: length, language, text
				n := be16(body, 0)
				nf.set(key, string(slice(body, 4, n)))
			}
		default:
			if containers[typ] {
				walkBoxes(nf, body, depth+1)
			}
		}
	}
}

// ---- Matroska / WebM (EBML) ----

// ebmlVint reads an EBML variable-length integer at b[off]; with keep the
// length marker stays (element IDs). It returns the value, its length,
// and whether all value bits were ones (unknown size).
func ebmlVint(b []byte, off int, keep bool) (uint64, int, bool) {
	if off >= len(b) || b[off] == 0 {
		return 0, 0, false
	}
	n := 1
	for mask := byte(0x80); b[off]&mask == 0; mask >>= 1 {
		n++
	}
	if n > 8 || off+n > len(b) {
		return 0, 0, false
	}
	v := uint64(b[off])
	if !keep {
		v &= uint64(0xFF >> n)
	}
	allOnes := v == uint64(0xFF>>n)
	for i := 1; i < n; i++ {
		v = v<<8 | uint64(b[off+i])
		allOnes = allOnes && b[off+i] == 0xFF
	}
	return v, n, allOnes
}

const (
	ebmlHeader   = 0x1A45DFA3
	mkvDocType   = 0x4282
	mkvSegment   = 0x18538067
	mkvInfo      = 0x1549A966
	mkvScale     = 0x2AD7B1
	mkvDuration  = 0x4489
	mkvTitle     = 0x7BA9
	mkvTracks    = 0x1654AE6B
	mkvTrack     = 0xAE
	mkvVideo     = 0xE0
	mkvAudio     = 0xE1
	mkvWidth     = 0xB0
	mkvHeight    = 0xBA
	mkvFrequency = 0xB5
	mkvChannels  = 0x9F
	mkvCluster   = 0x1F43B675
)

func readMatroska(nf *info, b []byte) {
	nf.format = "Matroska video"
	id, _, _ := ebmlVint(b, 0, true)
	if id != ebmlHeader {
		nf.warn("media: no EBML header")
		return
	}
	scale, dur := uint64(1000000), 0.0
	walkEBML(b, 0, func(id uint64, data []byte) bool {
		switch id {
		case ebmlHeader, mkvSegment, mkvInfo, mkvTracks, mkvTrack, mkvVideo, mkvAudio:
			return true // descend
		case mkvDocType:
			if string(data) == "webm" {
				nf.format = "WebM video"
			}
		case mkvScale:
			if v := ebmlUint(data); v > 0 {
				scale = v
			}
		case mkvDuration:
			dur = ebmlFloat(data)
		case mkvTitle:
			nf.set("title", string(data))
		case mkvWidth:
			if nf.width == 0 {
				nf.width = int(min(ebmlUint(data), 1<<20))
			}
		case mkvHeight:
			if nf.height == 0 {
				nf.height = int(min(ebmlUint(data), 1<<20))
			}
		case mkvFrequency:
			if nf.rate == 0 {
				if f := ebmlFloat(data); f > 0 && f < 1e7 {
					nf.rate = int(f)
				}
			}
		case mkvChannels:
			if nf.channels == 0 {
				nf.channels = int(min(ebmlUint(data), 64))
			}
		}
		return false
	}, 0)
	if dur > 0 && !math.IsInf(dur, 0) {
		nf.duration = dur * float64(scale) / 1e9
	}
}

// walkEBML calls fn for each element of b; fn returns true to descend.
// It stops at the first cluster (the media data).
func walkEBML(b []byte, depth int, fn func(id uint64, data []byte) bool, count int) int {
	if depth > maxDepth {
		return count
	}
	for off := 0; off < len(b) && count < 10000; count++ {
		id, n, _ := ebmlVint(b, off, true)
		if n == 0 {
			return count
		}
		size, m, unknown := ebmlVint(b, off+n, false)
		if m == 0 {
			return count
		}
		start := off + n + m
		end := len(b)
		if !unknown && size <= uint64(len(b)-start) {
			end = start + int(size)
		} else if !unknown {
			end = len(b) // truncated file: read what is there
		}
		if id == mkvCluster {
			return count
		}
		if fn(id, b[start:end]) {
			count = walkEBML(b[start:end], depth+1, fn, count)
		}
		off = end
	}
	return count
}

func ebmlUint(b []byte) uint64 {
	var v uint64
	for i, c := range b {
		if i == 8 {
			break
		}
		v = v<<8 | uint64(c)
	}
	return v
}

func ebmlFloat(b []byte) float64 {
	switch len(b) {
	case 4:
		return float64(math.Float32frombits(be32(b, 0)))
	case 8:
		return math.Float64frombits(be64(b, 0))
	}
	return 0
}
