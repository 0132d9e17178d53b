package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"

	"golang.org/x/image/tiff/lzw"
)

// Budgets: every loop over file-controlled data is bounded by one of these.
const (
	maxObjects      = 1 << 20  // objects in the file
	maxStreamOut    = 16 << 20 // bytes one stream may decompress to
	maxTotalOut     = 64 << 20 // bytes all streams together may decompress to
	maxPages        = 20000
	maxPageNodes    = 100000 // page tree nodes visited
	maxOutline      = 10000  // outline items
	maxNameTree     = 100000 // named destinations
	maxObjStmObject = 100000 // objects in one object stream
)

var (
	errBudget    = errors.New("pdf: decompression budget exhausted")
	errEncrypted = errors.New("pdf is encrypted")
)

// doc is a PDF file read without trusting its cross-reference table: the
// body is scanned for "n g obj" definitions (a later definition wins, as
// incremental updates intend) and object streams are unpacked, which also
// reads files whose xref offsets are broken.
type doc struct {
	data     []byte
	objs     map[int]object // by object number
	trailer  dict
	out      int // bytes decompressed so far
	warnings []string
}

func (d *doc) warn(format string, args ...any) {
	if len(d.warnings) < 32 {
		d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
	}
}

// load scans data for objects and trailers.
func load(data []byte) (*doc, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data[:min(len(data), 1024)], "\x00\t\n\r \f"), []byte("%PDF-")) &&
		bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-")) < 0 {
		return nil, errors.New("not a PDF file: no %PDF- header")
	}
	d := &doc{data: data, objs: map[int]object{}}
	var objstms []*stream
	l := &lexer{b: data}
	// Work is bounded: a broken object (an unterminated string, say) may
	// make the parser read far ahead, and the scan resumes right after its
	// "obj"; all that reading together stays within lexBudget bytes.
	lexed, lexBudget := 0, 16*len(data)+1<<20
	nextTrailer := -1 // offset of the next "trailer" at or after pos (len: none)
	for pos := 0; pos < len(data) && len(d.objs) < maxObjects; {
		if lexed > lexBudget {
			d.warn("pdf: the file is too damaged to read in full")
			break
		}
		if nextTrailer < pos {
			if t := bytes.Index(data[pos:], []byte("trailer")); t >= 0 {
				nextTrailer = pos + t
			} else {
				nextTrailer = len(data)
			}
		}
		i := bytes.Index(data[pos:min(len(data), nextTrailer+3)], []byte("obj"))
		if i < 0 && nextTrailer < len(data) {
			l.pos = nextTrailer + len("trailer")
			if o, err := l.object(0); err == nil {
				if td, ok := o.(dict); ok {
					d.mergeTrailer(td)
				}
			}
			lexed += l.pos - nextTrailer
			pos = max(l.pos, nextTrailer+1)
			continue
		}
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + 3
		if at > 0 && !isWhite(data[at-1]) || at+3 < len(data) && !isWhite(data[at+3]) && !isDelim(data[at+3]) {
			continue // "endobj", "objective", ...
		}
		num, gen, ok := objHeader(data, at)
		if !ok {
			continue
		}
		_ = gen
		l.pos = at + 3
		o, err := l.object(0)
		lexed += l.pos - at
		if err != nil {
			continue
		}
		// A stream?
		save := l.pos
		if sd, isDict := o.(dict); isDict {
			if kw, ok := l.token(); ok && kw == keyword("stream") {
				s := d.streamAt(sd, l.pos)
				o = s
				l.pos = s.end
				if sd["Type"] == name("ObjStm") {
					objstms = append(objstms, s.stream)
				}
				if sd["Type"] == name("XRef") {
					d.mergeTrailer(sd)
				}
			} else {
				l.pos = save
			}
		}
		if s, ok := o.(streamAt); ok {
			d.objs[num] = s.stream
		} else {
			d.objs[num] = o
		}
		pos = max(pos, l.pos)
	}
	if d.trailer["Encrypt"] != nil {
		return d, errEncrypted
	}
	// Objects in object streams, unless defined directly.
	for _, s := range objstms {
		d.unpackObjStm(s)
	}
	if _, ok := d.get(d.trailer["Root"]).(dict); !ok {
		// No usable trailer: find the catalog itself.
		for num, o := range d.objs {
			if od, ok := o.(dict); ok && od["Type"] == name("Catalog") {
				if old, ok := d.trailer["Root"].(ref); !ok || num > old.num {
					if d.trailer == nil {
						d.trailer = dict{}
					}
					d.trailer["Root"] = ref{num, 0}
				}
			}
		}
	}
	if _, ok := d.get(d.trailer["Root"]).(dict); !ok {
		return d, errors.New("pdf has no document catalog")
	}
	return d, nil
}

