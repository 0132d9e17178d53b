package mcp

import (
	"container/heap"
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
)

// Freshness says which memory an answer comes from and how current it is.
// Every tool answer carries it.
type Freshness struct {
	// Exists is false when the repository has no extracted memory yet.
	Exists bool `json:"exists"`
	// MemoryCommit is the memory commit answered from (refs/konteks).
	MemoryCommit string `json:"memory_commit,omitempty"`
	// SourceCommit is the commit memory describes.
	SourceCommit string `json:"source_commit,omitempty"`
	Head         string `json:"head,omitempty"`
	// UpToDate is true when memory describes HEAD.
	UpToDate bool `json:"up_to_date"`
	// HeadAhead is true when HEAD descends from the source commit.
	HeadAhead bool `json:"head_ahead,omitempty"`
	// CommitsAhead counts the commits of HEAD memory has not seen;
	// CommitsBehind the commits memory describes that HEAD does not have
	// (another branch). Counted up to MaxWalk commits; Approximate marks
	// a count that stopped there.
	CommitsAhead  int  `json:"commits_ahead,omitempty"`
	CommitsBehind int  `json:"commits_behind,omitempty"`
	Approximate   bool `json:"approximate,omitempty"`
	// ChangedFiles counts the paths that differ between the source commit
	// and HEAD; Changed lists the first of them.
	ChangedFiles int      `json:"changed_files,omitempty"`
	Changed      []string `json:"changed,omitempty"`
	// Index says how the search index was opened (recall and context
	// only): current, update, build, or stale while another process
	// updates it.
	Index string `json:"index,omitempty"`
	// Hint says what to do about it, when anything.
	Hint string `json:"hint,omitempty"`
}

// MaxWalk bounds the commits walked to count how far HEAD has moved.
const MaxWalk = 5000

// maxChangedShown bounds Freshness.Changed.
const maxChangedShown = 10

// distance is how HEAD relates to the source commit memory describes.
type distance struct {
	ahead, behind int
	isAncestor    bool // the source commit is an ancestor of HEAD
	approximate   bool
	changed       int
	paths         []string
	err           error
}

// freshness describes memory (source commit src, memory commit memCommit)
// against the snapshot's HEAD.
func (s *Server) freshness(snap *snapshot, memCommit, src string) Freshness {
	f := Freshness{Exists: src != "", MemoryCommit: memCommit, SourceCommit: src}
	if !snap.head.IsZero() {
		f.Head = snap.head.String()
	}
	switch {
	case src == "":
		f.Hint = "no memory yet: call refresh (or run `git konteks extract`) to create it"
		return f
	case f.Head == "":
		f.Hint = "HEAD has no commit yet"
		return f
	case f.Head == src:
		f.UpToDate = true
		return f
	}
	d := s.distance(snap.repo, gitstore.ParseHash(src), snap.head)
	f.HeadAhead = d.isAncestor
	f.CommitsAhead, f.CommitsBehind, f.Approximate = d.ahead, d.behind, d.approximate
	f.ChangedFiles, f.Changed = d.changed, d.paths
	what := "HEAD has moved past memory"
	if !d.isAncestor {
		what = "HEAD is on another line of history than memory"
	}
	if d.err == nil && d.changed == 0 {
		f.Hint = what + ", but no file differs: answers hold for HEAD; refresh only records the new commit"
		return f
	}
	f.Hint = what + ": answers may be out of date for the changed files; call refresh (a `changed` extraction, cost follows the change) to bring memory to HEAD"
	return f
}

// distance counts commits and changed files between src and head, cached
// per pair (both are immutable commits).
func (s *Server) distance(repo *gitstore.Repo, src, head gitstore.Hash) distance {
	key := [2]gitstore.Hash{src, head}
	s.cmu.Lock()
	d, ok := s.fresh[key]
	s.cmu.Unlock()
	if ok {
		return d
	}
	d = measure(repo, src, head)
	s.cmu.Lock()
	if len(s.fresh) > 256 {
		clear(s.fresh)
	}
	s.fresh[key] = d
	s.cmu.Unlock()
	return d
}

func measure(repo *gitstore.Repo, src, head gitstore.Hash) distance {
	var d distance
	d.ahead, d.behind, d.isAncestor, d.approximate, d.err = walk(repo, head, src, MaxWalk)
	sc, err1 := repo.Commit(src)
	hc, err2 := repo.Commit(head)
	if err1 != nil || err2 != nil {
		if d.err == nil {
			d.err = fmt.Errorf("read commits: %v %v", err1, err2)
		}
		return d
	}
	changes, err := repo.DiffTrees(sc.TreeHash, hc.TreeHash)
	if err != nil {
		d.err = err
		return d
	}
	d.changed = len(changes)
	for _, c := range changes {
		if len(d.paths) == maxChangedShown {
			break
		}
		d.paths = append(d.paths, c.Path)
	}
	return d
}

