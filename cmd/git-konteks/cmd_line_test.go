package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	t.Parallel()
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
	out, errOut, err := runInProcess(t.TempDir(), "", "recall", "retry", "-C", filepath.Join(r.Dir, "services", "api"), "--path", ".", "--json")
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

// A mistyped flag is answered with the nearest flags of the command.
func TestUnknownFlagDidYouMean(t *testing.T) {
	t.Parallel()
	r := monorepo(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"recall", "--limt", "3", "x"}, "did you mean '--limit'?"},
		{[]string{"recall", "x", "--jsn"}, "did you mean '--json'?"},
		{[]string{"status", "--skiped"}, "did you mean '--skipped'?"},
		{[]string{"memories", "forget", "abc", "--reasn", "x"}, "did you mean '--reason'?"},
		{[]string{"context", "--budgte", "500", "x"}, "did you mean '--budget'?"},
	} {
		_, errOut, err := runInProcess(r.Dir, "", tc.args...)
		if code := exitCode(t, err); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	// Nothing near: no guess.
	_, errOut, _ := runInProcess(r.Dir, "", "recall", "--frobnicate", "x")
	if strings.Contains(errOut, "did you mean") {
		t.Errorf("a guess for --frobnicate: %s", errOut)
	}
}

// A task that starts with a dash (an issue titled "--hidden does not
// work") is passed after --, which ends the options; typed without it,
// the error says so instead of only calling it an unknown flag.
func TestTaskStartingWithDash(t *testing.T) {
	t.Parallel()
	r := monorepo(t)
	task := "--hidden does not work"
	_, errOut, err := runInProcess(r.Dir, "", "recall", task)
	if code := exitCode(t, err); code != 2 || !strings.Contains(errOut, "goes after --") || !strings.Contains(errOut, `-- "--hidden does not work"`) {
		t.Fatalf("dash task without --: exit %d, %s", code, errOut)
	}
	for _, args := range [][]string{
		{"recall", "--json", "--", task},
		{"recall", "--limit", "2", "--json", "--", task},
		{"--json", "recall", "--", task},
	} {
		out, errOut, err := runInProcess(r.Dir, "", args...)
		var res struct{ Task string }
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Task != task {
			t.Errorf("%q: %v, task %q\n%s", args, err, res.Task, errOut)
		}
	}
	// After --, -C and --json are the task's words, not options.
	out, _, err := runInProcess(r.Dir, "", "context", "--", "--json", "-C", "x")
	if err != nil || !strings.HasPrefix(out, "# Context: --json -C x") {
		t.Fatalf("context -- --json -C x: %v\n%s", err, out)
	}
}

// `recall -` and `context -` read the task from standard input.
func TestTaskFromStdin(t *testing.T) {
	t.Parallel()
	r := monorepo(t)
	out, errOut, err := runInProcess(r.Dir, "retry a failed API request\n", "recall", "--json", "-")
	var res recallJSONOut
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Hits) == 0 || res.Hits[0].Path != "services/api/handler.go" {
		t.Fatalf("recall -: %v\n%s\n%s", err, out, errOut)
	}
	out, _, err = runInProcess(r.Dir, "retry a failed page render", "context", "-")
	if err != nil || !strings.Contains(out, "services/web/handler.go") {
		t.Fatalf("context -: %v\n%s", err, out)
	}
}