// mergeTrailer keeps the newest trailer's entries (later in the file wins).
func (d *doc) mergeTrailer(t dict) {
	if d.trailer == nil {
		d.trailer = dict{}
	}
	for _, k := range []name{"Root", "Info", "Encrypt"} {
		if v, ok := t[k]; ok && v != nil {
			d.trailer[k] = v
		}
	}
}

// objHeader reads "num gen" right before the "obj" at data[at].
func objHeader(data []byte, at int) (num, gen int, ok bool) {
	gen, i, ok := numberBefore(data, at-1, 6)
	if !ok {
		return 0, 0, false
	}
	if num, _, ok = numberBefore(data, i, 10); !ok {
		return 0, 0, false
	}
	return num, gen, num >= 0 && num < 1<<30
}

// numberBefore reads backwards from data[i], past white space, a number of
// at most digits digits: its value and the index just before it.
func numberBefore(data []byte, i, digits int) (n, before int, ok bool) {
	for i >= 0 && isWhite(data[i]) {
		i--
	}
	end := i
	for i >= 0 && data[i] >= '0' && data[i] <= '9' {
		i--
	}
	if i == end || end-i > digits {
		return 0, i, false
	}
	return atoi(data[i+1 : end+1]), i, true
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

type streamAt struct {
	stream *stream
	end    int
}

// streamAt finds a stream's data after the "stream" keyword at pos: by
// /Length when it is direct and lands on "endstream", else by searching.
func (d *doc) streamAt(sd dict, pos int) streamAt {
	data := d.data
	if pos < len(data) && data[pos] == '\r' {
		pos++
	}
	if pos < len(data) && data[pos] == '\n' {
		pos++
	}
	if n, ok := sd["Length"].(int64); ok && n >= 0 && n <= int64(len(data)-pos) {
		end := pos + int(n)
		rest := bytes.TrimLeft(data[end:min(len(data), end+32)], "\r\n\t \f")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			return streamAt{&stream{dict: sd, raw: data[pos:end]}, end}
		}
	}
	e := bytes.Index(data[pos:], []byte("endstream"))
	if e < 0 {
		return streamAt{&stream{dict: sd, raw: data[pos:]}, len(data)}
	}
	end := pos + e
	raw := bytes.TrimSuffix(bytes.TrimSuffix(data[pos:end], []byte("\n")), []byte("\r"))
	return streamAt{&stream{dict: sd, raw: raw}, end + len("endstream")}
}

// unpackObjStm adds the objects of an object stream that were not defined
// directly.
func (d *doc) unpackObjStm(s *stream) {
	b, err := d.decode(s)
	if err != nil {
		d.warn("pdf: object stream: %v", err)
		return
	}
	n, _ := s.dict["N"].(int64)
	first, _ := s.dict["First"].(int64)
	if n <= 0 || first < 0 || first > int64(len(b)) {
		return
	}
	l := &lexer{b: b[:first]}
	type entry struct{ num, off int }
	var es []entry
	for i := int64(0); i < n && i < maxObjStmObject; i++ {
		a, ok1 := l.token()
		o, ok2 := l.token()
		num, isInt1 := a.(int64)
		off, isInt2 := o.(int64)
		if !ok1 || !ok2 || !isInt1 || !isInt2 {
			break
		}
		es = append(es, entry{int(num), int(off)})
	}
	body := &lexer{b: b}
	for _, e := range es {
		if e.num < 0 || e.num >= 1<<30 || len(d.objs) >= maxObjects {
			continue
		}
		if _, defined := d.objs[e.num]; defined {
			continue
		}
		at := int64(first) + int64(e.off)
		if e.off < 0 || at >= int64(len(b)) {
			continue
		}
		body.pos = int(at)
		if o, err := body.object(0); err == nil {
			d.objs[e.num] = o
		}
	}
}

// get resolves a reference (one level; references to references are
// followed a few times).
func (d *doc) get(o object) object {
	for i := 0; i < 8; i++ {
		r, ok := o.(ref)
		if !ok {
			return o
		}
		o = d.objs[r.num]
	}
	return nil
}

func (d *doc) dict(o object) dict {
	switch v := d.get(o).(type) {
	case dict:
		return v
	case *stream:
		return v.dict
	}
	return nil
}

func (d *doc) array(o object) array {
	a, _ := d.get(o).(array)
	return a
}

func (d *doc) int(o object) (int64, bool) {
	switch v := d.get(o).(type) {
	case int64:
		return v, true
	case float64:
		if v > -1e15 && v < 1e15 {
			return int64(v), true
		}
	}
	return 0, false
}

