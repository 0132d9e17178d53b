package extract

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Directory summaries.
const (
	// SummaryVersion versions the built-in summarizer; a change refreshes
	// every summary on the next run.
	SummaryVersion = 1
	// MaxSampled is how many direct children a summary reads; wider
	// directories use a stable sample.
	MaxSampled = 32
	// MaxL1 bounds an overview.
	MaxL1 = 4000
	// deferShare: a wide directory defers refreshing until changes to
	// unsampled children pass this share of its children.
	deferShare = 0.10
)

// summarizeDirs refreshes directory summaries bottom-up. Only directories
// with a changed child are refreshed, each at most once, and the climb
// stops where a directory's L0 did not change. A first run (or a new
// summarizer) summarizes every directory. Directories are handled a depth
// level at a time, deepest first, so the LLM summarizer can work on a
// whole level in parallel while every parent still sees its children's new
// L0.
func (r *run) summarizeDirs() error {
	r.llm = newLLM(r.repo)
	prevSummarizer := ""
	if r.prev.Derived() {
		prevSummarizer = r.prev.Manifest.Summarizer
		if prevSummarizer == "" {
			prevSummarizer = fmt.Sprintf("builtin-v%d", r.prev.Manifest.SummaryVersion)
		}
	}
	all := !r.prev.Derived() || r.mode == ModeRebuild || r.prev.Manifest.SummaryVersion != SummaryVersion || prevSummarizer != r.llm.name()
	dirty := map[string]map[string]bool{} // dir -> changed child names (nil: all)
	if all {
		if err := r.listDirs("", func(d string) { dirty[d] = nil }); err != nil {
			return err
		}
	} else {
		for p := range r.changed {
			d, name := splitParent(p)
			if _, ok := dirty[d]; !ok {
				dirty[d] = map[string]bool{}
			}
			if dirty[d] != nil {
				dirty[d][name] = true
			}
		}
	}
	r.dirL0 = map[string]string{}
	depthOf := func(d string) int {
		if d == "" {
			return 0
		}
		return strings.Count(d, "/") + 1
	}
	for len(dirty) > 0 {
		deepest := -1
		for d := range dirty {
			deepest = max(deepest, depthOf(d))
		}
		var level []string
		for d := range dirty {
			if depthOf(d) == deepest {
				level = append(level, d)
			}
		}
		sort.Strings(level)
		var jobs []*dirJob
		for _, d := range level {
			j, err := r.prepDir(d, dirty[d])
			delete(dirty, d)
			if err != nil {
				return fmt.Errorf("summarize %q: %w", d, err)
			}
			jobs = append(jobs, j)
		}
		var fresh []*dirJob
		for _, j := range jobs {
			if j.s != nil && !j.deferred {
				fresh = append(fresh, j)
			}
		}
		if r.llm != nil && len(fresh) > 0 {
			r.llm.summarizeAll(context.Background(), fresh)
		}
		for _, j := range jobs {
			climb, err := r.finishDir(j)
			if err != nil {
				return fmt.Errorf("summarize %q: %w", j.dir, err)
			}
			r.stats.Summaries++
			if climb && j.dir != "" {
				pd, name := splitParent(j.dir)
				if c, ok := dirty[pd]; !ok {
					dirty[pd] = map[string]bool{name: true}
				} else if c != nil {
					c[name] = true
				}
			}
		}
	}
	if r.llm != nil {
		r.stats.LLMTokens = int(r.llm.tokens.Load())
		r.stats.LLMFailures = int(r.llm.failures.Load())
	}
	return nil
}

// dirJob is one directory being summarized in a level.
type dirJob struct {
	dir      string
	old      *memory.DirSummary
	s        *memory.DirSummary // nil: the directory is gone
	deferred bool               // only freshness changed
}

