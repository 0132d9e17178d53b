package recall

import (
	"context"
	"fmt"
	"github.com/konteks/git-konteks/index"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

const fetchGo = `package fetch

import (
	"net/http"
	"time"
)

// Backoff computes how long to wait before the next attempt: the delay
// doubles with every failed attempt, up to a ceiling.
func Backoff(attempt int) time.Duration {
	d := 100 * time.Millisecond << attempt
	if d > 10*time.Second {
		d = 10 * time.Second
	}
	return d
}

// Get fetches a URL, retrying transient failures.
func Get(c *http.Client, url string) (*http.Response, error) {
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		last = err
		time.Sleep(Backoff(attempt))
	}
	return nil, last
}
`

const readme = "# Widgetizer\n\nWidgetizer turns spreadsheets into dashboards for small teams.\n\n## Usage\n\nRun `widgetize data.csv`.\n"

func repoWithMemory(t *testing.T) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("README.md", readme)
	r.Write("fetch/fetch.go", fetchGo)
	r.Write("render/chart.go", "package render\n\n// DrawChart renders a bar chart of the values as SVG.\nfunc DrawChart(values []float64) string {\n\treturn \"<svg/>\"\n}\n\n// DrawLegend renders the legend of a chart.\nfunc DrawLegend(names []string) string { return \"\" }\n")
	for i := 0; i < 6; i++ {
		r.Write(fmt.Sprintf("render/extra%d.go", i), fmt.Sprintf("package render\n\n// Helper%d does helper things number %d.\nfunc Helper%d() int { return %d }\n", i, i, i, i))
	}
	return r, withMemory(t, r)
}

