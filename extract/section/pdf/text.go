package pdf

import (
	"bytes"
	"math"
	"strings"
)

// Budgets of text extraction.
const (
	maxOps       = 4 << 20 // content operators interpreted per document
	maxText      = 8 << 20 // bytes of text kept per document
	maxFormDepth = 8       // nested form XObjects
	maxStack     = 64      // saved graphics states
)

type matrix [6]float64 // a b c d e f

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// line is one line of a page's text with its vertical position (device
// space, PDF's y grows upwards).
type line struct {
	y    float64
	text string
}

// extractor interprets content streams into lines of text.
type extractor struct {
	d      *doc
	ops    int
	bytes  int
	fonts  map[any]*font
	noUni  map[string]bool // fonts without a Unicode mapping, by base name
	capped bool

	// the page being read
	lines          []line
	cur            strings.Builder
	curY           float64
	lastX, lastEnd float64
	lastSize       float64
	started        bool
	glyphs         []glyph
}

func newExtractor(d *doc) *extractor {
	return &extractor{d: d, fonts: map[any]*font{}, noUni: map[string]bool{}}
}

type gstate struct {
	ctm                  matrix
	font                 *font
	size, tc, tw, th, tl float64
	rise                 float64
}

// page returns the lines of text of one page.
func (x *extractor) page(pd dict, res dict) []line {
	x.lines, x.started = nil, false
	x.cur.Reset()
	content := x.contents(pd["Contents"])
	g := gstate{ctm: identity, th: 1}
	x.run(content, res, g, 0, map[any]bool{})
	x.flush()
	return x.lines
}

// contents concatenates a page's content streams.
func (x *extractor) contents(o object) []byte {
	var parts [][]byte
	switch v := x.d.get(o).(type) {
	case *stream:
		if b, err := x.d.decode(v); err == nil {
			parts = append(parts, b)
		}
	case array:
		for i, s := range v {
			if i > 4096 {
				break
			}
			if st, ok := x.d.get(s).(*stream); ok {
				if b, err := x.d.decode(st); err == nil {
					parts = append(parts, b)
				}
			}
		}
	}
	return bytes.Join(parts, []byte("\n"))
}

func (x *extractor) font(res dict, n name) *font {
	fonts := x.d.dict(res["Font"])
	o := fonts[n]
	var key any
	if r, ok := o.(ref); ok {
		key = r
	}
	if key != nil {
		if f, ok := x.fonts[key]; ok {
			return f
		}
	}
	fd := x.d.dict(o)
	if fd == nil {
		return nil
	}
	f := x.d.loadFont(fd)
	if f.noText {
		base, _ := x.d.get(fd["BaseFont"]).(name)
		if !x.noUni[string(base)] && len(x.noUni) < 16 {
			x.noUni[string(base)] = true
			x.d.warn("pdf: font %s has no Unicode mapping; its text is lost", base)
		}
	}
	if key != nil {
		x.fonts[key] = f
	}
	return f
}

