package gitstore_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestIdentityAsGitResolvesIt: the author of memory commits is the one
// `git var GIT_AUTHOR_IDENT` names, whether it comes from the
// environment, author.* or user.* config, or needs git's own clean-up.
func TestIdentityAsGitResolvesIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		cfg  map[string]string
	}{
		{"user config", nil, map[string]string{"user.name": "Config Name", "user.email": "config@example.invalid"}},
		{"author over user", nil, map[string]string{"user.name": "User", "user.email": "user@example.invalid", "author.name": "Author", "author.email": "author@example.invalid"}},
		{"environment over config", map[string]string{"GIT_AUTHOR_NAME": "Env Name", "GIT_AUTHOR_EMAIL": "env@example.invalid"}, map[string]string{"user.name": "User", "user.email": "user@example.invalid"}},
		{"EMAIL", map[string]string{"EMAIL": "mail@example.invalid"}, map[string]string{"user.name": "User"}},
		{"what git strips", nil, map[string]string{"user.name": " .Crud <Name>, ", "user.email": "<crud@example.invalid>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testgit.New(t)
			for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"} {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			for k, v := range tc.cfg {
				r.Git("config", k, v)
			}
			cmd := exec.Command("git", "var", "GIT_AUTHOR_IDENT")
			cmd.Dir = r.Dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			ident := strings.TrimSpace(string(out))
			want := ident[:strings.LastIndexByte(ident, '>')+1]
			repo, err := gitstore.Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			s := repo.Identity()
			if got := s.Name + " <" + s.Email + ">"; got != want {
				t.Fatalf("identity %q, git says %q", got, want)
			}
		})
	}
}
