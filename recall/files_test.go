package recall

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/internal/testgit"
)

// routerRepo is a small web framework: a router whose dispatch is
// implemented in router.go, a context type with a Done method, a
// middleware chain, and tests that name all of them.
func routerRepo(t *testing.T) *gitstore.Repo {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("router.go", `package web

// Router maps request paths to handlers.
type Router struct{ routes map[string]Handler }

// ServeRequest finds the handler registered for the request path and
// calls it with the middleware chain.
func (r *Router) ServeRequest(c *Context) {
	h := r.routes[c.Path]
	c.handlers = append(c.handlers, h)
	c.Next()
}

// Use attaches middleware to the chain every request runs through.
func (r *Router) Use(m ...Handler) {}
`)
	r.Write("context.go", `package web

// Context carries a request through its handlers.
type Context struct {
	Path     string
	handlers []Handler
	index    int
}

// Handler handles a request.
type Handler func(*Context)

// Done reports whether the request's handlers are all done.
func (c *Context) Done() bool { return c.index >= len(c.handlers) }

// Next runs the next handler in the chain.
func (c *Context) Next() {
	c.index++
	for c.index < len(c.handlers) {
		c.handlers[c.index](c)
		c.index++
	}
}
`)
	r.Write("router_test.go", `package web

import "testing"

// TestMiddlewareChain checks that middleware in the chain runs in order
// for a request the router dispatches.
func TestMiddlewareChain(t *testing.T) {
	r := &Router{}
	r.Use(func(c *Context) { c.Next() })
}

// TestRoutingDone checks that routing a request is done once.
func TestRoutingDone(t *testing.T) {}
`)
	r.Write("docs/guide.md", "# Guide\n\n## Middleware\n\nMiddleware wraps every request in a chain.\n")
	return withMemory(t, r)
}

func TestQuestionWordEarnsNoNameBoost(t *testing.T) {
	s := openS(t, routerRepo(t), OpenOptions{NoEmbedder: true})
	res := search(t, s, "where is request routing done", Options{PerFile: -1})
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range res.Hits[:min(3, len(res.Hits))] {
		if h.Name == "Context.Done" {
			t.Fatalf("Context.Done ranks among the first: %v", names(res.Hits))
		}
	}
	// "done" is a question word: it matches text, never a name.
	terms := index.QueryTerms("where is request routing done")
	markQuestionWords(terms, DefaultRanking.Question)
	qset := map[string]bool{}
	for _, t := range terms {
		if !t.TextOnly {
			qset[t.Text] = true
		}
	}
	if nameMatches(&index.Doc{Name: "Done"}, qset) {
		t.Fatal("Done matches the name terms of the question")
	}
	if !nameMatches(&index.Doc{Name: "routing"}, qset) {
		t.Fatal("a content word lost its name boost")
	}
}

func TestImplementationOutranksItsTests(t *testing.T) {
	s := openS(t, routerRepo(t), OpenOptions{NoEmbedder: true})
	res := search(t, s, "how are middleware chained", Options{PerFile: -1})
	if len(res.Hits) == 0 || IsTestPath(res.Hits[0].Path) {
		t.Fatalf("a test ranks first for a how-question: %v", names(res.Hits))
	}
	// Asked about tests, tests are answers.
	res = search(t, s, "which test covers the middleware chain", Options{PerFile: -1})
	if len(res.Hits) == 0 || res.Hits[0].Name != "TestMiddlewareChain" {
		t.Fatalf("asked for the test, got %v", names(res.Hits))
	}
}

func TestVocabularyReachesTheImplementation(t *testing.T) {
	s := openS(t, routerRepo(t), OpenOptions{NoEmbedder: true})
	// "routing" is stemmed to rout; the code says Router.
	terms := s.expandTerms(index.QueryTerms("routing dispatch"), 0.4)
	var got []string
	for _, t := range terms[2:] {
		got = append(got, t.Text)
	}
	if !contains(got, "router") {
		t.Fatalf("routing did not expand to router: %v", got)
	}
	res := search(t, s, "routing", Options{PerFile: -1, Tests: TestsExclude})
	if len(res.Hits) == 0 || res.Hits[0].Path != "router.go" {
		t.Fatalf("routing: %v", names(res.Hits))
	}
}