// In a subdirectory of a monorepo, paths are read from there, as git
// reads them: `overview .` is that directory, `recall --path .` is
// restricted to it, `show` and `skeleton` take a path from it; paths from
// the top still work.
func TestPathsRelativeToCurrentDirectory(t *testing.T) {
	t.Parallel()
	r := monorepo(t)
	api := filepath.Join(r.Dir, "services", "api")

	// From the process's directory (the binary, started in the
	// subdirectory) and from -C (in-process): the same answers.
	cmd := exec.Command(binary, "overview", "--json", ".")
	cmd.Dir, cmd.Env = api, testgit.Env()
	b, err := cmd.Output()
	var sum struct{ Path string }
	if err != nil || json.Unmarshal(b, &sum) != nil || sum.Path != "services/api" {
		t.Fatalf("overview . in services/api (cwd): %v, %s", err, b)
	}
	for _, tc := range []struct {
		arg, want string
	}{{".", "services/api"}, {"..", "services"}, {"services/web", "services/web"}} {
		out, errOut, err := runInProcess(api, "", "overview", "--json", tc.arg)
		if err != nil || json.Unmarshal([]byte(out), &sum) != nil || sum.Path != tc.want {
			t.Errorf("overview %s in services/api: %v, %s %s; want %s", tc.arg, err, out, errOut, tc.want)
		}
	}
	if out := run(t, r.Dir, "overview"); !strings.HasPrefix(out, "(root)") {
		t.Errorf("overview without DIR:\n%s", out)
	}

	paths := func(args ...string) []string {
		out, errOut, err := runInProcess(api, "", append([]string{"recall", "--json", "--mode", "lexical"}, args...)...)
		var res recallJSONOut
		if err != nil || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("recall %q: %v\n%s", args, err, errOut)
		}
		var ps []string
		for _, h := range res.Hits {
			if !slices.Contains(ps, h.Path) {
				ps = append(ps, h.Path)
			}
		}
		slices.Sort(ps)
		return ps
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--path", ".", "retry backoff"}, []string{"services/api/handler.go"}},
		{[]string{"--path", "handler.go", "retry backoff"}, []string{"services/api/handler.go"}},
		{[]string{"--path", "../web", "retry backoff"}, []string{"services/web/handler.go"}},
		{[]string{"--path", "/services", "retry backoff"}, []string{"services/api/handler.go", "services/web/handler.go"}},
		{[]string{"--path", "!.", "retry backoff"}, []string{"README.md", "services/web/handler.go"}},
	} {
		if got := paths(tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("recall %q in services/api: %v, want %v", tc.args, got, tc.want)
		}
	}
	_, errOut, err := runInProcess(api, "", "recall", "--path", "../../../..", "retry")
	if code := exitCode(t, err); code != 2 || !strings.Contains(errOut, "outside the repository") {
		t.Errorf("--path above the top: exit %d, %s", code, errOut)
	}

	if rep := show(t, api, "handler.go"); rep.Path != "services/api/handler.go" {
		t.Errorf("show handler.go in services/api: %s", rep.Path)
	}
	if rep := show(t, api, "services/web/handler.go"); rep.Path != "services/web/handler.go" {
		t.Errorf("show with a path from the top: %s", rep.Path)
	}
	if out := run(t, api, "skeleton", "handler.go"); !strings.Contains(out, "failed API request") {
		t.Errorf("skeleton handler.go in services/api:\n%s", out)
	}
}

// Commands run in-process read no git config of the machine: the test
// process is hermetic (internal/testgit), so a user's ~/.gitconfig or
// XDG config cannot change what a test sees.
func TestInProcessIgnoresUserGitConfig(t *testing.T) {
	r := monorepo(t)
	home := t.TempDir()
	leak := "[user]\n\tname = Leaked From Home\n\temail = leak@example.invalid\n[konteks \"embed\"]\n\tprovider = ollama\n"
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(leak), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	// No identity from the environment, so one from config would show.
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	if _, errOut, err := runInProcess(r.Dir, "", "remember", "Retries back off exponentially in both services"); err != nil {
		t.Fatalf("remember: %v %s", err, errOut)
	}
	if author := r.Git("log", "-1", "--format=%an <%ae>", "refs/konteks"); strings.Contains(author, "Leaked") {
		t.Fatalf("memory commit by %q: the user's git config was read", author)
	}
	out, _, err := runInProcess(r.Dir, "", "recall", "--json", "retry backoff")
	if err != nil || strings.Contains(out, "ollama") {
		t.Fatalf("recall read the user's embedding provider: %v\n%s", err, out)
	}
}
