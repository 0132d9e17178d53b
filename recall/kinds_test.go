package recall

import (
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/memtest"
	"github.com/konteks/git-konteks/internal/testgit"
)

// packagingRepo is a small Python project with two packages: a client
// built on httpcore, whose code says "httpcore" far more often than the
// manifest does, a user guide, and a plugin package in a hyphenated
// directory with its own manifest.
func packagingRepo(t *testing.T) *gitstore.Repo {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("pyproject.toml", `[project]
name = "fetcher"
version = "1.4.0"
description = "Fetch resources over HTTP with a small client"
readme = "README.md"
license = "BSD-3-Clause"
requires-python = ">=3.9"
dependencies = ["httpcore>=1.0", "certifi", "idna", "sniffio", "anyio"]

[project.optional-dependencies]
brotli = ["brotli"]
socks = ["socksio"]

[tool.pytest.ini_options]
addopts = "-rxXs"
filterwarnings = ["error"]
`)
	r.Write("fetcher/client.py", `import httpcore


class Client:
    """A client over a connection pool."""

    def __init__(self):
        self.pool = httpcore.ConnectionPool()

    def send(self, request):
        """Send a request through the pool."""
        return self.pool.handle_request(request)


def timeout_config(seconds):
    """Build the timeout config of a request: the timeout config maps
    connect and read to seconds."""
    return {"connect": seconds, "read": seconds}
`)
	r.Write("fetcher/_exceptions.py", `class TransportError(Exception):
    """Raised for an error of the transport."""


class DecodingError(Exception):
    """Raised when a response body cannot be decoded."""
`)
	r.Write("fetcher/_urls.py", `def join(base, path):
    """Join a path to a base URL."""
    return base.rstrip("/") + "/" + path.lstrip("/")
`)
	r.Write("NOTES.txt", strings.Repeat("The project keeps its notes here, about releases, plans, config and people. ", 20)+
		"It once used httpcore for a prototype, installed with pip.\n"+strings.Repeat("More notes on plans follow. ", 20)+"\n")
	r.Write(".github/workflows/test.yml", `name: test
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-python@v5
        with:
          cache: pip
      - run: pip install -e . && pytest
`)
	r.Write("fetcher/cache.py", `class DownloadCache:
    """Downloads kept until they expire."""

    def get(self, url):
        """The cached download of url, or None."""
        return None
`)
	r.Write("tests/test_client.py", `from fetcher.client import Client


def test_send():
    """Sending works."""
    assert Client().send is not None
`)
	r.Write("GUIDE.md", `# Guide

## Timeouts

Pass timeout_config(seconds) to change how long the client waits to
connect and to read.
`)
	r.Write("fetcher-plugins/pyproject.toml", `[project]
name = "fetcher-plugins"
dependencies = ["fetcher"]
`)
	r.Write("fetcher-plugins/plugins.py", `"""Plugins for the fetcher client."""


def load_plugins(client):
    """Load the plugins registered for a client."""
    return []
`)
	return withMemory(t, r)
}

// withMemory commits the fixture written to r and extracts its memory.
func withMemory(t *testing.T, r *testgit.Repo) *gitstore.Repo {
	t.Helper()
	r.Commit("init")
	repo := memtest.Extract(t, r.Dir)
	return repo
}

// pipeline is DefaultRanking without its learned stage: the tests of
// this file check the pipeline's rules, which find and order the
// candidates the learned ranker re-orders (learn_test.go tests that).
func pipeline() *Ranking {
	rk := DefaultRanking
	rk.Learned = nil
	return &rk
}

// rankOf is the 1-based rank of the first hit in path p (0: none).
func rankOf(hs []Hit, p string) int {
	for i, h := range hs {
		if h.Path == p {
			return i + 1
		}
	}
	return 0
}

// TestKindPriors checks that each kind of change a task's first line
// states brings the file of that kind first, and that without its prior
// another file is first: each test checks the prior, not the fixture.
func TestKindPriors(t *testing.T) {
	s := openS(t, packagingRepo(t), OpenOptions{NoEmbedder: true})
	for _, c := range []struct {
		name, q, want string
		off           func(*Ranking)
	}{
		// The code says httpcore more often than the manifest does.
		{"release words", "bump httpcore to 1.0.5", "pyproject.toml", func(r *Ranking) { r.Packaging = 1 }},
		{"docs words", "docs: describe timeouts of the client", "GUIDE.md", func(r *Ranking) { r.Docs = 1 }},
		{"CI words", "CI: keep the pip cache", ".github/workflows/test.yml", func(r *Ranking) { r.CI = 1 }},
		{"a commit of type test", "test: cover sending through the pool", "tests/test_client.py", func(r *Ranking) { r.TestType = 1 }},
	} {
		res := search(t, s, c.q, Options{PerFile: 1, Ranking: pipeline()})
		if got := rankOf(res.Hits, c.want); got != 1 {
			t.Errorf("%s: %s at rank %d for %q: %v", c.name, c.want, got, c.q, paths(res.Hits))
		}
		off := *pipeline()
		c.off(&off)
		res = search(t, s, c.q, Options{PerFile: 1, Ranking: &off})
		if got := rankOf(res.Hits, c.want); got == 1 {
			t.Errorf("%s: %s first without the prior: %v", c.name, c.want, paths(res.Hits))
		}
	}
	// Without docs words, the code named by the task comes first.
	res := search(t, s, "describe timeouts of the client", Options{PerFile: 1, Ranking: pipeline()})
	if got := rankOf(res.Hits, "fetcher/client.py"); got != 1 {
		t.Errorf("fetcher/client.py at rank %d without docs words: %v", got, paths(res.Hits))
	}
}

