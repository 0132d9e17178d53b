package gitstore_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestDistance checks the commit counts against git's own.
func TestDistance(t *testing.T) {
	r := testgit.New(t)
	commit := func(f string) string {
		r.Write(f, f)
		return r.Commit(f)
	}
	base := commit("a")
	commit("b")
	main2 := commit("c")
	r.Git("checkout", "-q", "-b", "side", base)
	commit("s1")
	side := commit("s2")
	r.Git("checkout", "-q", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	merged := r.Git("rev-parse", "HEAD")
	after := commit("d")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// {to, from}: how to (HEAD) relates to from (memory).
	pairs := [][2]string{{after, base}, {after, main2}, {after, side}, {main2, side}, {side, main2}, {merged, after}, {base, base}}
	for _, p := range pairs {
		to, from := gitstore.ParseHash(p[0]), gitstore.ParseHash(p[1])
		d, err := repo.Distance(from, to, 0)
		if err != nil {
			t.Fatal(err)
		}
		counts := strings.Fields(r.Git("rev-list", "--left-right", "--count", p[0]+"..."+p[1]))
		wantAhead, _ := strconv.Atoi(counts[0])
		wantBehind, _ := strconv.Atoi(counts[1])
		_, ancErr := r.TryGit("merge-base", "--is-ancestor", p[1], p[0])
		if d.Ahead != wantAhead || d.Behind != wantBehind || d.Ancestor != (ancErr == nil) || d.Approximate {
			t.Errorf("distance %.7s..%.7s: %+v; git says ahead %d behind %d ancestor %v",
				p[1], p[0], d, wantAhead, wantBehind, ancErr == nil)
		}
	}
	if d, _ := repo.Distance(gitstore.ParseHash(base), gitstore.ParseHash(after), 2); !d.Approximate || d.Ahead > 3 {
		t.Errorf("bounded walk: %+v", d)
	}
}
