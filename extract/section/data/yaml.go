package data

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/konteks/git-konteks/extract/section"
)

// DocPrefix returns the anchor prefix of YAML document i (0-based) in a
// stream of more than one document: "doc0:", "doc1:", ...
func DocPrefix(i int) string { return "doc" + strconv.Itoa(i) + ":" }

// SplitYAML sections a YAML stream by the top-level keys of each document.
// When the stream holds more than one document, every anchor and qualified
// name is prefixed with DocPrefix of its document's index in the stream
// ("doc1:$.kind"). Empty documents have no sections. A key's comment lines
// directly above it become its Doc.
//
// yaml.v3 gives start lines only; a key's section ends at the line before
// the next key (or the document's end), less trailing blank lines and
// comments at the key's own indentation (those belong to the next key).
func SplitYAML(in section.Input) (res section.Result, err error) {
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	b := newBuilder("yaml", in, lines)
	defer b.recoverInto(&res, &err)

	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(yamlBreaks(src)))
	for {
		n := new(yaml.Node)
		err := dec.Decode(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// yaml.v3 errors already read "yaml: line N: ...".
			return b.res, err
		}
		docs = append(docs, n)
	}

	// Document boundaries: "---" and "..." at column 1.
	var markers []int
	for n := 1; n <= lines.Count(); n++ {
		l := src[lines.Start(n):lines.End(n)]
		if (bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) &&
			(len(l) == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r') {
			markers = append(markers, n)
		}
	}
	// docEnd is the last line a document holding line n may use.
	docEnd := func(n int) int {
		i := sort.SearchInts(markers, n+1)
		if i < len(markers) {
			return markers[i] - 1
		}
		return lines.Count()
	}

	keys := 0
	for _, doc := range docs {
		if len(doc.Content) > 0 {
			keys += max(1, len(doc.Content[0].Content)/2)
		}
	}
	b.grow(keys)
	for i, doc := range docs {
		if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" && root.Value == "" {
			continue // empty document
		}
		prefix := ""
		if len(docs) > 1 {
			prefix = DocPrefix(i)
		}
		if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 || len(root.Content) < 2 {
			from := max(root.Line, 1)
			from, to := trimYAML(src, lines, from, docEnd(from), 0)
			to = max(to, from)
			b.value(prefix, from, to, lines.Text(src, from, to), yamlComment(doc.HeadComment, root.HeadComment))
			continue
		}
		indent := max(root.Content[0].Column-1, 0)
		for k := 0; k+1 < len(root.Content); k += 2 {
			key := root.Content[k]
			from := max(key.Line, 1)
			end := docEnd(from)
			if k+2 < len(root.Content) {
				end = min(end, root.Content[k+2].Line-1)
			}
			_, to := trimYAML(src, lines, from, end, indent)
			to = max(to, from)
			headComment := key.HeadComment
			if k == 0 && headComment == "" {
				headComment = yamlComment(doc.HeadComment, root.HeadComment)
			}
			b.key(prefix, yamlKey(key), from, to, lines.Text(src, from, to), yamlComment(headComment))
		}
	}
	return b.res, nil
}

// yamlBreaks returns src with the line breaks YAML knows but the line
// index does not (a lone CR, NEL, U+2028, U+2029) turned into spaces of the
// same byte length, so that yaml.v3's line numbers match the file's. It
// returns src itself when there are none.
func yamlBreaks(src []byte) []byte {
	var out []byte
	for i := 0; i < len(src); i++ {
		n := 0
		switch {
		case src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n'):
			n = 1
		case src[i] == 0xC2 && i+1 < len(src) && src[i+1] == 0x85:
			n = 2
		case src[i] == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9):
			n = 3
		}
		if n == 0 {
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		for j := i; j < i+n; j++ {
			out[j] = ' '
		}
		i += n - 1
	}
	if out == nil {
		return src
	}
	return out
}

// trimYAML narrows from..to so it does not end in blank lines or in
// comment lines indented no deeper than indent.
func trimYAML(src []byte, lines *section.LineIndex, from, to, indent int) (int, int) {
	for to > from {
		l := src[lines.Start(to):lines.End(to)]
		t := bytes.TrimLeft(l, " \t")
		blank := len(bytes.TrimSpace(t)) == 0
		if !blank && !(t[0] == '#' && len(l)-len(t) <= indent) {
			break
		}
		to--
	}
	return from, to
}

func yamlKey(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.AliasNode:
		return "*" + n.Value
	}
	return "?" + strconv.Itoa(n.Line) // complex key: no better name
}

// yamlComment joins comments without their "#" markers.
func yamlComment(cs ...string) string {
	var out []string
	for _, c := range cs {
		for _, l := range strings.Split(c, "\n") {
			l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
			if l != "" {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}