func TestHyphenatedNameReachesItsDirectory(t *testing.T) {
	s := openS(t, packagingRepo(t), OpenOptions{NoEmbedder: true})
	beforeOnlyWithRule(t, s, "remove certifi from the fetcher-plugins dependencies", "fetcher-plugins/pyproject.toml", "pyproject.toml",
		func(r *Ranking) { r.Hyphenated = 1 })
}

func TestTaskAndPathKinds(t *testing.T) {
	for _, c := range []struct {
		q    string
		want int
	}{
		{"deps: bump to globset 0.4.18", kindPackaging},
		{"ignore-0.4.25", kindPackaging},
		{"update dev dependencies", kindPackaging},
		{"docs: add rovo", kindDocs},
		{"Fix typo in the README", kindDocs},
		{"fix wildcards not getting expanded in delta build (#946)", 0},
		{"where is request routing done\nsee version 2.1 docs", 0}, // only the first line states a kind
		{"fix(test): remove duplicate word", kindTests},
		{"test(router): cover trailing slashes", kindTests},
		{"CI: skip the slow job", kindCI},
		{"feat(indexserver): keep deleted repos", 0},
		{"Migrate build system to PEP 517", kindPackaging},
		{"Use hatchling as the build-backend", kindPackaging},
		{"build(deps): bump grpc", kindPackaging},
		{"build: drop the sdist from the release", kindPackaging},
		{"build the index in parallel", 0},
		{"follow PEP 8 in the examples", 0},
	} {
		if got := taskKinds(c.q); got != c.want {
			t.Errorf("taskKinds(%q) = %d, want %d", c.q, got, c.want)
		}
	}
	for _, c := range []struct {
		p, kind string
		want    int
	}{
		{"crates/ignore/Cargo.toml", "toml", kindPackaging},
		{"sinatra-contrib/Gemfile", "text", kindPackaging},
		{"requirements/dev.txt", "text", kindPackaging},
		{"src/requests/__version__.py", "code", kindPackaging},
		{"CHANGES.rst", "rst", kindPackaging | kindDocs},
		{"docs/api.md", "markdown", kindDocs},
		{"mkdocs.yml", "yaml", kindDocs},
		{"history/history.go", "code", 0},
		{".github/workflows/test.yaml", "yaml", kindCI},
		{".github/workflows/publish.yaml", "yaml", kindCI | kindPackaging},
		{"test/res.append.js", "code", kindTests},
		{"src/flask/app.py", "code", 0},
	} {
		if got := pathKinds(c.p, c.kind); got != c.want {
			t.Errorf("pathKinds(%q) = %d, want %d", c.p, got, c.want)
		}
	}
}

