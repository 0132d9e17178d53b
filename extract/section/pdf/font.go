package pdf

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// font turns the bytes of a shown string into text and glyph widths.
type font struct {
	toUni     *cmap       // ToUnicode, when the font has one
	space     []codeRange // code lengths (ToUnicode or predefined CMap)
	composite bool        // Type0: 2-byte codes unless the code space says otherwise
	utf16     bool        // Type0 with a Unicode (UCS2/UTF16) CMap: codes are UTF-16BE
	enc       *[256]rune  // simple fonts
	first     int         // simple fonts: /FirstChar
	widths    []float64   // simple fonts: /Widths
	missing   float64     // width of a code without one
	cidW      []cidWidth  // Type0: /W
	noText    bool        // no way to Unicode (Identity-H without ToUnicode)
}

type cidWidth struct {
	lo, hi int
	w      float64
}

type codeRange struct {
	n      int
	lo, hi uint32
}

// glyph is one decoded code.
type glyph struct {
	text  string
	width float64 // in 1/1000 text space units
	space bool    // the single-byte code 32 (word spacing applies)
}

// decode splits s into codes.
func (f *font) decode(s []byte, out []glyph) []glyph {
	for i := 0; i < len(s); {
		n := f.codeLen(s[i:])
		var code uint32
		for _, c := range s[i : i+n] {
			code = code<<8 | uint32(c)
		}
		g := glyph{width: f.width(int(code)), space: n == 1 && code == 32}
		switch {
		case f.toUni != nil:
			if t, ok := f.toUni.lookup(code, n); ok {
				g.text = t
			} else if !f.composite && f.enc != nil && n == 1 {
				g.text = runeText(f.enc[code])
			}
		case f.utf16:
			g.text = string(utf16.Decode([]uint16{uint16(code)}))
		case f.composite:
			// Identity-H without ToUnicode: CIDs are glyph ids, not text.
		case f.enc != nil && n == 1:
			g.text = runeText(f.enc[code])
		}
		out = append(out, g)
		i += n
	}
	return out
}

func runeText(r rune) string {
	if r == 0 {
		return ""
	}
	return string(r)
}

func (f *font) codeLen(s []byte) int {
	for _, cr := range f.space {
		if cr.n > len(s) {
			continue
		}
		var code uint32
		for _, c := range s[:cr.n] {
			code = code<<8 | uint32(c)
		}
		if code >= cr.lo && code <= cr.hi {
			return cr.n
		}
	}
	if f.composite && len(s) >= 2 {
		return 2
	}
	return 1
}