// walk counts the commits reachable from a but not from b (ahead) and from
// b but not from a (behind), like `git rev-list --left-right --count a...b`,
// by git's paint walk: commits are visited newest first, each carries the
// sides it is reachable from, and the walk ends once every commit left to
// visit is reachable from both. Commit dates are not trusted to be strictly
// ordered (a rebase gives many commits the same second, clocks skew): a
// commit whose sides grow after its visit is visited again, so they reach
// its ancestors, and the walk goes on through commits reachable from both
// sides as long as they are not older than a commit counted for one side
// (one of them could be its descendant). It visits at most max commits
// (approximate is then set). isAncestor reports whether b is reachable
// from a.
func walk(repo *gitstore.Repo, a, b gitstore.Hash, max int) (ahead, behind int, isAncestor, approximate bool, err error) {
	const fromA, fromB, both = 1, 2, 3
	flags := map[gitstore.Hash]uint8{}
	loaded := map[gitstore.Hash]queued{}
	q := &commitQueue{}
	single := 0 // queued commits reachable from one side only
	mark := func(h gitstore.Hash, f uint8) error {
		old, seen := flags[h]
		nf := old | f
		if seen && nf == old {
			return nil
		}
		c, ok := loaded[h]
		if !ok {
			cm, err := repo.Commit(h)
			if err != nil {
				return err
			}
			c = queued{h: h, when: cm.Committer.When.Unix(), parents: cm.ParentHashes}
			loaded[h] = c
		}
		flags[h] = nf
		if q.has(h) {
			if old != both && nf == both {
				single--
			}
			return nil
		}
		heap.Push(q, c)
		if nf != both {
			single++
		}
		return nil
	}
	if err := mark(a, fromA); err != nil {
		return 0, 0, false, false, err
	}
	if err := mark(b, fromB); err != nil {
		return 0, 0, false, false, err
	}
	visited := map[gitstore.Hash]bool{}
	oldestSingle := int64(1<<63 - 1) // date of the oldest commit visited for one side
	for n := 0; q.Len() > 0; n++ {
		if single == 0 && (q.items[0].when < oldestSingle) {
			break
		}
		if n == max {
			approximate = true
			break
		}
		c := heap.Pop(q).(queued)
		f := flags[c.h]
		if f != both {
			single--
			oldestSingle = min(oldestSingle, c.when)
		}
		visited[c.h] = true
		for _, p := range c.parents {
			if err := mark(p, f); err != nil {
				// A missing parent (shallow clone): count what we can.
				approximate = true
			}
		}
	}
	for h := range visited {
		switch flags[h] {
		case fromA:
			ahead++
		case fromB:
			behind++
		}
	}
	return ahead, behind, flags[b]&fromA != 0, approximate, nil
}

type queued struct {
	h       gitstore.Hash
	when    int64
	parents []gitstore.Hash
}

// commitQueue is a max-heap by commit time (newest first), ties broken by
// id so the walk is deterministic.
type commitQueue struct {
	items []queued
	in    map[gitstore.Hash]bool
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	if q.items[i].when != q.items[j].when {
		return q.items[i].when > q.items[j].when
	}
	return strings.Compare(q.items[i].h.String(), q.items[j].h.String()) < 0
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any) {
	if q.in == nil {
		q.in = map[gitstore.Hash]bool{}
	}
	it := x.(queued)
	q.in[it.h] = true
	q.items = append(q.items, it)
}
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	delete(q.in, it.h)
	return it
}
func (q *commitQueue) has(h gitstore.Hash) bool { return q.in[h] }

// Line renders freshness as the one line that ends every text answer.
func (f Freshness) Line() string {
	if !f.Exists {
		return "memory: none yet — call refresh (or run `git konteks extract`) to create it"
	}
	l := "memory: describes commit " + short(f.SourceCommit)
	if f.UpToDate {
		return l + " (HEAD)"
	}
	if f.Head == "" {
		return l
	}
	var parts []string
	switch {
	case f.HeadAhead:
		parts = append(parts, fmt.Sprintf("HEAD %s is %s ahead", short(f.Head), count(f.CommitsAhead, "commit", f.Approximate)))
	default:
		parts = append(parts, fmt.Sprintf("HEAD %s is on another line (%s ahead, %s behind)", short(f.Head),
			count(f.CommitsAhead, "commit", f.Approximate), count(f.CommitsBehind, "commit", f.Approximate)))
	}
	if f.ChangedFiles > 0 {
		files := count(f.ChangedFiles, "file", false) + " changed"
		if len(f.Changed) > 0 {
			shown := f.Changed
			if len(shown) > 3 {
				shown = shown[:3]
			}
			files += " (" + strings.Join(shown, ", ")
			if f.ChangedFiles > len(shown) {
				files += ", …"
			}
			files += ")"
		}
		parts = append(parts, files)
		return l + "; " + strings.Join(parts, ", ") + " — call refresh to bring memory up to date"
	}
	return l + "; " + strings.Join(parts, ", ") + ", no file changed"
}

func count(n int, what string, approx bool) string {
	s := fmt.Sprintf("%d %s", n, what)
	if n != 1 {
		s += "s"
	}
	if approx {
		s = "at least " + s
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
