package data

import (
	"errors"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/konteks/git-konteks/extract/section"
)

// SplitTOML sections a TOML document by its top-level keys. Tables group
// under their first key: "[dependencies]" and "[dependencies.serde]" are
// both part of "$.dependencies", and so is every "[[bin]]" of an array of
// tables part of "$.bin". A top-level key whose tables are not contiguous
// (another key's table comes between) gets one section per run, the later
// ones anchored "#2", "#3", .... Dotted keys at the top ("a.b = 1") group
// under "a" the same way. A key's comment lines directly above it become
// its Doc.
//
// go-toml's parser refuses arrays and inline tables nested deeper than
// 10,000 levels, so nesting cannot exhaust the stack.
func SplitTOML(in section.Input) (res section.Result, err error) {
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	b := newBuilder("toml", in, lines)
	defer b.recoverInto(&res, &err)

	type group struct {
		key      string
		from, to int
	}
	var groups []group
	table, inTable := "", false // top-level key of the current [table]
	var p unstable.Parser
	p.Reset(src)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Table && e.Kind != unstable.ArrayTable && e.Kind != unstable.KeyValue {
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		first := it.Node()
		key := string(first.Data)
		from := lines.Line(int(first.Raw.Offset))
		to := from
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table, inTable = key, true
		case unstable.KeyValue:
			if inTable {
				key = table
			}
			if e.Raw.Length > 0 {
				to = lines.Line(int(e.Raw.Offset + e.Raw.Length - 1))
			}
		}
		if n := len(groups); n > 0 && groups[n-1].key == key {
			groups[n-1].to = max(groups[n-1].to, to)
			continue
		}
		groups = append(groups, group{key: key, from: from, to: to})
	}
	if err := p.Error(); err != nil {
		line := 0
		var perr *unstable.ParserError
		if errors.As(err, &perr) {
			off := cap(src) - cap(perr.Highlight)
			if perr.Highlight != nil && off >= 0 && off <= len(src) {
				line = lines.Line(off)
			}
		}
		return b.res, lineError("toml", line, err)
	}
	b.grow(len(groups))
	for _, g := range groups {
		b.key("", g.key, g.from, g.to, lines.Text(src, g.from, g.to), commentBlock(src, lines, g.from, "#"))
	}
	return b.res, nil
}
