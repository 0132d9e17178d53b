// Package notebook sections Jupyter notebooks (.ipynb) by their cells.
//
// A run of Markdown (and raw) cells is one section, and a cell holding a
// Markdown heading starts a new run, so prose is split the way its author
// structured it; every code cell is its own section. Outputs (images,
// tables, tracebacks, widget state: often megabytes) are never kept: the
// JSON decoder skips them without building them. Anchors carry 1-based
// cell numbers ("cell:3:Setup > Data", "cell:4"), lines are those of the
// cell's JSON in the file. nbformat 4 and the older 3 (worksheets) are
// read.
package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Kind and Parser of the results.
const (
	Kind   = "notebook"
	Parser = "notebook"
)

// PathSep joins the headings of a heading path (as Markdown does).
const PathSep = " > "

type cell struct {
	Type   string          `json:"cell_type"`
	Source json.RawMessage `json:"source"`
	Input  json.RawMessage `json:"input"` // nbformat 3 code cells
	Level  int             `json:"level"` // nbformat 3 heading cells
	// outputs, attachments, metadata: skipped by the decoder
	start, end int // byte offsets of the cell's JSON
}

type meta struct {
	Kernelspec struct {
		Language string `json:"language"`
	} `json:"kernelspec"`
	LanguageInfo struct {
		Name string `json:"name"`
	} `json:"language_info"`
	Language string `json:"language"` // nbformat 3
}

// ErrNotNotebook is returned for JSON that is not a notebook.
var ErrNotNotebook = errors.New("not a Jupyter notebook: no cells")

// Split sections a notebook. It returns an error, and no sections, when
// the file is not a JSON notebook; the caller keeps it as text.
func Split(in section.Input) (res section.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = section.Result{}, fmt.Errorf("notebook: decoder panic: %v", r)
		}
	}()
	src := section.StripBOM(in.Content)
	cells, md, err := decode(src)
	if err != nil {
		return section.Result{}, err
	}
	lang := language(md)
	res = section.Result{Kind: Kind, Language: in.Language, Parser: Parser}
	lines := section.Lines(src)
	total := max(lines.Count(), 1)
	var anchors section.AnchorSet
	add := func(s memory.Section) {
		s.Parser = Parser
		s.Anchor = anchors.Add(s.Anchor)
		res.Sections = append(res.Sections, s)
	}

	type open struct {
		level int
		name  string
	}
	var stack []open
	path := func() string {
		names := make([]string, len(stack))
		for i, o := range stack {
			names[i] = o.name
		}
		return strings.Join(names, PathSep)
	}
	// The Markdown run being collected.
	var run struct {
		first, last int // cell numbers
		start, end  int // byte offsets
		texts       []string
		name, qname string
	}
	flush := func() {
		if len(run.texts) == 0 {
			return
		}
		s := memory.Section{
			Kind: "markdown", Symbol: "markdown", Language: "Markdown",
			Anchor:    "cell:" + strconv.Itoa(run.first),
			StartLine: min(lines.Line(run.start), total),
			EndLine:   min(lines.Line(max(run.end-1, run.start)), total),
			Content:   strings.Join(run.texts, "\n\n"),
		}
		if run.name != "" {
			s.Symbol, s.Name = "heading", run.name
			s.Anchor += ":" + run.qname
		}
		s.QName = run.qname
		add(s)
		run.texts, run.name, run.qname = nil, "", ""
	}
	for i, c := range cells {
		n := i + 1
		text := source(c)
		if strings.TrimSpace(text) == "" {
			continue
		}
		if c.Type == "heading" { // nbformat 3
			text = strings.Repeat("#", min(max(c.Level, 1), 6)) + " " + strings.Join(strings.Fields(text), " ")
		}
		if c.Type == "code" {
			flush()
			q := "cell " + strconv.Itoa(n)
			if p := path(); p != "" {
				q = p + PathSep + q
			}
			add(memory.Section{
				Kind: "code", Symbol: "cell", Language: lang,
				Anchor: "cell:" + strconv.Itoa(n), Name: "cell " + strconv.Itoa(n), QName: q,
				StartLine: min(lines.Line(c.start), total),
				EndLine:   min(lines.Line(max(c.end-1, c.start)), total),
				Content:   text,
			})
			continue
		}
		// markdown, raw, or anything else: prose.
		hs := headings(text)
		if len(hs) > 0 {
			flush()
		}
		if len(run.texts) == 0 {
			run.first, run.start = n, c.start
			run.qname = path() // context, for a run without a heading
		}
		run.last, run.end = n, c.end
		run.texts = append(run.texts, text)
		for j, h := range hs {
			for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, open{h.level, h.name})
			if j == 0 {
				run.name, run.qname = h.name, path()
			}
		}
	}
	flush()
	return res, nil
}