func TestSearchFiles(t *testing.T) {
	s := openS(t, routerRepo(t), OpenOptions{NoEmbedder: true})
	res, err := s.SearchFiles(context.Background(), "middleware chain request", Options{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, f := range res.Files {
		if seen[f.Path] {
			t.Fatalf("%s twice", f.Path)
		}
		seen[f.Path] = true
		if len(f.Sections) == 0 || f.Why == "" || f.Matches == 0 {
			t.Fatalf("file %s has no evidence: %+v", f.Path, f)
		}
		if i > 0 && f.Score > res.Files[i-1].Score {
			t.Fatalf("files out of order: %v", res.Files)
		}
		for _, h := range f.Sections {
			if h.Path != f.Path || h.Summary == "" {
				t.Fatalf("section %+v of %s", h, f.Path)
			}
		}
	}
	if !seen["router.go"] || !seen["context.go"] {
		t.Fatalf("files: %v", res.Files)
	}
	// The same files, in the order Search first shows them.
	hits := search(t, s, "middleware chain request", Options{Limit: 50, PerFile: 1})
	for i, f := range res.Files {
		if i >= len(hits.Hits) || hits.Hits[i].Path != f.Path {
			t.Fatalf("file %d is %s, Search says %v", i, f.Path, names(hits.Hits))
		}
	}
	one, err := s.SearchFiles(context.Background(), "middleware chain request", Options{Limit: 1, PerFile: 1})
	if err != nil || len(one.Files) != 1 || len(one.Files[0].Sections) != 1 {
		t.Fatalf("limit 1: %+v %v", one, err)
	}
}

func TestFilters(t *testing.T) {
	s := openS(t, routerRepo(t), OpenOptions{NoEmbedder: true})
	q := "middleware chain request"
	check := func(opt Options, ok func(Hit) bool) {
		t.Helper()
		res := search(t, s, q, opt)
		if len(res.Hits) == 0 {
			t.Fatalf("%+v: no hits", opt)
		}
		for _, h := range res.Hits {
			if !ok(h) {
				t.Fatalf("%+v let %s %s through", opt, h.Path, h.Name)
			}
		}
	}
	check(Options{Tests: TestsOnly}, func(h Hit) bool { return h.Path == "router_test.go" })
	check(Options{Tests: TestsExclude}, func(h Hit) bool { return h.Path != "router_test.go" })
	check(Options{Paths: []string{"*.md"}}, func(h Hit) bool { return strings.HasSuffix(h.Path, ".md") })
	check(Options{Paths: []string{"docs"}}, func(h Hit) bool { return strings.HasPrefix(h.Path, "docs/") })
	check(Options{Paths: []string{"!docs/", "!*_test.go"}}, func(h Hit) bool {
		return !strings.HasPrefix(h.Path, "docs/") && !strings.HasSuffix(h.Path, "_test.go")
	})
	check(Options{Paths: []string{"router.go", "context.go"}}, func(h Hit) bool { return h.Path == "router.go" || h.Path == "context.go" })
	for _, bad := range []Options{{Paths: []string{"["}}, {Paths: []string{""}}, {Tests: "some"}} {
		if _, err := s.Search(context.Background(), q, bad); !errors.Is(err, ErrBadFilter) {
			t.Errorf("%+v: err %v, want ErrBadFilter", bad, err)
		}
		if _, err := s.SearchFiles(context.Background(), q, bad); !errors.Is(err, ErrBadFilter) {
			t.Errorf("files %+v: err %v, want ErrBadFilter", bad, err)
		}
	}
}

func TestGlobs(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "a/b/c.rs", false},
		{"recall", "recall/recall.go", true},
		{"recall/", "recall/recall.go", true},
		{"recall", "cmd/recall.go", false},
		{"cmd/*.go", "cmd/main.go", true},
		{"cmd/*.go", "cmd/x/main.go", false},
		{"cmd/**/*.go", "cmd/x/y/main.go", true},
		{"cmd/**/*.go", "cmd/main.go", true},
		{"**/testdata", "a/testdata/x.json", true},
		{"/README.md", "README.md", true},
		{"/README.md", "docs/README.md", false},
		{"fil?.go", "file.go", true},
		{"[ab].go", "a.go", true},
		{"[!ab].go", "a.go", false},
	} {
		re, err := globRegexp(c.glob)
		if err != nil {
			t.Fatalf("%s: %v", c.glob, err)
		}
		if got := matchAny([]*regexp.Regexp{re}, c.path); got != c.want {
			t.Errorf("%s ~ %s = %v, want %v (%s)", c.glob, c.path, got, c.want, re)
		}
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"router_test.go": true, "tests/test_app.py": true, "src/app.py": false, "test_app.py": true,
		"spec/routing_spec.rb": true, "lib/sinatra/base.rb": false, "src/App.test.tsx": true,
		"src/FooTest.java": true, "src/Latest.java": false, "crates/ignore/src/walk.rs": false,
		"crates/core/tests/regression.rs": true, "testdata/x.json": true, "contest.go": false,
		"attestation.go": false, "conftest.py": true,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%s) = %v, want %v", p, got, want)
		}
	}
}

