package history

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/gitstore"
)

// Line counts are not part of the first walk (walk.go): they need every
// blob of every commit, which is what makes `git log --numstat` slow. They
// are counted when an answer shows them (the commits `why` ranks, the hits
// `history` prints), by git with the diff options of a full walk, and kept
// in a local cache: $GIT_DIR/konteks/history/lines, one line per change
// ("<commit> <added> <deleted> <path>"). Counts are a function of the
// commit alone, so the cache is never stale; it stays local because a
// clone recounts a commit faster than it would fetch the counts of all.
//
// A count git cannot make (the blobs are absent from a partial clone, or
// from a damaged object store) stays LinesUnknown and is not cached.

const (
	linesFile    = "lines"
	maxLinesFile = 64 << 20 // past this, the cache starts over
)

var (
	linesMu     sync.Mutex
	linesLoaded = map[string]bool{}    // cache files read into linesCache
	linesCache  = map[string]counted{} // cache file, NUL, commit -> path -> added, deleted
	linesSize   int
)

// counted is the line counts of a commit's changes, by path.
type counted map[string][2]int

// lineCounts returns the line counts of the changes of the commits cs
// (by commit hash, then path), counting those not recorded in memory or
// the cache. With paths, only the changes at those paths are wanted (the
// names a file has had): git then diffs those paths alone, which is what
// makes `why` on a file with a thousand commits fast, and a commit whose
// diff at those paths does not pair them as the record does is counted
// whole. Counts git cannot make are absent.
func lineCounts(ctx context.Context, repo *gitstore.Repo, cs []*Commit, paths []string) map[string]counted {
	want := func(ch Change) bool {
		return ch.Add == LinesUnknown && (paths == nil || slices.Contains(paths, ch.Path))
	}
	out := map[string]counted{}
	var need []*Commit
	for _, c := range cs {
		if slices.ContainsFunc(c.Changes, want) {
			need = append(need, c)
		}
	}
	if len(need) == 0 || repo == nil || !repo.HasCLI() {
		return out
	}
	file := ""
	if d, err := repo.StateDir(); err == nil {
		file = filepath.Join(d, "history", linesFile)
	}
	linesMu.Lock()
	if file != "" && !linesLoaded[file] {
		linesLoaded[file] = true
		readLines(file)
	}
	key := func(h string) string { return file + "\x00" + h }
	var todo []*Commit
	seen := map[string]bool{}
	for _, c := range need {
		if m, ok := linesCache[key(c.Hash)]; ok && covers(m, c, want) {
			out[c.Hash] = m
		} else if !seen[c.Hash] {
			seen[c.Hash] = true
			todo = append(todo, c)
		}
	}
	linesMu.Unlock()
	if len(todo) == 0 {
		return out
	}
	got := countLines(ctx, repo, todo, paths)
	if paths != nil {
		var again []*Commit
		for _, c := range todo {
			if !covers(got[c.Hash], c, want) {
				again = append(again, c)
			}
		}
		for h, m := range countLines(ctx, repo, again, nil) {
			got[h] = m
		}
	}
	var b strings.Builder
	linesMu.Lock()
	for h, m := range got {
		k := key(h)
		if old := linesCache[k]; old != nil {
			for p, n := range old {
				if _, ok := m[p]; !ok {
					m[p] = n
				}
			}
		}
		remember1(k, m)
		out[h] = m
		for p, n := range m {
			if validPath(p) {
				fmt.Fprintf(&b, "%s %d %d %s\n", h, n[0], n[1], p)
			}
		}
	}
	linesMu.Unlock()
	if file != "" && b.Len() > 0 {
		appendLines(file, b.String()) // a cache: failing to write it costs time only
	}
	return out
}

// countLines asks git for the line counts of the commits cs: of every
// change, or of the changes at paths alone. A count at a path is kept
// only where git's diff changed the path as the record says (same kind,
// same old name), so a diff limited to paths cannot pair a rename
// differently from the full diff the record came from.
func countLines(ctx context.Context, repo *gitstore.Repo, cs []*Commit, paths []string) map[string]counted {
	got := map[string]counted{}
	if len(cs) == 0 {
		return got
	}
	byHash := map[gitstore.Hash]*Commit{}
	hs := make([]gitstore.Hash, len(cs))
	for i, c := range cs {
		hs[i] = gitstore.ParseHash(c.Hash)
		byHash[hs[i]] = c
	}
	_ = diffEach(ctx, repo, hs, true, paths, func(lc *gitstore.LogCommit) error {
		rec := byHash[lc.Hash]
		m := counted{}
		for _, ch := range lc.Changes {
			if ch.Added == gitstore.LinesUnknown {
				continue
			}
			if paths != nil {
				i := slices.IndexFunc(rec.Changes, func(r Change) bool { return r.Path == ch.Path })
				if i < 0 || rec.Changes[i].Kind != string(ch.Kind) || rec.Changes[i].Old != ch.OldPath {
					continue
				}
			}
			m[ch.Path] = [2]int{ch.Added, ch.Deleted}
		}
		got[lc.Hash.String()] = m
		return nil
	}) // a count not made is shown as unknown
	return got
}

// unknownLines reports whether a change of c lacks its line counts.
func (c *Commit) unknownLines() bool {
	for _, ch := range c.Changes {
		if ch.Add == LinesUnknown {
			return true
		}
	}
	return false
}

// covers reports whether m counts every wanted change of c (a cache
// file cut short may hold part of a commit, a diff limited to paths the
// changes at those paths).
func covers(m counted, c *Commit, want func(Change) bool) bool {
	for _, ch := range c.Changes {
		if _, ok := m[ch.Path]; !ok && want(ch) {
			return false
		}
	}
	return true
}

// withCounts returns ch with the counts of m filled in where it lacks them.
func withCounts(ch Change, m counted) Change {
	if ch.Add != LinesUnknown {
		return ch
	}
	if n, ok := m[ch.Path]; ok {
		ch.Add, ch.Del = n[0], n[1]
	}
	return ch
}

func remember1(h string, m counted) {
	if linesSize > 1<<20 {
		clear(linesCache)
		linesSize = 0
	}
	linesCache[h] = m
	linesSize += len(m) + 1
}

// readLines loads a cache file; a line that does not parse is skipped (a
// write cut short).
func readLines(file string) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > maxLinesFile {
		os.Remove(file)
		return
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fs := strings.SplitN(sc.Text(), " ", 4)
		if len(fs) != 4 || !validHash(fs[0]) || !validPath(fs[3]) {
			continue
		}
		a, err1 := strconv.Atoi(fs[1])
		d, err2 := strconv.Atoi(fs[2])
		if err1 != nil || err2 != nil || a < LinesBinary || d < LinesBinary {
			continue
		}
		k := file + "\x00" + fs[0]
		m := linesCache[k]
		if m == nil {
			m = counted{}
			remember1(k, m)
		}
		m[fs[3]] = [2]int{a, d}
	}
}

func appendLines(file, s string) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.WriteString(s)
	f.Close()
}