// run interprets one content stream.
func (x *extractor) run(content []byte, res dict, g gstate, depth int, forms map[any]bool) {
	l := &lexer{b: content}
	var stack []object
	var saved []gstate
	var tm, tlm matrix
	for {
		if x.ops >= maxOps || x.bytes >= maxText {
			if !x.capped {
				x.capped = true
				x.d.warn("pdf: text extraction budget reached; the rest is left out")
			}
			return
		}
		l.skipSpace()
		if l.pos >= len(l.b) {
			return
		}
		var o object
		c := l.b[l.pos]
		if c == '[' || c == '<' && l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			var err error
			if o, err = l.object(0); err != nil {
				return
			}
		} else {
			var ok bool
			if o, ok = l.token(); !ok {
				return
			}
		}
		op, isOp := o.(keyword)
		if !isOp {
			if len(stack) < 64 {
				stack = append(stack, o)
			}
			continue
		}
		x.ops++
		args := stack
		stack = stack[:0]
		num := func(i int) float64 {
			if i < len(args) {
				switch v := args[i].(type) {
				case int64:
					return float64(v)
				case float64:
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						return v
					}
				}
			}
			return 0
		}
		mat := func() matrix {
			return matrix{num(0), num(1), num(2), num(3), num(4), num(5)}
		}
		switch op {
		case "q":
			if len(saved) < maxStack {
				saved = append(saved, g)
			}
		case "Q":
			if len(saved) > 0 {
				g = saved[len(saved)-1]
				saved = saved[:len(saved)-1]
			}
		case "cm":
			if len(args) == 6 {
				g.ctm = mat().mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if len(args) == 2 {
				if n, ok := args[0].(name); ok {
					g.font = x.font(res, n)
				}
				g.size = num(1)
			}
		case "Tc":
			g.tc = num(0)
		case "Tw":
			g.tw = num(0)
		case "Tz":
			g.th = num(0) / 100
		case "TL":
			g.tl = num(0)
		case "Ts":
			g.rise = num(0)
		case "Td", "TD":
			if op == "TD" {
				g.tl = -num(1)
			}
			tlm = matrix{1, 0, 0, 1, num(0), num(1)}.mul(tlm)
			tm = tlm
		case "Tm":
			if len(args) == 6 {
				tm, tlm = mat(), mat()
			}
		case "T*":
			tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(tlm)
			tm = tlm
		case "Tj", "'", "\"":
			if op != "Tj" {
				if op == "\"" && len(args) == 3 {
					g.tw, g.tc = num(0), num(1)
				}
				tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(tlm)
				tm = tlm
			}
			if len(args) > 0 {
				if s, ok := args[len(args)-1].([]byte); ok {
					x.show(s, &tm, g)
				}
			}
		case "TJ":
			if len(args) > 0 {
				a, _ := args[0].(array)
				for _, e := range a {
					switch v := e.(type) {
					case []byte:
						x.show(v, &tm, g)
					case int64, float64:
						var f float64
						if i, ok := v.(int64); ok {
							f = float64(i)
						} else {
							f = v.(float64)
						}
						if !math.IsNaN(f) && !math.IsInf(f, 0) {
							tm = matrix{1, 0, 0, 1, -f / 1000 * g.size * g.th, 0}.mul(tm)
						}
					}
				}
			}
		case "Do":
			if len(args) == 1 && depth < maxFormDepth {
				n, _ := args[0].(name)
				xo := x.d.dict(res["XObject"])
				o := xo[n]
				var key any
				switch v := o.(type) {
				case ref, *stream: // a direct dictionary cannot be a stream; no key, no form
					key = v
				}
				if s, ok := x.d.get(o).(*stream); ok && key != nil && x.d.get(s.dict["Subtype"]) == name("Form") && !forms[key] {
					if b, err := x.d.decode(s); err == nil {
						fg := g
						if m := x.d.array(s.dict["Matrix"]); len(m) == 6 {
							var fm matrix
							for i := range fm {
								fm[i], _ = x.d.num(m[i])
							}
							fg.ctm = fm.mul(g.ctm)
						}
						fres := x.d.dict(s.dict["Resources"])
						if fres == nil {
							fres = res
						}
						forms[key] = true
						x.run(b, fres, fg, depth+1, forms)
						delete(forms, key)
					}
				}
			}
		case "BI":
			// Inline image: skip its data up to "EI".
			for {
				t, ok := l.token()
				if !ok {
					return
				}
				if t == keyword("ID") {
					break
				}
			}
			i := l.pos
			for {
				k := bytes.Index(l.b[i:], []byte("EI"))
				if k < 0 {
					return
				}
				i += k
				if isWhite(l.b[i-1]) && (i+2 >= len(l.b) || isWhite(l.b[i+2])) {
					l.pos = i + 2
					break
				}
				i += 2
			}
		}
	}
}

// show places one string of glyphs: a line break when the baseline
// moved, a space when there is a visible gap, then the text.
func (x *extractor) show(s []byte, tm *matrix, g gstate) {
	if g.font == nil {
		return
	}
	x.glyphs = g.font.decode(s, x.glyphs[:0])
	trm := matrix{g.size * g.th, 0, 0, g.size, 0, g.rise}.mul(*tm).mul(g.ctm)
	xPos, yPos := trm[4], trm[5]
	size := math.Hypot(trm[2], trm[3])
	if size < 0.1 || math.IsNaN(size) || math.IsInf(size, 0) {
		size = math.Max(math.Abs(g.size), 1)
	}
	var text strings.Builder
	for _, gl := range x.glyphs {
		text.WriteString(gl.text)
		tx := (gl.width/1000*g.size + g.tc) * g.th
		if gl.space {
			tx += g.tw * g.th
		}
		*tm = matrix{1, 0, 0, 1, tx, 0}.mul(*tm)
	}
	end := matrix{g.size * g.th, 0, 0, g.size, 0, g.rise}.mul(*tm).mul(g.ctm)[4]
	t := text.String()
	if t == "" {
		return
	}
	switch {
	case !x.started:
		x.started = true
		x.curY = yPos
	case math.Abs(yPos-x.curY) > 0.5*math.Max(size, x.lastSize):
		x.flush()
		x.curY = yPos
	case xPos > x.lastEnd+0.15*size || xPos < x.lastX-size:
		if c := x.cur.String(); c != "" && !strings.HasSuffix(c, " ") && !strings.HasPrefix(t, " ") {
			x.cur.WriteByte(' ')
		}
	}
	x.cur.WriteString(t)
	x.bytes += len(t)
	x.lastX, x.lastEnd, x.lastSize = xPos, end, size
}

func (x *extractor) flush() {
	if t := strings.TrimSpace(x.cur.String()); t != "" {
		x.lines = append(x.lines, line{y: x.curY, text: strings.Join(strings.Fields(t), " ")})
	}
	x.cur.Reset()
}
