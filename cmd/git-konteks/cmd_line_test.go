package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// monorepo is a repository with two services that both define Retry, so
// a path filter or a directory argument shows which one a command read.
func monorepo(t *testing.T) *testgit.Repo {
	t.Helper()
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	r.Write("README.md", "# Shop\n\nTwo services that retry politely.\n")
	r.Write("services/api/handler.go", "package api\n\n// Retry retries a failed API request with backoff.\nfunc Retry(n int) int { return n }\n")
	r.Write("services/web/handler.go", "package web\n\n// Retry retries a failed page render with backoff.\nfunc Retry(n int) int { return n }\n")
	r.Commit("init")
	extractJSON(t, r.Dir)
	return r
}

// --json and -C are global options: accepted before or after the command
// name, and -C opens the repository from its directory without entering
// it (so paths given to the command are read from there).
func TestGlobalOptionsBeforeOrAfterCommand(t *testing.T) {
	r := monorepo(t)
	head := r.Git("rev-parse", "HEAD")
	for _, args := range [][]string{
		{"--json", "status"},
		{"status", "--json"},
		{"-C", r.Dir, "--json", "status"},
		{"--json", "-C", r.Dir, "status"},
		{"status", "-C", r.Dir, "--json"},
		{"-C", filepath.Dir(r.Dir), "-C", filepath.Base(r.Dir), "status", "--json"}, // as git: each -C from the one before
	} {
		out, errOut, err := runInProcess(r.Dir, "", args...)
		var st statusJSON
		if err != nil || json.Unmarshal([]byte(out), &st) != nil || st.SourceCommit != head {
			t.Errorf("%q: %v\nstdout %s\nstderr %s", args, err, out, errOut)
		}
	}
	// -C after the command, with the task around it.
	out, errOut, err := runInProcess(t.TempDir(), "", "recall", "retry", "-C", filepath.Join(r.Dir, "services", "api"), "--json")
	var res recallJSONOut
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Hits) == 0 {
		t.Fatalf("recall with -C after the command: %v\n%s\n%s", err, out, errOut)
	}
	// A -C that cannot be entered is an error, as JSON with --json.
	_, errOut, err = runInProcess(r.Dir, "", "status", "-C", "no/such/dir", "--json")
	if code := exitCode(t, err); code != 1 || !strings.Contains(errOut, `no/such/dir: stat`) {
		t.Fatalf("bad -C: exit %d, %s", code, errOut)
	}
	// The shell's view, once: the program takes --json first too.
	cmd := exec.Command(binary, "--json", "status")
	cmd.Dir, cmd.Env = r.Dir, testgit.Env()
	b, err := cmd.Output()
	var st statusJSON
	if err != nil || json.Unmarshal(b, &st) != nil || st.SourceCommit != head {
		t.Fatalf("git-konteks --json status: %v\n%s", err, b)
	}
}
