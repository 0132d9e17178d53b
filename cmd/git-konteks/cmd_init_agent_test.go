package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/konteks/git-konteks/agent"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestInitAgent runs `init --agent NAME` for every agent on a repository
// and home holding that agent's files as its documentation shows them
// (agent/testdata): the files named in the report are written and still
// parse (JSONC through hujson), running it again changes nothing, the
// session-start hook says which commit memory describes, and
// `init --agent NAME --remove` restores every file byte for byte.
func TestInitAgent(t *testing.T) {
	t.Parallel()
	for _, name := range agent.Names() {
		t.Run(name, func(t *testing.T) {
			r := testgit.New(t)
			fx := filepath.Join("..", "..", "agent", "testdata", name)
			if err := os.CopyFS(r.Dir, os.DirFS(filepath.Join(fx, "repo"))); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			r.Write("main.go", "package main\n\nfunc main() {}\n")
			head := r.Commit("init")
			home := t.TempDir()
			if err := os.CopyFS(home, os.DirFS(filepath.Join(fx, "home"))); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "CODEX_HOME=" + filepath.Join(home, ".codex")}
			repoBefore, homeBefore := testgit.Files(t, r.Dir), testgit.Files(t, home)

			out, errOut, err := tryRun(r.Dir, env, "init", "--no-fetch", "--no-hooks", "--agent", name, "--json")
			if err != nil {
				t.Fatalf("init --agent %s: %v\n%s%s", name, err, out, errOut)
			}
			var rep struct{ Agents []agent.Report }
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Agents) != 1 {
				t.Fatalf("init --json: %v\n%s", err, out)
			}
			for _, ch := range rep.Agents[0].Changes {
				b, err := os.ReadFile(ch.File)
				if err != nil || ch.Action == "unchanged" {
					t.Fatalf("%s %s: %v", ch.Action, ch.File, err)
				}
				if strings.HasSuffix(ch.File, ".json") || strings.HasSuffix(ch.File, ".hook") {
					if _, err := hujson.Parse(b); err != nil {
						t.Errorf("%s does not parse: %v\n%s", ch.File, err, b)
					}
				}
			}
			if again, _, err := tryRun(r.Dir, env, "hooks", "install", "--agent", name, "--json"); err != nil || strings.Count(again, `"unchanged"`) != len(rep.Agents[0].Changes) {
				t.Errorf("hooks install --agent %s after init changed files: %v\n%s", name, err, again)
			}
			if name == "claude" {
				start, _, err := tryRun(r.Dir, env, "hooks", "session-start", "--agent", "claude")
				var hook struct {
					HookSpecificOutput struct{ HookEventName, AdditionalContext string }
				}
				if err != nil || json.Unmarshal([]byte(start), &hook) != nil || !strings.Contains(hook.HookSpecificOutput.AdditionalContext, "memory describes commit "+head[:7]) {
					t.Errorf("session-start hook: %v\n%s", err, start)
				}
			}

			if out, errOut, err := tryRun(r.Dir, env, "init", "--agent", name, "--remove"); err != nil {
				t.Fatalf("init --agent %s --remove: %v\n%s%s", name, err, out, errOut)
			}
			for _, c := range []struct {
				dir  string
				want map[string]string
			}{{r.Dir, repoBefore}, {home, homeBefore}} {
				got := testgit.Files(t, c.dir)
				for p, w := range c.want {
					if got[p] != w {
						t.Errorf("%s not restored byte for byte:\n%s\nwant:\n%s", p, got[p], w)
					}
				}
				for p := range got {
					if _, ok := c.want[p]; !ok {
						t.Errorf("%s left behind", p)
					}
				}
			}
		})
	}
}