// decode reads the cells (with their byte ranges) and the metadata.
func decode(src []byte) ([]cell, meta, error) {
	var md meta
	var cells []cell
	found := false
	d := json.NewDecoder(bytes.NewReader(src))
	readInto := func() (err error) {
		cells, err = readCells(d, src, cells)
		return err
	}
	err := object(d, func(key string) error {
		switch key {
		case "cells":
			found = true
			return readInto()
		case "worksheets": // nbformat 3
			found = true
			if err := expect(d, '['); err != nil {
				return err
			}
			for d.More() {
				if err := object(d, func(key string) error {
					if key == "cells" {
						return readInto()
					}
					return skip(d)
				}); err != nil {
					return err
				}
			}
			return expect(d, ']')
		case "metadata":
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return err
			}
			_ = json.Unmarshal(raw, &md) // odd metadata is no reason to lose the cells
			return nil
		}
		return skip(d)
	})
	if err != nil {
		return nil, md, err
	}
	if !found {
		return nil, md, ErrNotNotebook
	}
	return cells, md, nil
}

// object reads a JSON object, calling field with each key when the value
// is next in d (field reads it).
func object(d *json.Decoder, field func(key string) error) error {
	if err := expect(d, '{'); err != nil {
		return err
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if err := field(key); err != nil {
			return err
		}
	}
	return expect(d, '}')
}

func readCells(d *json.Decoder, src []byte, cells []cell) ([]cell, error) {
	if err := expect(d, '['); err != nil {
		return cells, err
	}
	for d.More() {
		off := int(d.InputOffset())
		// The offset is past the previous value; the cell starts at its '{'.
		for off < len(src) && (src[off] == ',' || src[off] == ' ' || src[off] == '\n' || src[off] == '\r' || src[off] == '\t') {
			off++
		}
		var c cell
		if err := d.Decode(&c); err != nil {
			return cells, err
		}
		c.start, c.end = off, int(d.InputOffset())
		cells = append(cells, c)
	}
	return cells, expect(d, ']')
}

func expect(d *json.Decoder, want json.Delim) error {
	t, err := d.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if t != want {
		return fmt.Errorf("notebook: want %q, found %v", want, t)
	}
	return nil
}

func skip(d *json.Decoder) error {
	var raw json.RawMessage
	return d.Decode(&raw)
}

// source is a cell's text: a string or a list of lines.
func source(c cell) string {
	raw := c.Source
	if len(raw) == 0 || string(raw) == "null" {
		raw = c.Input
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimRight(s, "\n")
	}
	var parts []string
	if json.Unmarshal(raw, &parts) == nil {
		return strings.TrimRight(strings.Join(parts, ""), "\n")
	}
	return ""
}

type heading struct {
	level int
	name  string
}

// headings finds the ATX headings of a Markdown cell, outside fenced
// code. Setext headings and HTML <h1> are rare in notebooks and are left
// to the text.
func headings(text string) []heading {
	var hs []heading
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		level := 0
		for level < len(t) && t[level] == '#' {
			level++
		}
		if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
			continue
		}
		name := strings.TrimSpace(t[level:])
		name = strings.TrimSpace(strings.TrimRight(name, "#")) // closing #s
		name = strings.Join(strings.Fields(name), " ")
		if name == "" {
			name = "untitled"
		}
		hs = append(hs, heading{level, name})
	}
	return hs
}

// language maps the kernel's language to a linguist name.
func language(md meta) string {
	l := md.LanguageInfo.Name
	if l == "" {
		l = md.Kernelspec.Language
	}
	if l == "" {
		l = md.Language
	}
	if l == "" {
		return "Python" // the default kernel, and by far the most common
	}
	switch strings.ToLower(l) {
	case "python", "python3", "python2":
		return "Python"
	case "r":
		return "R"
	case "julia":
		return "Julia"
	case "scala":
		return "Scala"
	case "javascript":
		return "JavaScript"
	case "typescript":
		return "TypeScript"
	case "c++", "cpp":
		return "C++"
	case "sql":
		return "SQL"
	case "bash", "sh":
		return "Shell"
	case "go":
		return "Go"
	case "rust":
		return "Rust"
	case "java":
		return "Java"
	case "matlab", "octave":
		return "MATLAB"
	}
	if len(l) > 40 {
		l = l[:40]
	}
	return l
}
