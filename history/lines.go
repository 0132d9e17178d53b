package history

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
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
// the cache. Commits whose counts git cannot make are absent.
func lineCounts(ctx context.Context, repo *gitstore.Repo, cs []*Commit) map[string]counted {
	out := map[string]counted{}
	var need []*Commit
	for _, c := range cs {
		if !c.unknownLines() {
			continue
		}
		need = append(need, c)
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
	var todo []gitstore.Hash
	for _, c := range need {
		if m, ok := linesCache[key(c.Hash)]; ok && covers(m, c) {
			out[c.Hash] = m
		} else if _, dup := out[c.Hash]; !dup {
			out[c.Hash] = nil
			todo = append(todo, gitstore.ParseHash(c.Hash))
		}
	}
	linesMu.Unlock()
	for h, m := range out {
		if m == nil {
			delete(out, h)
		}
	}
	if len(todo) == 0 {
		return out
	}
	got := map[string]counted{}
	collect := func(lc *gitstore.LogCommit) error {
		m := counted{}
		for _, ch := range lc.Changes {
			if ch.Added != gitstore.LinesUnknown {
				m[ch.Path] = [2]int{ch.Added, ch.Deleted}
			}
		}
		got[lc.Hash.String()] = m
		return nil
	}
	if err := diffEach(ctx, repo, todo, true, collect); err != nil {
		return out // a count not made is shown as unknown
	}
	var b strings.Builder
	for h, m := range got {
		out[h] = m
		for p, n := range m {
			if validPath(p) {
				fmt.Fprintf(&b, "%s %d %d %s\n", h, n[0], n[1], p)
			}
		}
	}
	linesMu.Lock()
	for h, m := range got {
		remember1(file+"\x00"+h, m)
	}
	linesMu.Unlock()
	if file != "" && b.Len() > 0 {
		appendLines(file, b.String()) // a cache: failing to write it costs time only
	}
	return out
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

// covers reports whether m counts every change of c that lacks counts
// (a cache file cut short may hold part of a commit).
func covers(m counted, c *Commit) bool {
	for _, ch := range c.Changes {
		if _, ok := m[ch.Path]; !ok && ch.Add == LinesUnknown {
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