func TestWithoutQuestionWords(t *testing.T) {
	if got := withoutQuestionWords("Where is request routing done? It's not done."); got != "Where is request routing ? It's  ." {
		t.Fatalf("got %q", got)
	}
}

func names(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Path+" "+h.Name)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestPathMentions(t *testing.T) {
	got := pathMentions("discovery/ionos: panic at context.go:173 in (crates/ignore/src/walk.rs), see https://x.org/a/b and v1.2 or e.g. foo.")
	want := []string{"discovery/ionos", "context.go", "crates/ignore/src/walk.rs"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %q, want %q", got, want)
	}
	for p, ok := range map[string]bool{"discovery/ionos/server.go": true, "discovery/ionosx.go": false, "context.go": true, "pkg/context.go": true, "mycontext.go": false} {
		if mentioned(p, got) != ok {
			t.Errorf("mentioned(%s) = %v", p, !ok)
		}
	}
}

func TestSymbolMentions(t *testing.T) {
	got := symbolMentions("TypeError: NetRCAuth.__init__() missing; use redirect_url or Context.Done, not done or HTTP")
	for _, w := range []string{"netrcauth", "redirect_url", "typeerror"} {
		if !got[w] {
			t.Errorf("%s not found in %v", w, got)
		}
	}
	for _, w := range []string{"init", "done", "context", "http", "missing"} {
		if got[w] {
			t.Errorf("%s found in %v", w, got)
		}
	}
}

// TestLongClassShownByItsHead: a hit on a class of hundreds of lines whose
// methods are sections of their own points at the class's head, not at
// the whole class; a short class keeps its whole range.
func TestLongClassShownByItsHead(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	var b strings.Builder
	b.WriteString("class Ledger:\n    \"\"\"A ledger of accounts and their balances.\"\"\"\n    currency = \"EUR\"\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "\n    def entry%d(self):\n        \"\"\"Entry %d posts to the ledger.\"\"\"\n", i, i)
		for j := 0; j < 6; j++ {
			fmt.Fprintf(&b, "        v = %d\n", j)
		}
		b.WriteString("        return v\n")
	}
	r.Write("ledger.py", b.String())
	r.Write("small.py", "class Small:\n    \"\"\"A small ledger of balances.\"\"\"\n\n    def total(self):\n        return 0\n")
	s := openS(t, withMemory(t, r), OpenOptions{NoEmbedder: true})
	var big, small *Hit
	for _, p := range []string{"ledger.py", "small.py"} {
		res := search(t, s, "ledger of accounts and their balances", Options{Paths: []string{p}})
		for i := range res.Hits {
			h := &res.Hits[i]
			switch {
			case h.Path == "ledger.py" && h.Name == "Ledger":
				big = h
			case h.Path == "small.py" && h.Name == "Small":
				small = h
			}
		}
	}
	if big == nil || small == nil {
		t.Fatalf("the classes are not hits: %+v %+v", big, small)
	}
	if big.StartLine != 1 || big.EndLine != 4 {
		t.Errorf("Ledger at %d-%d, want its head 1-4", big.StartLine, big.EndLine)
	}
	if strings.Contains(big.Content, "entry0") || !strings.Contains(big.Content, "currency") {
		t.Errorf("Ledger's content is not its head:\n%s", big.Content)
	}
	if small.StartLine != 1 || small.EndLine != 5 {
		t.Errorf("Small at %d-%d, want all of it, 1-5", small.StartLine, small.EndLine)
	}
}
