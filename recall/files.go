package recall

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/konteks/git-konteks/index"
)

// Values of Options.Tests.
const (
	TestsInclude = "include" // test code ranks like any other (the default)
	TestsExclude = "exclude" // no test files, no test functions
	TestsOnly    = "only"    // nothing but test code
)

// ErrBadFilter is wrapped by the error of a search whose Paths or Tests
// filter cannot be understood.
var ErrBadFilter = errors.New("bad filter")

// filter decides which sections a search may return: Options.Paths and
// Options.Tests.
type filter struct {
	include, exclude []*regexp.Regexp
	tests            string
}

// newFilter compiles the filters of opt; nil when there are none.
func newFilter(opt Options) (*filter, error) {
	f := &filter{tests: opt.Tests}
	switch opt.Tests {
	case "", TestsInclude:
		f.tests = ""
	case TestsExclude, TestsOnly:
	default:
		return nil, fmt.Errorf("%w: tests %q: want include, exclude or only", ErrBadFilter, opt.Tests)
	}
	for _, p := range opt.Paths {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		re, err := globRegexp(p)
		if err != nil {
			return nil, err
		}
		if neg {
			f.exclude = append(f.exclude, re)
		} else {
			f.include = append(f.include, re)
		}
	}
	if f.tests == "" && len(f.include) == 0 && len(f.exclude) == 0 {
		return nil, nil
	}
	return f, nil
}

// keep reports whether a section passes the filter.
func (f *filter) keep(d *index.Doc) bool {
	if f == nil {
		return true
	}
	switch f.tests {
	case TestsExclude:
		if isTestDoc(d) {
			return false
		}
	case TestsOnly:
		if !isTestDoc(d) {
			return false
		}
	}
	if len(f.include) > 0 && !matchAny(f.include, d.Path) {
		return false
	}
	return !matchAny(f.exclude, d.Path)
}

// matchAny reports whether a path, or one of its directories, matches one
// of the patterns: "recall" and "recall/" select everything under
// recall/, "*.go" any Go file at any depth.
func matchAny(res []*regexp.Regexp, p string) bool {
	for _, re := range res {
		if re.MatchString(p) {
			return true
		}
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if re.MatchString(d) {
				return true
			}
		}
	}
	return false
}