func openS(t *testing.T, repo *gitstore.Repo, opt OpenOptions) *Searcher {
	t.Helper()
	s, err := Open(context.Background(), repo, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func search(t *testing.T, s *Searcher, q string, opt Options) *Result {
	t.Helper()
	res, err := s.Search(context.Background(), q, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRecallRanksTheFunctionFirst(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{})
	for _, mode := range []string{Hybrid, Lexical, Vector} {
		res := search(t, s, "how long to wait before retrying a failed attempt", Options{Mode: mode})
		if res.Mode != mode {
			t.Fatalf("mode %s ran as %s (%v)", mode, res.Mode, res.Notes)
		}
		if len(res.Hits) == 0 || res.Hits[0].Name != "Backoff" || res.Hits[0].Path != "fetch/fetch.go" {
			t.Fatalf("%s: top hit %+v", mode, res.Hits)
		}
		h := res.Hits[0]
		if h.StartLine != 8 || h.EndLine != 16 || h.Kind != "code" || h.Summary == "" || !strings.Contains(h.Snippet, "Backoff") {
			t.Fatalf("%s: hit fields %+v", mode, h)
		}
	}
	// The name in the query boosts its definition.
	res := search(t, s, "DrawLegend", Options{})
	if res.Hits[0].Name != "DrawLegend" {
		t.Fatalf("by name: %+v", res.Hits[0])
	}
	if res.Memory.SourceCommit == "" || res.Memory.HeadMoved {
		t.Fatalf("memory state %+v", res.Memory)
	}
}

func TestRecallIsDeterministicAndDiverse(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{})
	a := search(t, s, "render helper chart things", Options{Limit: 8, PerFile: 1})
	b := search(t, s, "render helper chart things", Options{Limit: 8, PerFile: 1})
	if !reflect.DeepEqual(a.Hits, b.Hits) {
		t.Fatal("the same query on the same memory gave different answers")
	}
	seen := map[string]bool{}
	for _, h := range a.Hits {
		if seen[h.Path] {
			t.Fatalf("two hits from %s with PerFile 1", h.Path)
		}
		seen[h.Path] = true
	}
	if len(a.Hits) < 5 {
		t.Fatalf("only %d hits", len(a.Hits))
	}
	// A fresh process (another searcher) agrees too.
	c := search(t, openS(t, repo, OpenOptions{}), "render helper chart things", Options{Limit: 8, PerFile: 1})
	if !reflect.DeepEqual(a.Hits, c.Hits) {
		t.Fatal("another searcher ranked differently")
	}
}

func TestRecallSaysWhenHeadMoved(t *testing.T) {
	r, repo := repoWithMemory(t)
	r.Write("NOTES.md", "# Notes\n")
	head := r.Commit("later")
	s := openS(t, repo, OpenOptions{})
	res := search(t, s, "backoff", Options{})
	if !res.Memory.HeadMoved || !res.Memory.HeadAhead || res.Memory.Head != head {
		t.Fatalf("memory state %+v, want HEAD %s ahead", res.Memory, head)
	}
}

// With the provider down, recall still answers, lexically, and says so.
func TestRecallFallsBackWhenProviderIsDown(t *testing.T) {
	_, repo := repoWithMemory(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/api/embed"
	l.Close()
	e := &embed.HTTP{Provider: "ollama", Name: "m", URL: dead, Retries: 1, Backoff: 1}
	s := openS(t, repo, OpenOptions{Embedder: e})
	res := search(t, s, "how long to wait before retrying", Options{})
	if res.Mode != Lexical || len(res.Hits) == 0 || res.Hits[0].Name != "Backoff" {
		t.Fatalf("mode %s hits %+v", res.Mode, res.Hits)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "lexical") {
		t.Fatalf("notes %q do not say lexical only", res.Notes)
	}
}

func TestContextPackFitsTheBudget(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{})
	big, err := s.Context(context.Background(), "retry failed fetches with backoff", PackOptions{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if big.Tokens > 4000 || !strings.Contains(big.Markdown, "fetch/fetch.go:8-16") || !strings.Contains(big.Markdown, "d := 100 * time.Millisecond << attempt") {
		t.Fatalf("large pack (%d tokens):\n%s", big.Tokens, big.Markdown)
	}
	if !strings.Contains(big.Markdown, "Widgetizer turns spreadsheets into dashboards") || !strings.Contains(big.Markdown, "## Relevant areas") {
		t.Fatalf("pack lacks the project or areas:\n%s", big.Markdown)
	}
	if big.Sections[0].Shown != "full" {
		t.Fatalf("first section shown %q", big.Sections[0].Shown)
	}
	small, err := s.Context(context.Background(), "retry failed fetches with backoff", PackOptions{Budget: 220})
	if err != nil {
		t.Fatal(err)
	}
	if small.Tokens > 220 {
		t.Fatalf("small pack is %d tokens over a 220 budget:\n%s", small.Tokens, small.Markdown)
	}
	shown := map[string]int{}
	for _, ps := range small.Sections {
		shown[ps.Shown]++
	}
	if shown["full"] >= len(small.Sections) || len(small.Sections) == 0 {
		t.Fatalf("a tight budget should step down from full text: %+v\n%s", small.Sections, small.Markdown)
	}
}

func TestSnippet(t *testing.T) {
	if got := snippet("a\nb\nc\n", 2, 100); got != "a\nb" {
		t.Fatalf("%q", got)
	}
	if got := snippet(strings.Repeat("x", 50)+"\n"+strings.Repeat("y", 50), 5, 60); got != strings.Repeat("x", 50) {
		t.Fatalf("%q", got)
	}
	if got := snippet("héllo", 1, 2); got != "h" {
		t.Fatalf("%q: cut inside a rune", got)
	}
}

// TestSubjectWeighsMore checks that a task's first line outweighs its
// details: the title names the chart, the details talk more about
// retries, and only with Subject does the chart win.
func TestSubjectWeighsMore(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	q := "Bar chart legend\n\nSeen while the fetch retried: the delay of each attempt doubles up to the ceiling."
	rk := *pipeline()
	rk.Subject = 0
	opt := Options{Limit: 5, PerFile: 1, Mode: Lexical, NoContent: true, Ranking: &rk}
	if res := search(t, s, q, opt); len(res.Hits) == 0 || res.Hits[0].Path != "fetch/fetch.go" {
		t.Fatalf("test does not test: without Subject the first hit is %v", paths(res.Hits))
	}
	rk.Subject = 4
	if res := search(t, s, q, opt); res.Hits[0].Path != "render/chart.go" {
		t.Fatalf("with Subject the first hit is %v", paths(res.Hits))
	}
	// One line: nothing to weigh against.
	one := "Bar chart legend"
	rk.Subject = 0
	a := search(t, s, one, opt)
	rk.Subject = 2
	b := search(t, s, one, opt)
	for i := range a.Hits {
		if a.Hits[i].Score != b.Hits[i].Score {
			t.Fatalf("Subject changed a one-line query's scores at %d", i)
		}
	}
}

// TestCompounds checks that words a task spells apart find the identifier
// or file name that runs them together.
func TestCompounds(t *testing.T) {
	terms := addCompounds(index.QueryTerms("Update read the docs env\nmore words here"), "Update read the docs env\nmore words here", 0.6)
	var got []string
	for _, tm := range terms {
		if tm.Weight == 0.6 {
			got = append(got, tm.Text)
		}
	}
	want := index.QueryTerms("readthedocs")[0].Text
	found := false
	for _, g := range got {
		found = found || g == want
		if strings.Contains(g, "more") {
			t.Fatalf("compounds beyond the first line: %v", got)
		}
	}
	if !found {
		t.Fatalf("compounds %v lack %q", got, want)
	}

	r, repo := repoWithMemory(t)
	r.Write(".readthedocs.yaml", "version: 2\nbuild:\n  os: ubuntu-22.04\n")
	r.Commit("add the docs build config")
	if _, err := extract.Run(context.Background(), repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	rk := DefaultRanking
	// "docs" also states the kind, whose floor lifts the documentation
	// tool's configuration by its name alone; this tests the compound.
	rk.DocsFloor = 0
	opt := Options{Limit: 5, PerFile: 1, Mode: Lexical, NoContent: true, Ranking: &rk}
	if res := search(t, s, "update read the docs env", opt); len(res.Hits) == 0 || res.Hits[0].Path != ".readthedocs.yaml" {
		t.Fatalf("with compounds: %v", paths(res.Hits))
	}
	rk.Compounds = 0
	for _, h := range search(t, s, "update read the docs env", opt).Hits {
		if h.Path == ".readthedocs.yaml" {
			t.Fatalf("test does not test: found without compounds")
		}
	}
}
