package recall

import (
	"fmt"

	"github.com/konteks/git-konteks/gitstore"
)

// Memory describes one source commit. A checkout whose HEAD is elsewhere
// (a linked worktree on another branch, a branch switched before the
// hooks caught up) must not be answered silently with files it does not
// have: hits for paths absent from HEAD's tree are left out, and a note
// says which commit memory describes. The answer is otherwise the same:
// files both commits share are still the best evidence there is.

// checkoutFilter keeps the tree of HEAD when it is not memory's source.
type checkoutFilter struct {
	repo    *gitstore.Repo
	tree    gitstore.Hash
	source  string
	present map[string]bool
}

func newCheckoutFilter(repo *gitstore.Repo, st MemoryState) *checkoutFilter {
	if !st.HeadMoved || st.Head == "" {
		return nil
	}
	head, err := repo.Commit(gitstore.ParseHash(st.Head))
	if err != nil {
		return nil
	}
	return &checkoutFilter{repo: repo, tree: head.TreeHash, source: st.SourceCommit, present: map[string]bool{}}
}

// has reports whether HEAD's tree holds path.
func (f *checkoutFilter) has(path string) bool {
	if f == nil {
		return true
	}
	ok, seen := f.present[path]
	if !seen {
		_, isTree, found, err := f.repo.Lookup(f.tree, path)
		ok = err == nil && found && !isTree
		f.present[path] = ok
	}
	return ok
}

func (f *checkoutFilter) note(dropped int) string {
	return fmt.Sprintf("memory describes %.12s, not this checkout's HEAD: %d hit(s) for files HEAD does not have were left out (run `git konteks extract` to bring memory here)", f.source, dropped)
}
