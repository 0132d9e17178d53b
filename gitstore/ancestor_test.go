package gitstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestIsAncestor: near and far ancestors, descendants and other branches
// give the same answers through the short walk, git and go-git.
func TestIsAncestor(t *testing.T) {
	r := testgit.New(t)
	// 300 commits on main, 5 on a branch from the 11th, by fast-import.
	var s strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter A <a@b> %d +0000\ndata 2\nc\n", i, 1700000000+i)
		if i > 1 {
			fmt.Fprintf(&s, "from :%d\n", i-1)
		}
		fmt.Fprintf(&s, "M 644 inline f.txt\ndata %d\n%d\n\n", len(fmt.Sprint(i))+1, i)
	}
	for i := 301; i <= 305; i++ {
		from := i - 1
		if i == 301 {
			from = 11
		}
		fmt.Fprintf(&s, "commit refs/heads/side\nmark :%d\ncommitter A <a@b> %d +0000\ndata 2\ns\nfrom :%d\n\n", i, 1700000000+i, from)
	}
	r.GitStdin(s.String(), "fast-import", "--quiet")
	rev := func(spec string) gitstore.Hash { return gitstore.ParseHash(r.Git("rev-parse", spec)) }
	main, side := rev("main"), rev("side")
	cases := []struct {
		a, b gitstore.Hash
		want bool
	}{
		{rev("main~5"), main, true},    // near
		{rev("main~299"), main, true},  // far: the root
		{main, rev("main~5"), false},   // a descendant
		{side, main, false},            // another branch, far
		{rev("main~289"), side, true},  // the branch point's ancestor
		{rev("side~1"), side, true},    // near on the branch
		{rev("main~100"), side, false}, // after the branch point
		{main, main, true},
	}
	for _, cli := range []bool{true, false} {
		if !cli {
			t.Setenv("KONTEKS_NO_GIT_CLI", "1")
		}
		repo := open(t, r)
		for i, c := range cases {
			got, err := repo.IsAncestor(c.a, c.b)
			if err != nil || got != c.want {
				t.Errorf("git cli %v, case %d: IsAncestor = %v, %v; want %v", cli, i, got, err, c.want)
			}
		}
	}
}
