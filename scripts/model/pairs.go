package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/konteks/git-konteks/embed"
)

// A pair is what the model learns from: a commit message (the query) and
// the text one of the files it changed had before the change, around the
// changed lines (the document an agent's task should reach).
type pair struct {
	Commit string
	Query  []string // tokens
	Docs   [][]string
}

// Limits of one training example.
const (
	maxQueryBytes = 2000
	maxDocTokens  = 320
	maxFiles      = 8
	minQueryToks  = 3
)

// readPairs reads the pairs of one repository from its cache file, or
// makes them from its history and writes the cache.
func readPairs(ctx context.Context, gitDir, commit, cache string, n int) ([]pair, error) {
	return cachedPairs(cache, func() ([]pair, error) { return makePairs(ctx, gitDir, commit, n) })
}

// cachedPairs reads pairs from a cache file, or makes them and writes the
// file. Pairs made with an error are returned but not cached: a complete
// clone makes them all.
func cachedPairs(cache string, build func() ([]pair, error)) ([]pair, error) {
	if f, err := os.Open(cache); err == nil {
		defer f.Close()
		return decodePairs(f)
	}
	ps, err := build()
	if err != nil {
		return ps, err
	}
	return ps, writePairs(cache, ps)
}

// writePairs writes a pairs cache atomically.
func writePairs(cache string, ps []pair) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	encodePairs(zw, ps)
	zw.Close()
	tmp := cache + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, cache)
}

// The cache: one line per commit ("C\thash"), per query ("Q\ttokens") and
// per document ("D\ttokens"), tokens separated by spaces.
func encodePairs(w io.Writer, ps []pair) {
	bw := bufio.NewWriter(w)
	for _, p := range ps {
		fmt.Fprintf(bw, "C\t%s\nQ\t%s\n", p.Commit, strings.Join(p.Query, " "))
		for _, d := range p.Docs {
			fmt.Fprintf(bw, "D\t%s\n", strings.Join(d, " "))
		}
	}
	bw.Flush()
}

func decodePairs(r io.Reader) ([]pair, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var ps []pair
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), "\t")
		switch kind {
		case "C":
			ps = append(ps, pair{Commit: rest})
		case "Q":
			ps[len(ps)-1].Query = strings.Fields(rest)
		case "D":
			ps[len(ps)-1].Docs = append(ps[len(ps)-1].Docs, strings.Fields(rest))
		}
	}
	return ps, sc.Err()
}