func splitParent(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// listDirs calls fn for every directory under files/ that holds records.
func (r *run) listDirs(dir string, fn func(string)) error {
	entries, ok, err := r.editor.List(filesPath(dir))
	if err != nil || !ok {
		return err
	}
	fn(dir)
	for _, e := range entries {
		if e.IsDir {
			if err := r.listDirs(path.Join(dir, e.Name), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func filesPath(dir string) string {
	if dir == "" {
		return memory.FilesDir
	}
	return memory.FilesDir + "/" + dir
}

// readSummary reads a directory's current summary (nil when none).
func (r *run) readSummary(dir string) *memory.DirSummary {
	h, _, ok, err := r.editor.Get(memory.DirSummaryPath(dir))
	if err != nil || !ok || h.IsZero() {
		return nil
	}
	b, err := r.repo.BlobBytes(h, 1<<20)
	if err != nil {
		return nil
	}
	var s memory.DirSummary
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// prepDir gathers what a directory's summary is made from: its children
// (a stable sample above MaxSampled) and their L0, reusing the cached L0
// of children that did not change. changed names the children that
// changed (nil: all). The built-in L0 and L1 are filled in.
func (r *run) prepDir(dir string, changed map[string]bool) (*dirJob, error) {
	j := &dirJob{dir: dir, old: r.readSummary(dir)}
	entries, ok, err := r.editor.List(filesPath(dir))
	if err != nil {
		return nil, err
	}
	if !ok || len(entries) == 0 {
		return j, nil
	}
	old := j.old
	sample := sampleChildren(entries)
	total := len(entries)
	inSample := map[string]bool{}
	for _, e := range sample {
		inSample[e.Name] = true
	}
	// A wide directory defers a refresh while only unsampled children
	// changed and the deferred changes stay under 10% of its children.
	if old != nil && changed != nil && total > MaxSampled {
		touched := false
		for n := range changed {
			touched = touched || inSample[n]
		}
		if !touched && float64(old.Freshness.Pending+len(changed)) <= deferShare*float64(total) {
			s := *old
			s.Freshness = memory.Freshness{Total: total, Sampled: len(sample), Unsampled: total - len(sample), Pending: old.Freshness.Pending + len(changed)}
			j.s, j.deferred = &s, true
			return j, nil
		}
	}
	cached := map[string]memory.DirChild{}
	if old != nil {
		for _, c := range old.Children {
			cached[c.Name] = c
		}
	}
	children := make([]memory.DirChild, 0, len(sample))
	for _, e := range sample {
		if c, ok := cached[e.Name]; ok && c.Dir == e.IsDir && changed != nil && !changed[e.Name] {
			children = append(children, c)
			continue
		}
		l0, err := r.childL0(dir, e)
		if err != nil {
			return nil, err
		}
		children = append(children, memory.DirChild{Name: e.Name, Dir: e.IsDir, L0: l0})
	}
	j.s = &memory.DirSummary{
		Path:       dir,
		Children:   children,
		Freshness:  memory.Freshness{Total: total, Sampled: len(sample), Unsampled: total - len(sample)},
		Summarizer: fmt.Sprintf("builtin-v%d", SummaryVersion),
	}
	j.s.L0 = dirAbstract(dir, entries, children)
	j.s.L1 = dirOverview(j.s)
	return j, nil
}

// finishDir writes a directory's summary (or removes it) and reports
// whether its L0 changed, so the parent must be refreshed too.
func (r *run) finishDir(j *dirJob) (climb bool, err error) {
	if j.s == nil {
		if j.old != nil {
			return true, r.editor.Delete(memory.DirSummaryPath(j.dir))
		}
		return false, nil
	}
	r.dirL0[j.dir] = j.s.L0
	if err := r.writeSummary(j.dir, j.s); err != nil {
		return false, err
	}
	return !j.deferred && (j.old == nil || j.old.L0 != j.s.L0), nil
}

func (r *run) writeSummary(dir string, s *memory.DirSummary) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	h, err := r.writer.Blob(r.derivedText(append(b, '\n')))
	if err != nil {
		return err
	}
	return r.editor.Set(memory.DirSummaryPath(dir), gitstore.ModeRegular, h)
}

// childL0 is a child's one-sentence abstract: a file's record abstract, a
// subdirectory's L0.
func (r *run) childL0(dir string, e gitstore.ListEntry) (string, error) {
	p := path.Join(dir, e.Name)
	if e.IsDir {
		if l0, ok := r.dirL0[p]; ok {
			return l0, nil
		}
		if s := r.readSummary(p); s != nil {
			return s.L0, nil
		}
		return "", nil
	}
	if a, ok := r.abstracts[p]; ok {
		return a, nil
	}
	if e.Hash.IsZero() {
		return "", nil
	}
	f, err := memref.DecodeRecord(r.repo, e.Hash, p)
	if err != nil {
		return "", err
	}
	return f.Abstract, nil
}

// composed reports whether an abstract was composed from names (no prose
// was found), so a directory prefers another child's.
func composed(a string) bool {
	return a == "" || strings.Contains(a, " file defining ") || strings.HasSuffix(a, " file") ||
		strings.HasPrefix(a, "JSON with ") || strings.HasPrefix(a, "YAML with ") || strings.HasPrefix(a, "TOML with ") ||
		strings.Contains(a, " file ") && !strings.Contains(a, " ")
}

// dirAbstract makes a directory's L0 from its children only: its README,
// then a package doc (doc.go, __init__.py, a Go "Package x" comment, a file
// named like the directory), else a sentence composed from what it holds.
func dirAbstract(dir string, entries []gitstore.ListEntry, children []memory.DirChild) string {
	name := path.Base(dir)
	if dir == "" {
		name = "the repository root"
	}
	pick := func(ok func(c memory.DirChild) bool) string {
		for _, c := range children {
			if !c.Dir && ok(c) && !composed(c.L0) {
				return c.L0
			}
		}
		return ""
	}
	lower := func(c memory.DirChild) string { return strings.ToLower(c.Name) }
	for _, try := range []func(c memory.DirChild) bool{
		func(c memory.DirChild) bool { return strings.HasPrefix(lower(c), "readme") },
		func(c memory.DirChild) bool {
			switch lower(c) {
			case "doc.go", "__init__.py", "mod.rs", "lib.rs", "package-info.java":
				return true
			}
			return false
		},
		func(c memory.DirChild) bool {
			return strings.HasPrefix(c.L0, "Package ") || strings.HasPrefix(c.L0, "Command ")
		},
		func(c memory.DirChild) bool {
			return strings.TrimSuffix(lower(c), path.Ext(c.Name)) == strings.ToLower(path.Base(dir))
		},
	} {
		if l0 := pick(try); l0 != "" {
			return l0
		}
	}
	files, dirs := 0, 0
	for _, e := range entries {
		if e.IsDir {
			dirs++
		} else {
			files++
		}
	}
	var names []string
	for _, c := range children {
		if len(names) == 4 {
			break
		}
		n := c.Name
		if c.Dir {
			n += "/"
		}
		names = append(names, n)
	}
	var counts []string
	if files > 0 {
		counts = append(counts, plural(files, "file"))
	}
	if dirs > 0 {
		counts = append(counts, plural(dirs, "directory"))
	}
	l0 := fmt.Sprintf("%s holds %s: %s", strings.ToUpper(name[:1])+name[1:], strings.Join(counts, " and "), strings.Join(names, ", "))
	// Carry the first child sentence that says something, so "cmd" reads
	// "... app/ — Command app serves the store over HTTP."
	for _, c := range children {
		if !composed(c.L0) && !strings.Contains(c.L0, " holds ") {
			return firstSentence(l0+" — "+c.L0, MaxAbstract)
		}
	}
	return firstSentence(l0+".", MaxAbstract)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// dirOverview makes a directory's L1: its L0, then one line per sampled
// child with the child's L0, bounded by MaxL1.
func dirOverview(s *memory.DirSummary) string { return dirOverviewWith(s, "") }

// dirOverviewWith is dirOverview with a paragraph (an LLM's) after the L0.
func dirOverviewWith(s *memory.DirSummary, para string) string {
	var b strings.Builder
	b.WriteString(s.L0)
	b.WriteString("\n\n")
	if para = strings.TrimSpace(para); para != "" {
		b.WriteString(para)
		b.WriteString("\n\n")
	}
	for i, c := range s.Children {
		n := c.Name
		if c.Dir {
			n += "/"
		}
		line := "- " + n
		if c.L0 != "" {
			line += ": " + c.L0
		}
		if b.Len()+len(line)+64 > MaxL1 {
			fmt.Fprintf(&b, "- … %d more entries\n", len(s.Children)-i+s.Freshness.Unsampled)
			return b.String()
		}
		b.WriteString(line + "\n")
	}
	if s.Freshness.Unsampled > 0 {
		fmt.Fprintf(&b, "- … and %d more entries not read (sampled %d of %d)\n", s.Freshness.Unsampled, s.Freshness.Sampled, s.Freshness.Total)
	}
	return strings.TrimRight(b.String(), "\n")
}

// describing reports whether a child says what its directory is; a sample
// always includes such children.
func describing(name string) bool {
	switch l := strings.ToLower(name); {
	case strings.HasPrefix(l, "readme"):
		return true
	case l == "doc.go", l == "__init__.py", l == "mod.rs", l == "lib.rs", l == "package-info.java", l == "index.ts", l == "index.js":
		return true
	}
	return false
}

// sampleChildren picks at most MaxSampled children: those that describe
// the directory first, then the rest by a stable hash of their names, so
// adding a child rarely changes which others are read. The sample is
// returned in name order.
func sampleChildren(entries []gitstore.ListEntry) []gitstore.ListEntry {
	if len(entries) <= MaxSampled {
		return entries
	}
	type ranked struct {
		e gitstore.ListEntry
		h string
	}
	rs := make([]ranked, len(entries))
	for i, e := range entries {
		sum := sha256.Sum256([]byte(e.Name))
		key := "\x01" + string(sum[:8])
		if !e.IsDir && describing(e.Name) {
			key = "\x00" + key
		}
		rs[i] = ranked{e, key}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].h < rs[j].h })
	out := make([]gitstore.ListEntry, MaxSampled)
	for i := range out {
		out[i] = rs[i].e
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