// globRegexp compiles a path glob: * matches within a path component, **
// across components, ? one character, [...] a class. A pattern without a
// slash matches a file or directory name at any depth (like .gitignore).
func globRegexp(g string) (*regexp.Regexp, error) {
	g = strings.TrimSuffix(strings.TrimPrefix(g, "./"), "/")
	if g == "" {
		return nil, fmt.Errorf("%w: empty path pattern", ErrBadFilter)
	}
	if _, err := path.Match(g, ""); err != nil {
		return nil, fmt.Errorf("%w: path pattern %q: %v", ErrBadFilter, g, err)
	}
	var b strings.Builder
	anchored := strings.Contains(g, "/")
	g = strings.TrimPrefix(g, "/")
	if anchored {
		b.WriteString("^")
	} else {
		b.WriteString("(^|/)")
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			i++
			if i+1 < len(g) && g[i+1] == '/' {
				i++
				b.WriteString("(.*/)?")
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i:], ']')
			cls := g[i+1 : i+j]
			if strings.HasPrefix(cls, "!") {
				cls = "^" + cls[1:]
			}
			b.WriteString("[" + cls + "]")
			i += j
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// FileHit is one file of a file-level answer: ranked by its best section,
// with the best of its sections and why it is there.
type FileHit struct {
	Path     string  `json:"path"`
	Score    float64 `json:"score"` // its best section's
	Language string  `json:"language,omitempty"`
	// Matches is how many of its sections the query matched.
	Matches int `json:"matches"`
	// Sections are its best sections, best first.
	Sections []Hit `json:"sections"`
	// Why says in a line why the file is here: the sections that matched,
	// or the history that placed it.
	Why string `json:"why"`
}

// FilesResult is a file-level answer to one query.
type FilesResult struct {
	Query  string      `json:"query"`
	Files  []FileHit   `json:"files"`
	Memory MemoryState `json:"memory"`
	Mode   string      `json:"mode"`
	Notes  []string    `json:"notes,omitempty"`
	// Confidence is as in Result.
	Confidence float64 `json:"confidence,omitempty"`
}

// SearchFiles ranks the files of memory for a query: each file by its best
// section (the order Search would first show it in), with up to
// opt.PerFile of its sections (default 3). opt.Limit counts files
// (default 10); the filters apply as in Search.
func (s *Searcher) SearchFiles(ctx context.Context, q string, opt Options) (*FilesResult, error) {
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	if opt.PerFile <= 0 {
		opt.PerFile = 3
	}
	c, err := s.candidates(ctx, q, opt)
	if err != nil {
		return nil, err
	}
	flt, ranked, via := c.flt, c.ranked, c.via
	res := &FilesResult{Query: q, Memory: s.state, Mode: c.mode, Notes: c.notes, Confidence: c.confidence}
	at := map[string]int{} // path -> index in res.Files
	for _, h := range ranked {
		d := s.ix.Doc(h.Doc)
		if !flt.keep(&d) {
			continue
		}
		i, ok := at[d.Path]
		if !ok {
			if len(res.Files) >= opt.Limit {
				continue
			}
			i = len(res.Files)
			at[d.Path] = i
			res.Files = append(res.Files, FileHit{Path: d.Path, Score: round(h.Score), Language: d.Language})
		}
		f := &res.Files[i]
		if via[h.Doc] == "" && h.Score > 0 {
			f.Matches++
		}
		if len(f.Sections) < opt.PerFile {
			f.Sections = append(f.Sections, s.hit(h, d, via[h.Doc]))
		}
	}
	for i := range res.Files {
		f := &res.Files[i]
		if !opt.NoContent {
			if err := s.fill(f.Sections); err != nil {
				return nil, err
			}
		}
		f.Why = why(f)
	}
	return res, nil
}

// hit makes the Hit of a ranked section.
func (s *Searcher) hit(h index.Hit, d index.Doc, via string) Hit {
	name := d.QName
	if name == "" {
		name = d.Name
	}
	end := d.EndLine
	if e, ok := s.head(d); ok {
		end = e
	}
	return Hit{
		Path: d.Path, StartLine: d.StartLine, EndLine: end, Kind: d.Kind, Symbol: d.Symbol,
		Name: name, Anchor: d.Anchor, Score: round(h.Score), Language: d.Language, doc: h.Doc, Via: via,
	}
}

// headLines is the length past which a section that holds others (a
// class and its methods, a module and its functions) is shown by its
// head: the lines before the first section inside it.
const headLines = 80

// head returns the last line of a long container section's head (its
// declaration, fields and doc comment), and whether d is one: an answer
// that says "this 2,000-line class" is no place to read, while its
// methods are sections of their own that rank by themselves.
func (s *Searcher) head(d index.Doc) (int, bool) {
	if d.EndLine-d.StartLine < headLines {
		return 0, false
	}
	first := 0
	for _, x := range s.ix.PathDocs(d.Path) {
		c := s.ix.Doc(x)
		if c.Anchor != d.Anchor && c.StartLine > d.StartLine && c.EndLine <= d.EndLine && (first == 0 || c.StartLine < first) {
			first = c.StartLine
		}
	}
	if first == 0 {
		return 0, false
	}
	return first - 1, true
}

// why says in a line why a file is in a file-level answer: how many of
// its sections match, and what history says of it.
func why(f *FileHit) string {
	var via string
	for _, h := range f.Sections {
		if h.Via != "" {
			via = h.Via
			break
		}
	}
	var w string
	switch {
	case f.Matches == 1:
		w = "1 section matches"
	case f.Matches > 1:
		w = fmt.Sprintf("%d sections match", f.Matches)
	}
	if via != "" {
		if w != "" {
			w += "; "
		}
		w += via
	}
	if w == "" {
		w = "the file matches as a whole"
	}
	return w
}