func (f *font) width(code int) float64 {
	if f.composite {
		i := sort.Search(len(f.cidW), func(i int) bool { return f.cidW[i].hi >= code })
		if i < len(f.cidW) && f.cidW[i].lo <= code {
			return f.cidW[i].w
		}
		return f.missing
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	return f.missing
}

// loadFont reads a font dictionary.
func (d *doc) loadFont(fd dict) *font {
	f := &font{missing: 500}
	sub, _ := d.get(fd["Subtype"]).(name)
	if tu, ok := d.get(fd["ToUnicode"]).(*stream); ok {
		if b, err := d.decode(tu); err == nil {
			f.toUni = parseCMap(b)
			f.space = f.toUni.space
		}
	}
	if sub == "Type0" {
		f.composite = true
		f.missing = 1000
		encName, _ := d.get(fd["Encoding"]).(name)
		if strings.HasPrefix(string(encName), "Uni") && (strings.Contains(string(encName), "UCS2") || strings.Contains(string(encName), "UTF16")) {
			f.utf16 = true
		}
		if es, ok := d.get(fd["Encoding"]).(*stream); ok && f.space == nil { // an embedded CMap: its code space
			if b, err := d.decode(es); err == nil {
				f.space = parseCMap(b).space
			}
		}
		if desc := d.array(fd["DescendantFonts"]); len(desc) > 0 {
			dd := d.dict(desc[0])
			if dw, ok := d.num(dd["DW"]); ok && dw > 0 {
				f.missing = dw
			}
			f.cidW = d.cidWidths(d.array(dd["W"]))
		}
		if f.toUni == nil && !f.utf16 {
			f.noText = true
		}
		return f
	}
	// A simple font: base encoding, differences, widths.
	enc := standardEncoding
	if sub == "TrueType" {
		enc = winAnsiEncoding // what TrueType fonts without an encoding use in practice
	}
	var differences array
	switch e := d.get(fd["Encoding"]).(type) {
	case name:
		if b := baseEncoding(e); b != nil {
			enc = b
		}
	case dict:
		if bn, ok := d.get(e["BaseEncoding"]).(name); ok {
			if b := baseEncoding(bn); b != nil {
				enc = b
			}
		}
		differences = d.array(e["Differences"])
	}
	if len(differences) > 0 {
		own := *enc
		code := 0
		for i, x := range differences {
			if i > 4096 {
				break
			}
			switch v := d.get(x).(type) {
			case int64:
				code = int(v)
			case name:
				if code >= 0 && code < 256 {
					own[code] = glyphRune(string(v))
				}
				code++
			}
		}
		enc = &own
	}
	f.enc = enc
	if fc, ok := d.int(fd["FirstChar"]); ok && fc >= 0 && fc < 256 {
		f.first = int(fc)
	}
	ws := d.array(fd["Widths"])
	for i, w := range ws {
		if i >= 256 {
			break
		}
		v, _ := d.num(w)
		f.widths = append(f.widths, v)
	}
	if desc := d.dict(fd["FontDescriptor"]); desc != nil {
		if mw, ok := d.num(desc["MissingWidth"]); ok && mw > 0 {
			f.missing = mw
		}
	}
	return f
}

// cidWidths reads a /W array: "c [w1 w2 ...]" and "c1 c2 w".
func (d *doc) cidWidths(w array) []cidWidth {
	var out []cidWidth
	for i := 0; i < len(w) && len(out) < 1<<16; {
		c, ok := d.int(w[i])
		if !ok {
			break
		}
		if i+1 < len(w) {
			if list, isArr := d.get(w[i+1]).(array); isArr {
				for j, x := range list {
					if j >= 1<<16 {
						break
					}
					v, _ := d.num(x)
					out = append(out, cidWidth{int(c) + j, int(c) + j, v})
				}
				i += 2
				continue
			}
		}
		if i+2 < len(w) {
			c2, ok1 := d.int(w[i+1])
			v, ok2 := d.num(w[i+2])
			if ok1 && ok2 && c2 >= c {
				out = append(out, cidWidth{int(c), int(c2), v})
			}
		}
		i += 3
	}
	sort.Slice(out, func(a, b int) bool { return out[a].lo < out[b].lo })
	return out
}

// cmap is a parsed ToUnicode CMap.
type cmap struct {
	space  []codeRange
	single map[uint64]string // n<<32 | code
	ranges []bfRange
}

type bfRange struct {
	n      int
	lo, hi uint32
	dst    []rune   // first destination; the last rune counts up
	list   []string // or one destination per code
}

func (m *cmap) lookup(code uint32, n int) (string, bool) {
	if t, ok := m.single[uint64(n)<<32|uint64(code)]; ok {
		return t, true
	}
	for _, r := range m.ranges {
		if r.n != n || code < r.lo || code > r.hi {
			continue
		}
		off := int(code - r.lo)
		if r.list != nil {
			if off < len(r.list) {
				return r.list[off], true
			}
			return "", false
		}
		if len(r.dst) == 0 {
			return "", false
		}
		rs := append([]rune(nil), r.dst...)
		rs[len(rs)-1] += rune(off)
		if !utf8.ValidRune(rs[len(rs)-1]) {
			return "", false
		}
		return string(rs), true
	}
	return "", false
}

// maxCMapEntries bounds what one CMap may define.
const maxCMapEntries = 1 << 17

func parseCMap(b []byte) *cmap {
	m := &cmap{single: map[uint64]string{}}
	l := &lexer{b: b}
	var stack []object
	entries := 0
	for entries < maxCMapEntries {
		t, ok := l.token()
		if !ok {
			break
		}
		kw, isKw := t.(keyword)
		if !isKw || kw == "[" {
			if kw == "[" {
				l.pos--
				o, err := l.object(0)
				if err != nil {
					break
				}
				t = o
			}
			if len(stack) < 3*512 {
				stack = append(stack, t)
			}
			continue
		}
		switch kw {
		case "begincodespacerange", "beginbfchar", "beginbfrange":
			stack = stack[:0]
		case "endcodespacerange":
			for i := 0; i+1 < len(stack); i += 2 {
				lo, ok1 := stack[i].([]byte)
				hi, ok2 := stack[i+1].([]byte)
				if ok1 && ok2 && len(lo) == len(hi) && len(lo) >= 1 && len(lo) <= 4 {
					m.space = append(m.space, codeRange{len(lo), be(lo), be(hi)})
					entries++
				}
			}
			stack = stack[:0]
		case "endbfchar":
			for i := 0; i+1 < len(stack); i += 2 {
				src, ok1 := stack[i].([]byte)
				if !ok1 || len(src) < 1 || len(src) > 4 {
					continue
				}
				var dst string
				switch v := stack[i+1].(type) {
				case []byte:
					dst = utf16BE(v)
				case name:
					dst = runeText(glyphRune(string(v)))
				}
				m.single[uint64(len(src))<<32|uint64(be(src))] = dst
				entries++
			}
			stack = stack[:0]
		case "endbfrange":
			for i := 0; i+2 < len(stack); i += 3 {
				lo, ok1 := stack[i].([]byte)
				hi, ok2 := stack[i+1].([]byte)
				if !ok1 || !ok2 || len(lo) != len(hi) || len(lo) < 1 || len(lo) > 4 || be(hi) < be(lo) {
					continue
				}
				r := bfRange{n: len(lo), lo: be(lo), hi: be(hi)}
				switch v := stack[i+2].(type) {
				case []byte:
					r.dst = []rune(utf16BE(v))
				case array:
					for j, x := range v {
						if j > 1<<12 {
							break
						}
						s, _ := x.([]byte)
						r.list = append(r.list, utf16BE(s))
					}
				}
				m.ranges = append(m.ranges, r)
				entries++
			}
			stack = stack[:0]
		default:
			stack = stack[:0]
		}
	}
	// Shorter codes first: a code is matched 1 byte, then 2, ... (PDF 9.7.6.2).
	sort.SliceStable(m.space, func(i, j int) bool { return m.space[i].n < m.space[j].n })
	return m
}

func be(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

func utf16BE(b []byte) string {
	if len(b)%2 == 1 {
		if len(b) == 1 {
			return string(rune(b[0]))
		}
		b = b[:len(b)-1]
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return strings.ToValidUTF8(string(utf16.Decode(u)), "")
}

// textString decodes a text string (outline titles, document info):
// UTF-16BE or UTF-8 with a byte order mark, else PDFDocEncoding.
func textString(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return utf16BE(b[2:])
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return strings.ToValidUTF8(string(b[3:]), "")
	}
	var sb strings.Builder
	for _, c := range b {
		if r := pdfDocEncoding[c]; r != 0 {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// ---- encodings and glyph names ----

var (
	standardEncoding = new([256]rune)
	winAnsiEncoding  = new([256]rune)
	macRomanEncoding = new([256]rune)
	pdfDocEncoding   = new([256]rune)
	glyphNames       = map[string]rune{}
)

func baseEncoding(n name) *[256]rune {
	switch n {
	case "WinAnsiEncoding":
		return winAnsiEncoding
	case "MacRomanEncoding":
		return macRomanEncoding
	case "StandardEncoding":
		return standardEncoding
	}
	return nil
}

// glyphRune maps a glyph name to Unicode: the Adobe Glyph List names of
// Latin text, "uniXXXX", "uXXXX[XX]", single letters, and names with a
// suffix (".sc", ".alt") or ligature parts ("f_i") by their first part.
func glyphRune(n string) rune {
	if r, ok := glyphNames[n]; ok {
		return r
	}
	if i := strings.IndexAny(n, "._"); i > 0 {
		return glyphRune(n[:i])
	}
	if len(n) == 1 && n[0] < 0x80 {
		return rune(n[0])
	}
	if strings.HasPrefix(n, "uni") && len(n) >= 7 {
		if v, err := strconv.ParseUint(n[3:7], 16, 32); err == nil {
			return rune(v)
		}
	}
	if strings.HasPrefix(n, "u") && len(n) >= 5 && len(n) <= 7 {
		if v, err := strconv.ParseUint(n[1:], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
			return rune(v)
		}
	}
	return 0
}

func init() {
	ascii := strings.Fields(`exclam quotedbl numbersign dollar percent ampersand quotesingle parenleft parenright
		asterisk plus comma hyphen period slash zero one two three four five six seven eight nine colon semicolon
		less equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash
		bracketright asciicircum underscore grave a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar
		braceright asciitilde`)
	for i, n := range ascii {
		glyphNames[n] = rune(0x21 + i)
	}
	glyphNames["space"] = ' '
	latin1 := strings.Fields(`exclamdown cent sterling currency yen brokenbar section dieresis copyright ordfeminine
		guillemotleft logicalnot sfthyphen registered macron degree plusminus twosuperior threesuperior acute mu
		paragraph periodcentered cedilla onesuperior ordmasculine guillemotright onequarter onehalf threequarters
		questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring AE Ccedilla Egrave Eacute Ecircumflex
		Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde Ograve Oacute Ocircumflex Otilde Odieresis
		multiply Oslash Ugrave Uacute Ucircumflex Udieresis Yacute Thorn germandbls agrave aacute acircumflex
		atilde adieresis aring ae ccedilla egrave eacute ecircumflex edieresis igrave iacute icircumflex idieresis
		eth ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave uacute ucircumflex udieresis
		yacute thorn ydieresis`)
	for i, n := range latin1 {
		glyphNames[n] = rune(0xA1 + i)
	}
	for n, r := range map[string]rune{
		"quoteright": '’', "quoteleft": '‘', "quotedblleft": '“', "quotedblright": '”', "quotesinglbase": '‚',
		"quotedblbase": '„', "bullet": '•', "endash": '–', "emdash": '—', "ellipsis": '…', "dagger": '†',
		"daggerdbl": '‡', "perthousand": '‰', "guilsinglleft": '‹', "guilsinglright": '›', "fi": 'ﬁ', "fl": 'ﬂ',
		"ff": 'ﬀ', "ffi": 'ﬃ', "ffl": 'ﬄ', "trademark": '™', "Euro": '€', "florin": 'ƒ', "circumflex": 'ˆ',
		"tilde": '˜', "breve": '˘', "dotaccent": '˙', "ring": '˚', "hungarumlaut": '˝', "ogonek": '˛',
		"caron": 'ˇ', "dotlessi": 'ı', "Lslash": 'Ł', "lslash": 'ł', "OE": 'Œ', "oe": 'œ', "Scaron": 'Š',
		"scaron": 'š', "Zcaron": 'Ž', "zcaron": 'ž', "Ydieresis": 'Ÿ', "fraction": '⁄', "minus": '−',
		"nbspace": '\u00a0', "nonbreakingspace": '\u00a0', "hyphen": '-', "periodcentered": '·',
		"arrowright": '→', "arrowleft": '←', "degree": '°', "lessequal": '≤', "greaterequal": '≥',
		"notequal": '≠', "infinity": '∞', "summation": '∑', "product": '∏', "radical": '√',
		"integral": '∫', "partialdiff": '∂', "Delta": '∆', "Omega": 'Ω', "pi": 'π', "mu": 'µ',
		"approxequal": '≈', "lozenge": '◊', "apple": '\uf8ff', "space": ' ',
	} {
		glyphNames[n] = r
	}

	for c := 0x20; c < 0x7F; c++ {
		winAnsiEncoding[c] = rune(c)
		standardEncoding[c] = rune(c)
		macRomanEncoding[c] = rune(c)
		pdfDocEncoding[c] = rune(c)
	}
	for c := 0xA0; c <= 0xFF; c++ {
		winAnsiEncoding[c] = rune(c)
		pdfDocEncoding[c] = rune(c)
	}
	for _, c := range []int{'\t', '\n', '\r'} {
		pdfDocEncoding[c] = rune(c)
	}
	cp1252 := []rune("€\x00‚ƒ„…†‡ˆ‰Š‹Œ\x00Ž\x00\x00‘’“”•–—˜™š›œ\x00žŸ")
	for i, r := range cp1252 {
		winAnsiEncoding[0x80+i] = r
	}
	pdfDoc := []rune("•†‡…—–ƒ⁄‹›−‰„“”‘’‚™ﬁﬂŁŒŠŸŽıłœšž\x00")
	for i, r := range pdfDoc {
		pdfDocEncoding[0x80+i] = r
	}
	pdfDocEncoding[0xA0] = '€'
	for i, r := range []rune("˘ˇˆ˙˝˛˚˜") {
		pdfDocEncoding[0x18+i] = r
	}
	mac := []rune("ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»…\u00a0ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\uf8ffÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ")
	for i, r := range mac {
		macRomanEncoding[0x80+i] = r
	}
	standardEncoding['\''] = '’'
	standardEncoding['`'] = '‘'
	for code, n := range map[int]string{
		0xA1: "exclamdown", 0xA2: "cent", 0xA3: "sterling", 0xA4: "fraction", 0xA5: "yen", 0xA6: "florin",
		0xA7: "section", 0xA8: "currency", 0xA9: "quotesingle", 0xAA: "quotedblleft", 0xAB: "guillemotleft",
		0xAC: "guilsinglleft", 0xAD: "guilsinglright", 0xAE: "fi", 0xAF: "fl", 0xB1: "endash", 0xB2: "dagger",
		0xB3: "daggerdbl", 0xB4: "periodcentered", 0xB6: "paragraph", 0xB7: "bullet", 0xB8: "quotesinglbase",
		0xB9: "quotedblbase", 0xBA: "quotedblright", 0xBB: "guillemotright", 0xBC: "ellipsis", 0xBD: "perthousand",
		0xBF: "questiondown", 0xC1: "grave", 0xC2: "acute", 0xC3: "circumflex", 0xC4: "tilde", 0xC5: "macron",
		0xC6: "breve", 0xC7: "dotaccent", 0xC8: "dieresis", 0xCA: "ring", 0xCB: "cedilla", 0xCD: "hungarumlaut",
		0xCE: "ogonek", 0xCF: "caron", 0xD0: "emdash", 0xE1: "AE", 0xE3: "ordfeminine", 0xE8: "Lslash",
		0xE9: "Oslash", 0xEA: "OE", 0xEB: "ordmasculine", 0xF1: "ae", 0xF5: "dotlessi", 0xF8: "lslash",
		0xF9: "oslash", 0xFA: "oe", 0xFB: "germandbls",
	} {
		standardEncoding[code] = glyphNames[n]
	}
}
