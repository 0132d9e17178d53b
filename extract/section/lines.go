package section

import (
	"bytes"
	"sort"
)

// LineIndex maps byte offsets of one content buffer to 1-based line
// numbers and back. It is built once per file in one pass, so that every
// lookup afterwards is a binary search rather than a rescan: sectioners ask
// for thousands of positions in large files and must stay linear.
//
// Lines are separated by '\n' only; a "\r" before it belongs to the line
// (Finish strips it from the text later). A final newline does not start a
// new line, so "a\nb\n" and "a\nb" both have two lines and "" has none.
type LineIndex struct {
	starts []int // byte offset where each line starts
	size   int
	final  bool // content ends with '\n'
}

// Lines indexes content's line starts.
func Lines(content []byte) *LineIndex {
	x := &LineIndex{size: len(content)}
	if len(content) == 0 {
		return x
	}
	x.final = content[len(content)-1] == '\n'
	x.starts = make([]int, 1, bytes.Count(content, nl)+1)
	for off := 0; ; {
		i := bytes.IndexByte(content[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off >= len(content) {
			break
		}
		x.starts = append(x.starts, off)
	}
	return x
}

var nl = []byte{'\n'}

// Count is the number of lines.
func (x *LineIndex) Count() int { return len(x.starts) }

// Line returns the 1-based line holding byte offset off. Offsets past the
// end map to the last line, negative ones to line 1; an empty buffer has
// only "line 1".
func (x *LineIndex) Line(off int) int {
	if len(x.starts) == 0 || off <= 0 {
		return 1
	}
	// The first start beyond off is the next line; its index is our line.
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
}

// Start returns the byte offset where line n (1-based) starts, clamped to
// the buffer.
func (x *LineIndex) Start(n int) int {
	switch {
	case len(x.starts) == 0 || n < 1:
		return 0
	case n > len(x.starts):
		return x.size
	}
	return x.starts[n-1]
}

// End returns the byte offset just past line n's text, before its '\n'
// (a '\r' before the '\n' is included), clamped to the buffer.
func (x *LineIndex) End(n int) int {
	switch {
	case len(x.starts) == 0 || n < 1 || n > len(x.starts):
		return x.Start(n) // clamped as Start clamps
	case n == len(x.starts):
		// The last line ends at the buffer end, minus a final newline.
		if x.final {
			return x.size - 1
		}
		return x.size
	}
	return x.starts[n] - 1
}

// Text returns lines from..to (1-based, inclusive) of content, which must
// be the buffer the index was built from, without the final newline.
func (x *LineIndex) Text(content []byte, from, to int) string {
	if from < 1 {
		from = 1
	}
	if to > len(x.starts) {
		to = len(x.starts)
	}
	if to < from {
		return ""
	}
	return string(content[x.Start(from):x.End(to)])
}

// IsBlank reports whether line n of content holds only spaces and tabs
// (and a CR).
func (x *LineIndex) IsBlank(content []byte, n int) bool {
	for _, c := range content[x.Start(n):x.End(n)] {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v' {
			return false
		}
	}
	return true
}

// TrimBlank narrows the inclusive line range from..to of content so that it
// neither starts nor ends with blank lines. It returns to < from when every
// line in the range is blank.
func (x *LineIndex) TrimBlank(content []byte, from, to int) (int, int) {
	for from <= to && x.IsBlank(content, from) {
		from++
	}
	for to >= from && x.IsBlank(content, to) {
		to--
	}
	return from, to
}

// BOM is the UTF-8 byte order mark. Sectioners parse content without it;
// it sits on line 1, so removing it shifts no line number.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// StripBOM returns content without a leading UTF-8 byte order mark.
func StripBOM(content []byte) []byte { return bytes.TrimPrefix(content, BOM) }