// makePairs walks the newest n non-merge commits below commit.
func makePairs(ctx context.Context, gitDir, commit string, n int) ([]pair, error) {
	cmd := gitCmd(ctx, gitDir, "log", "--no-merges", "-n", fmt.Sprint(n),
		"--format=%x00%H%x01%an%x01%ae%x01%B%x02", "-p", "-U8", "--no-renames", "--no-color",
		"--diff-filter=M", "--no-ext-diff", commit)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(out, 1<<20)
	var ps []pair
	var cur *commitDiff
	flush := func() {
		if cur != nil {
			if p, ok := cur.pair(); ok {
				ps = append(ps, p)
			}
		}
		cur = nil
	}
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			if line[0] == 0 {
				flush()
				// the header may span lines: read to \x02
				head := line[1:]
				for !strings.Contains(head, "\x02") {
					more, err := br.ReadString('\n')
					head += more
					if err != nil {
						break
					}
				}
				h, _, _ := strings.Cut(head, "\x02")
				f := strings.SplitN(h, "\x01", 4)
				if len(f) == 4 {
					cur = &commitDiff{hash: f[0], author: f[1], email: f[2], msg: f[3]}
				}
			} else if cur != nil {
				cur.line(line)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	flush()
	if err := cmd.Wait(); err != nil {
		// A snapshot without some old blobs stops the log there: keep
		// what was read before, and say so.
		return ps, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return ps, nil
}

type fileDiff struct {
	path string
	text strings.Builder
}

type commitDiff struct {
	hash, author, email, msg string
	files                    []*fileDiff
	skip                     bool
}

func (c *commitDiff) line(l string) {
	switch {
	case strings.HasPrefix(l, "diff --git "):
		c.files = append(c.files, &fileDiff{})
	case len(c.files) == 0:
	case strings.HasPrefix(l, "--- a/"):
		f := c.files[len(c.files)-1]
		f.path = strings.TrimRight(l[len("--- a/"):], "\n")
		f.text.WriteString(f.path)
		f.text.WriteString("\n")
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "index "), strings.HasPrefix(l, "Binary files"):
	case strings.HasPrefix(l, "@@"):
		// the hunk header's function context names the enclosing code
		if i := strings.LastIndex(l, "@@"); i > 1 {
			c.add(l[i+2:])
		}
	case l[0] == ' ' || l[0] == '-':
		c.add(l[1:])
	}
}

func (c *commitDiff) add(s string) {
	f := c.files[len(c.files)-1]
	if f.text.Len() < 16<<10 {
		f.text.WriteString(s)
	}
}

var (
	botAuthor   = regexp.MustCompile(`(?i)\[bot\]|dependabot|renovate|greenkeeper|github-actions|snyk-bot`)
	skipSubject = regexp.MustCompile(`(?i)^(bump |chore\(deps|update dependency|merge |revert "|release |v?\d+\.\d+(\.\d+)?$|prepare release|update changelog)`)
	trailer     = regexp.MustCompile(`(?im)^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|change-id|cc|pr-url|pull request|closes|fixes|resolves|see also|ref|refs|backport|cherry-picked from|\(cherry picked).*$`)
	urlRe       = regexp.MustCompile(`https?://\S+`)
	prNumber    = regexp.MustCompile(`\(#\d+\)|#\d+`)
)

// sourcePath says whether a changed file is one a task should reach.
func sourcePath(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch {
	case strings.HasPrefix(base, "changelog"), strings.HasPrefix(base, "changes"), strings.HasPrefix(base, "history."),
		strings.HasPrefix(base, "news"), strings.HasSuffix(base, ".lock"), base == "package-lock.json",
		base == "go.sum", base == "yarn.lock", strings.Contains(p, "vendor/"), strings.Contains(p, "node_modules/"):
		return false
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".go", ".py", ".rs", ".rb", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte",
		".java", ".kt", ".kts", ".scala", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".php",
		".swift", ".m", ".mm", ".lua", ".sh", ".bash", ".zsh", ".pl", ".ex", ".exs", ".erl", ".hs", ".ml",
		".dart", ".r", ".jl", ".zig", ".nim", ".groovy", ".gradle", ".sql", ".proto", ".md", ".rst", ".txt",
		".yml", ".yaml", ".toml", ".json", ".xml", ".html", ".css", ".scss", ".vim", ".el", ".cmake":
		return true
	}
	return base == "makefile" || base == "dockerfile" || base == "cmakelists.txt"
}

// cleanMessage drops what a commit message repeats for tools rather than
// people: trailers, URLs, issue and pull request numbers.
func cleanMessage(m string) string {
	m = trailer.ReplaceAllString(m, "")
	m = urlRe.ReplaceAllString(m, "")
	m = prNumber.ReplaceAllString(m, "")
	if len(m) > maxQueryBytes {
		m = m[:maxQueryBytes]
	}
	return m
}

func tokens(text string, limit int) []string {
	var out []string
	embed.ModelTokens(text, func(t string) {
		if limit <= 0 || len(out) < limit {
			out = append(out, t)
		}
	})
	return out
}

func (c *commitDiff) pair() (pair, bool) {
	subject, _, _ := strings.Cut(strings.TrimSpace(c.msg), "\n")
	if botAuthor.MatchString(c.author) || botAuthor.MatchString(c.email) || skipSubject.MatchString(subject) {
		return pair{}, false
	}
	var files []*fileDiff
	for _, f := range c.files {
		if f.path != "" && sourcePath(f.path) {
			files = append(files, f)
		}
	}
	if len(files) == 0 || len(files) > maxFiles {
		return pair{}, false
	}
	q := tokens(cleanMessage(c.msg), 0)
	if len(q) < minQueryToks {
		return pair{}, false
	}
	p := pair{Commit: c.hash, Query: q}
	for _, f := range files {
		if d := tokens(f.text.String(), maxDocTokens); len(d) > 0 {
			p.Docs = append(p.Docs, d)
		}
	}
	return p, len(p.Docs) > 0
}