func TestHyphenMentions(t *testing.T) {
	got := hyphenMentions("CI: remove sinatra from `rack-protection` bundle; pass --no-deps to pre-commit, a-b")
	want := []string{"rack-protection", "no-deps", "pre-commit"}
	if len(got) != len(want) {
		t.Fatalf("hyphenMentions = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("hyphenMentions = %v, want %v", got, want)
		}
	}
	for p, want := range map[string]bool{
		"rack-protection/Gemfile":                true,
		"lib/rack-protection/base.rb":            true,
		"ui-commits":                             false,
		"docs/pre-commit":                        true,
		"rack-protection-extra/Gemfile":          false,
		"sinatra-contrib/lib/rack-protection.rb": false,
	} {
		if got := namedComponent(p, []string{"rack-protection", "pre-commit"}); got != want {
			t.Errorf("namedComponent(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestNamedFileFirst: a task whose first line says every word of a file's
// name ("fish shell completion") names that file: it comes before files
// that say the task's words more often, and does not without the rule.
func TestNamedFileFirst(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("command.go", `package cli

// Command is a command line command. Shell completion functions complete
// its arguments; their names must not contain characters a shell cannot use.
type Command struct{ Name string }
`)
	r.Write("bash_completions.go", `package cli

// GenBashCompletion writes the bash shell completion script: its
// completion functions, one per command, named after the command.
func GenBashCompletion(c Completion) string { return "complete -F " + ShellCompletionName(c) }
`)
	r.Write("fish_completions.go", `package cli

// genFish writes the script for fish.
func genFish(name string) string { return "function __" + name + "_perform" }
`)
	s := openS(t, withMemory(t, r), OpenOptions{NoEmbedder: true})
	q := "functions in fish shell completion should not contain a dash\nThe generated file breaks."
	firstOnlyWithRule(t, s, q, "fish_completions.go", func(r *Ranking) { r.NamedFile = 1 })
}

// beforeOnlyWithRule checks that a ranks before b for q (b may be
// missing), and that b ranks before a (a may be missing) when off
// switches the rule under test off.
func beforeOnlyWithRule(t *testing.T, s *Searcher, q, a, b string, off func(*Ranking)) {
	t.Helper()
	res := search(t, s, q, Options{PerFile: 1, Ranking: pipeline()})
	if ra, rb := rankOf(res.Hits, a), rankOf(res.Hits, b); ra == 0 || rb != 0 && ra > rb {
		t.Fatalf("%q: %s at %d, %s at %d: %v", q, a, ra, b, rb, paths(res.Hits))
	}
	rk := *pipeline()
	off(&rk)
	res = search(t, s, q, Options{PerFile: 1, Ranking: &rk})
	if ra, rb := rankOf(res.Hits, a), rankOf(res.Hits, b); rb == 0 || ra != 0 && ra < rb {
		t.Fatalf("%q without the rule: %s (%d) still before %s (%d): %v", q, a, ra, b, rb, paths(res.Hits))
	}
}

// firstOnlyWithRule checks that want is the first file for q, and that it
// is not when off switches the rule under test off.
func firstOnlyWithRule(t *testing.T, s *Searcher, q, want string, off func(*Ranking)) {
	t.Helper()
	res := search(t, s, q, Options{PerFile: 1, Ranking: pipeline()})
	if got := rankOf(res.Hits, want); got != 1 {
		t.Fatalf("%s at %d: %v", want, got, paths(res.Hits))
	}
	rk := *pipeline()
	off(&rk)
	res = search(t, s, q, Options{PerFile: 1, Ranking: &rk})
	if got := rankOf(res.Hits, want); got == 1 {
		t.Fatalf("without the rule %s is still first: %v", want, paths(res.Hits))
	}
}

func TestFileNamed(t *testing.T) {
	terms := firstLineTerms("Completions modify os.Args in fish shell\nbash is fine")
	for p, want := range map[string]bool{
		"completions.go":          true,
		"cmd/fish_completions.go": true,
		"bash_completions.go":     false, // bash is not on the first line
		"zsh_completions.go":      false,
		"args.go":                 true,
		"os.go":                   false, // a name of two letters names nothing
		"README.md":               false,
	} {
		if got := fileNamed(p, terms); got != want {
			t.Errorf("fileNamed(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestChangelogAfterTheCode: a changelog says a little of every change,
// so it matches a task about code better than the code does; unless the
// task speaks of releases, the code comes first.
func TestChangelogAfterTheCode(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("CHANGELOG.md", `# Changelog

## 2.1.0

- Retry requests on a reset connection; the retry waits longer after each reset.
- Retry budget: requests retry at most three times per connection reset.

## 2.0.0

- Requests that fail on a reset connection now retry.
`)
	r.Write("client/retry.go", `package client

// backoff is how long to wait before the next retry after a reset.
func backoff(attempt int) int { return 100 << attempt }
`)
	r.Write("client/conn.go", `package client

// Conn is a connection of the pool.
type Conn struct{ open bool }
`)
	s := openS(t, withMemory(t, r), OpenOptions{NoEmbedder: true})
	beforeOnlyWithRule(t, s, "retry requests after a connection reset", "client/retry.go", "CHANGELOG.md",
		func(r *Ranking) { r.Changelog = 1 })
	// A release task keeps the changelog first.
	res := search(t, s, "release 2.2.0: retry requests after a connection reset", Options{PerFile: 1, Ranking: pipeline()})
	if got := rankOf(res.Hits, "CHANGELOG.md"); got != 1 {
		t.Fatalf("a release task: CHANGELOG.md at %d: %v", got, paths(res.Hits))
	}
}

// TestManifestFloor: a packaging task whose words the manifest does not
// say still reaches the root manifest, which it does not without the
// floor; and the manifest of a package directory the task names by a
// hyphenated word reaches the floor too.
func TestManifestFloor(t *testing.T) {
	s := openS(t, packagingRepo(t), OpenOptions{NoEmbedder: true})
	off := *pipeline()
	off.ManifestFloor = 0
	q := "packaging: stop shipping the cache module's download extras"
	res := search(t, s, q, Options{PerFile: 1, Limit: 3, Ranking: pipeline()})
	if got := rankOf(res.Hits, "pyproject.toml"); got == 0 {
		t.Errorf("%q: pyproject.toml not in the first 3: %v", q, paths(res.Hits))
	} else if !strings.Contains(res.Hits[got-1].Via, "packaging") {
		t.Errorf("%q: pyproject.toml does not say why it is there: %q", q, res.Hits[got-1].Via)
	}
	res = search(t, s, q, Options{PerFile: 1, Limit: 3, Ranking: &off})
	if got := rankOf(res.Hits, "pyproject.toml"); got != 0 {
		t.Errorf("%q: without the floor pyproject.toml is still at %d: %v", q, got, paths(res.Hits))
	}
	q = "packaging: fetcher-plugins: drop the download cache that expires"
	for _, c := range []struct {
		rk    *Ranking
		floor bool
	}{{pipeline(), true}, {&off, false}} {
		res = search(t, s, q, Options{PerFile: 1, Ranking: c.rk})
		i := rankOf(res.Hits, "fetcher-plugins/pyproject.toml")
		if i == 0 {
			t.Fatalf("%q: no fetcher-plugins/pyproject.toml: %v", q, paths(res.Hits))
		}
		if got, floor := res.Hits[i-1].Score, DefaultRanking.ManifestFloor*res.Hits[0].Score; got >= floor*0.999 != c.floor {
			t.Errorf("%q (floor %v): fetcher-plugins/pyproject.toml scores %.3f, floor %.3f", q, c.floor, got, floor)
		}
	}
}

// TestDocsFloor: a docs task reaches the documentation tool's
// configuration, where a site's pages are listed, though it says none of
// the task's words; it does not without the floor.
func TestDocsFloor(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("mkdocs.yml", `site_name: Fetcher
nav:
  - Home: index.md
  - Advanced: advanced.md
theme:
  name: material
`)
	r.Write("docs/index.md", "# Fetcher\n\nFetch resources over HTTP.\n")
	r.Write("docs/advanced.md", "# Advanced\n\n## Extensions\n\nRequest extensions carry per-request options to the transport: timeouts, tracing, extensions of the protocol.\n")
	r.Write("fetcher/extensions.py", `def request_extensions(request):
    """The extensions of a request: options for the transport."""
    return request.extensions
`)
	r.Write("fetcher/transport.py", `class Transport:
    """Sends requests; reads the request extensions."""

    def handle(self, request):
        return request.extensions.get("timeout")
`)
	r.Write("fetcher/tracing.py", `def trace(request):
    """Trace a request by its extensions."""
    return request.extensions.get("trace")
`)
	s := openS(t, withMemory(t, r), OpenOptions{NoEmbedder: true})
	q := "docs: request extensions"
	res := search(t, s, q, Options{PerFile: 1, Limit: 4, Ranking: pipeline()})
	if got := rankOf(res.Hits, "mkdocs.yml"); got == 0 {
		t.Fatalf("mkdocs.yml not in the first 4: %v", paths(res.Hits))
	}
	off := *pipeline()
	off.DocsFloor = 0
	res = search(t, s, q, Options{PerFile: 1, Limit: 4, Ranking: &off})
	if got := rankOf(res.Hits, "mkdocs.yml"); got != 0 {
		t.Fatalf("without the floor mkdocs.yml is still at %d: %v", got, paths(res.Hits))
	}
}

// TestHyphenatedWordAsIdentifier: "tower-http" is imported as tower_http;
// the file that uses it comes before files that say tower and http
// apart, and does not without the rule.
func TestHyphenatedWordAsIdentifier(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("examples/shutdown/src/main.rs", `use tower_http::timeout::TimeoutLayer;

#[allow(deprecated)]
fn app() -> Router {
    Router::new()
        .layer(TimeoutLayer::new(Duration::from_secs(10)))
        .layer(tower_http::trace::TraceLayer::new_for_http())
}
`)
	r.Write("src/service.rs", `/// A tower service over http: logs a warning per http request.
pub struct HttpService;
`)
	for _, n := range []string{"body", "extract", "handler", "json", "response", "serve", "form", "query", "path", "state"} {
		r.Write("src/"+n+".rs", "/// The http "+n+" of a tower service.\npub struct "+strings.ToUpper(n[:1])+n[1:]+";\n")
	}
	s := openS(t, withMemory(t, r), OpenOptions{NoEmbedder: true})
	firstOnlyWithRule(t, s, "Address tower-http deprecated warning", "examples/shutdown/src/main.rs", func(r *Ranking) { r.HyphenIdents = 0 })
}