func (d *doc) num(o object) (float64, bool) {
	switch v := d.get(o).(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// decode returns a stream's data with its filters applied, within the
// decompression budget. Image filters (DCT, JPX, CCITT, JBIG2) are not
// undone: their streams are pictures, never text.
func (d *doc) decode(s *stream) ([]byte, error) {
	filters := d.get(s.dict["Filter"])
	parms := d.get(s.dict["DecodeParms"])
	var fs []name
	var ps []dict
	switch f := filters.(type) {
	case name:
		fs = []name{f}
		ps = []dict{d.dict(parms)}
	case array:
		pa, _ := parms.(array)
		for i, x := range f {
			n, _ := d.get(x).(name)
			fs = append(fs, n)
			var p dict
			if i < len(pa) {
				p = d.dict(pa[i])
			}
			ps = append(ps, p)
		}
	}
	b := s.raw
	for i, f := range fs {
		if i > 8 {
			return nil, errors.New("too many filters")
		}
		var r io.Reader
		switch f {
		case "FlateDecode", "Fl":
			zr, err := zlib.NewReader(bytes.NewReader(b))
			if err != nil {
				r = flate.NewReader(bytes.NewReader(b)) // raw deflate, as some writers do
			} else {
				r = zr
			}
		case "LZWDecode", "LZW":
			r = lzw.NewReader(bytes.NewReader(b), lzw.MSB, 8)
		case "ASCII85Decode", "A85":
			t := bytes.TrimSpace(b)
			t = bytes.TrimPrefix(t, []byte("<~"))
			if k := bytes.Index(t, []byte("~>")); k >= 0 {
				t = t[:k]
			}
			r = ascii85.NewDecoder(bytes.NewReader(t))
		case "ASCIIHexDecode", "AHx":
			l := &lexer{b: append(append([]byte("<"), b...), '>')}
			b = l.hex()
			continue
		case "RunLengthDecode", "RL":
			b = runLength(b)
			continue
		case "Crypt":
			continue // the identity crypt filter
		default:
			return nil, fmt.Errorf("unsupported filter %s", f)
		}
		out, err := d.readLimited(r)
		if err != nil && len(out) == 0 {
			return nil, err
		}
		b = out // a truncated stream keeps what decoded
		if p := ps[i]; p != nil {
			if pred, _ := d.int(p["Predictor"]); pred >= 10 {
				cols, _ := d.int(p["Columns"])
				colors, _ := d.int(p["Colors"])
				bpc, _ := d.int(p["BitsPerComponent"])
				b = unpredict(b, cols, colors, bpc)
			}
		}
	}
	return b, nil
}

func (d *doc) readLimited(r io.Reader) ([]byte, error) {
	limit := min(maxStreamOut, maxTotalOut-d.out)
	if limit <= 0 {
		return nil, errBudget
	}
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if len(out) > limit {
		out = out[:limit]
		d.warn("pdf: a stream decompresses to more than %d MB; cut", limit>>20)
	}
	d.out += len(out)
	return out, err
}

func runLength(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b) && len(out) < maxStreamOut; {
		n := int(b[i])
		i++
		switch {
		case n == 128:
			return out
		case n < 128:
			end := min(i+n+1, len(b))
			out = append(out, b[i:end]...)
			i = end
		default:
			if i < len(b) {
				out = append(out, bytes.Repeat(b[i:i+1], 257-n)...)
				i++
			}
		}
	}
	return out
}

// unpredict undoes the PNG predictors (each row starts with its filter type).
func unpredict(b []byte, cols, colors, bpc int64) []byte {
	if cols <= 0 {
		cols = 1
	}
	if colors <= 0 {
		colors = 1
	}
	if bpc <= 0 {
		bpc = 8
	}
	if cols > 1<<20 || colors > 64 || bpc > 16 {
		return b
	}
	bpp := int(max((colors*bpc+7)/8, 1))
	row := int((cols*colors*bpc + 7) / 8)
	var out []byte
	prev := make([]byte, row)
	for i := 0; i+1+row <= len(b); i += 1 + row {
		ft := b[i]
		cur := append([]byte(nil), b[i+1:i+1+row]...)
		for j := range cur {
			var left, up, ul byte
			if j >= bpp {
				left = cur[j-bpp]
				ul = prev[j-bpp]
			}
			up = prev[j]
			switch ft {
			case 1:
				cur[j] += left
			case 2:
				cur[j] += up
			case 3:
				cur[j] += byte((int(left) + int(up)) / 2)
			case 4:
				cur[j] += paeth(left, up, ul)
			}
		}
		out = append(out, cur...)
		prev = cur
	}
	return out
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
