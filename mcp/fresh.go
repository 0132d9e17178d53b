package mcp

import (
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
	// (another branch). Counted up to gitstore.MaxWalk commits; Approximate marks
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
	w, err := repo.Distance(src, head, 0)
	d.ahead, d.behind, d.isAncestor, d.approximate, d.err = w.Ahead, w.Behind, w.Ancestor, w.Approximate, err
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
