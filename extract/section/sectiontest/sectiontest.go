// Package sectiontest holds what the tests of the sectioners share: the
// checks that every result is valid, in file order, never shares a line
// between sections, and is what a fixture says it is; reading fixtures and
// seeding fuzz tests with them; and the Go sources the benchmarks read.
package sectiontest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Splitter is a sectioner under test.
type Splitter func(section.Input) section.Result

// Split runs split and section.Finish on in and checks the invariants
// every result keeps: section.Validate, sections in file order that never
// share a line, every section of the given kind and parser.
func Split(t testing.TB, split Splitter, in section.Input, kind, parser string) section.Result {
	t.Helper()
	res := split(in)
	section.Finish(&res, in)
	if err := section.Validate(res, in); err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, s := range res.Sections {
		if s.StartLine <= last {
			t.Fatalf("section %q starts at %d, inside the one before (ends %d)", s.Anchor, s.StartLine, last)
		}
		if s.Kind != kind || s.Parser != parser {
			t.Fatalf("section %q kind %q parser %q, want %q %q", s.Anchor, s.Kind, s.Parser, kind, parser)
		}
		last = s.EndLine
	}
	return res
}

// SplitOrRefuse runs a sectioner that may refuse its input: a refusal
// (an error) comes with no sections; any other result is finished and
// valid (section.Validate).
func SplitOrRefuse(t testing.TB, split func(section.Input) (section.Result, error), in section.Input) (section.Result, error) {
	t.Helper()
	res, err := split(in)
	if err != nil {
		if len(res.Sections) != 0 {
			t.Fatalf("error %v with %d sections", err, len(res.Sections))
		}
		return res, err
	}
	section.Finish(&res, in)
	if err := section.Validate(res, in); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

// Bind is Split for the tests of one sectioner: in, with the content a
// test gives.
func Bind(split Splitter, in section.Input, kind, parser string) func(t testing.TB, content []byte) section.Result {
	return func(t testing.TB, content []byte) section.Result {
		t.Helper()
		in := in
		in.Content = content
		return Split(t, split, in, kind, parser)
	}
}

// Read returns the fixture name in dir, or ends the test.
func Read(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Seed adds the files matching pattern (as filepath.Glob), then seeds, to
// a fuzz test's corpus.
func Seed(f *testing.F, pattern string, seeds ...string) {
	files, _ := filepath.Glob(pattern)
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

// Fuzz fuzzes split with f, its corpus seeded as Seed seeds it: every
// result must keep split's checks.
func Fuzz(f *testing.F, split func(testing.TB, []byte) section.Result, pattern string, seeds ...string) {
	Seed(f, pattern, seeds...)
	f.Fuzz(func(t *testing.T, content []byte) { split(t, content) })
}

// Check checks that res has exactly the sections want, each as got sees
// it (the fields a test compares).
func Check[W comparable](t testing.TB, res section.Result, want []W, got func(memory.Section) W) {
	t.Helper()
	if len(res.Sections) != len(want) {
		for _, s := range res.Sections {
			t.Logf("got %+v", got(s))
		}
		t.Fatalf("%d sections, want %d", len(res.Sections), len(want))
	}
	for i, w := range want {
		if g := got(res.Sections[i]); g != w {
			t.Errorf("section %d = %+v\nwant %+v", i, g, w)
		}
	}
}

// Lines are content's lines as sections count them (no byte order mark,
// no carriage returns): Lines(c)[s.StartLine-1:s.EndLine] is a section's.
func Lines(content []byte) []string {
	return strings.Split(strings.ReplaceAll(strings.TrimPrefix(string(content), "\uFEFF"), "\r", ""), "\n")
}

// GoRoot is the Go tree the benchmarks read real code from: "" when there
// is none with its sources.
func GoRoot() string {
	if r := runtime.GOROOT(); r != "" {
		if _, err := os.Stat(filepath.Join(r, "src")); err == nil {
			return r
		}
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// GoSource reads the Go files (tests included) of the directories dirs of
// $GOROOT/src, not their subdirectories, as inputs named dir/file, and
// their total size; it skips tb when there are none.
func GoSource(tb testing.TB, dirs ...string) ([]section.Input, int64) {
	tb.Helper()
	var ins []section.Input
	var total int64
	if root := GoRoot(); root != "" {
		for _, dir := range dirs {
			paths, _ := filepath.Glob(filepath.Join(root, "src", filepath.FromSlash(dir), "*.go"))
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil {
					tb.Fatal(err)
				}
				ins = append(ins, section.Input{Path: dir + "/" + filepath.Base(p), Language: "Go", Content: b})
				total += int64(len(b))
			}
		}
	}
	if len(ins) == 0 {
		tb.Skipf("no Go source in $GOROOT/src/%s", strings.Join(dirs, ", "))
	}
	return ins, total
}

// Anchors lists a result's anchors in order.
func Anchors(res section.Result) []string {
	var out []string
	for _, s := range res.Sections {
		out = append(out, s.Anchor)
	}
	return out
}

// Range is a section a fixture expects: its anchor and lines.
type Range struct {
	Anchor     string
	Start, End int
}

// CheckRanges checks that res has exactly the sections want, each holding
// exactly its lines of content.
func CheckRanges(t testing.TB, res section.Result, content []byte, want []Range) {
	t.Helper()
	Check(t, res, want, func(s memory.Section) Range { return Range{s.Anchor, s.StartLine, s.EndLine} })
	lines := Lines(content)
	for i, w := range want {
		if s := res.Sections[i]; s.StartLine == w.Start && s.EndLine == w.End {
			if c := strings.Join(lines[w.Start-1:w.End], "\n"); s.Content != c {
				t.Errorf("section %d content %q\nwant %q", i, s.Content, c)
			}
		}
	}
}

// Case is an input and the anchors its sections must have.
type Case struct {
	Name    string
	In      string
	Anchors []string
}

// Cases runs each case through Split and compares its anchors; each must
// finish within limit (a hang or quadratic blow-up on hostile input fails).
func Cases(t *testing.T, split Splitter, in section.Input, kind, parser string, limit time.Duration, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			start := time.Now()
			in.Content = []byte(c.In)
			res := Split(t, split, in, kind, parser)
			if d := time.Since(start); d > limit {
				t.Errorf("took %v", d)
			}
			if got := Anchors(res); strings.Join(got, "|") != strings.Join(c.Anchors, "|") {
				t.Errorf("anchors %q, want %q", got, c.Anchors)
			}
		})
	}
}

// R is a Range.
func R(anchor string, start, end int) Range { return Range{Anchor: anchor, Start: start, End: end} }

// C is a Case.
func C(name, in string, anchors ...string) Case { return Case{Name: name, In: in, Anchors: anchors} }

// Dump prints what split (then section.Finish) makes of the file the DUMP
// variable names, for looking at a sectioner's output by hand; the test
// is skipped when DUMP is not set. A DUMP that names one of fixtures
// splits that fixture instead; lang is the input's language.
func Dump(t *testing.T, lang string, split func(section.Input) (section.Result, error), fixtures map[string]func() []byte) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip("DUMP is not set")
	}
	var b []byte
	if f, ok := fixtures[p]; ok {
		b = f()
	} else {
		var err error
		if b, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	in := section.Input{Path: p, Language: lang, Content: b}
	res, err := split(in)
	section.Finish(&res, in)
	fmt.Println(err, res.Fallback, res.Warnings)
	for _, s := range res.Sections {
		fmt.Printf("== %q %s %q %q %d-%d %q\n%s\n", s.Anchor, s.Symbol, s.Name, s.QName, s.StartLine, s.EndLine, s.Signature, s.Content)
	}
}
