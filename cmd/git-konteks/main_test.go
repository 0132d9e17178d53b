package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/manifest"
)

// binary is the git-konteks built once for every test in this package.
// Most tests run commands in-process (inProcess); the binary serves the
// smoke tests of what only a process shows (exit statuses as a shell sees
// them, signals, hooks that git runs, the background runner, the MCP
// server over real stdio) and the runs whose environment reaches past
// GlobalOptions (inProcessEnv).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "konteks-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "git-konteks")
	// The binary is built with -race when the tests are: the hooks and
	// background runners it serves are checked too.
	buildArgs := []string{"build", "-o", binary}
	if raceEnabled {
		buildArgs = append(buildArgs, "-race")
	}
	build := exec.Command("go", append(buildArgs, ".")...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-konteks:", err)
		os.Exit(1)
	}
	// Code run in-process sees the environment the binary gets: the
	// fixed identity and dates of testgit.Env (importing testgit already
	// took the machine's git config away).
	for _, kv := range testgit.Env() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			os.Setenv(k, v)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs git-konteks in dir and returns stdout; it fails the test on a
// non-zero exit.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, errOut, err := tryRun(dir, nil, args...)
	if err != nil {
		t.Fatalf("git-konteks %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// inProcess are the commands tests run in-process, through the same
// entry point as the program (GlobalOptions.run): their options live in
// GlobalOptions, not in process state. Every command is; `hooks run` is
// the background runner, which git's hooks start as a process, and the
// tests that serve MCP over stdio start the binary themselves.
var inProcess = map[string]bool{
	"init": true, "extract": true, "fetch": true, "push": true, "sync": true, "gc": true, "hooks": true, "mcp": true,
	"recall": true, "context": true, "status": true, "show": true, "overview": true, "skeleton": true,
	"remember": true, "diary": true, "memories": true, "session": true,
	"why": true, "history": true, "graph": true, "skill": true, "manifest": true, "project": true,
	"help": true,
}

// inProcessEnv are the variables a test may set for a command it runs
// in-process: those the commands read through GlobalOptions.Getenv. Any
// other (GIT_DIR, KONTEKS_NO_GIT_CLI, the KONTEKS_TEST_KILL_* hooks) is
// read by packages from the process's environment, so such a run takes
// the binary.
var inProcessEnv = map[string]bool{
	"HOME": true, "XDG_CONFIG_HOME": true, "CODEX_HOME": true, "KONTEKS_CHECKPOINT_EVERY": true,
}

// runsInProcess reports whether tryRun runs args with env in-process.
func runsInProcess(env []string, args []string) bool {
	cmd, sub := commandOf(args)
	if !inProcess[cmd] || cmd == "hooks" && sub == "run" {
		return false
	}
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !inProcessEnv[k] {
			return false
		}
	}
	return true
}

// tryRun runs git-konteks in dir, with extra environment, and returns
// stdout, stderr and the error (an exitError, or *exec.ExitError from the
// binary, on a non-zero exit).
func tryRun(dir string, env []string, args ...string) (string, string, error) {
	if runsInProcess(env, args) {
		return runInProcessEnv(dir, env, "", args...)
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// runInProcess runs git konteks in-process as if started in dir, with
// stdin, and returns stdout, stderr and an exitError for a non-zero exit.
func runInProcess(dir, stdin string, args ...string) (string, string, error) {
	return runInProcessEnv(dir, nil, stdin, args...)
}

// runInProcessEnv is runInProcess with env (KEY=VALUE, the last of a key
// winning) over the process's environment, as the command reads it
// (GlobalOptions.Getenv); the process's own is not changed.
func runInProcessEnv(dir string, env []string, stdin string, args ...string) (string, string, error) {
	var out, errb strings.Builder
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	g := &GlobalOptions{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: getenv, Executable: binary}
	code := g.run(context.Background(), append([]string{"-C", dir}, args...))
	var err error
	if code != 0 {
		err = exitError(code)
	}
	return out.String(), errb.String(), err
}

// exitError is the non-zero exit status of a command run in-process.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e exitError) ExitCode() int { return int(e) }

// commandOf is the command args run and the argument after it (its
// subcommand, if it has one): the first two arguments that are neither
// flags nor -C's directory.
func commandOf(args []string) (cmd, sub string) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C":
			i++
		case strings.HasPrefix(a, "-"):
		case cmd == "":
			cmd = a
		default:
			return cmd, a
		}
	}
	return cmd, ""
}

// extractJSON runs an extraction and decodes its JSON report.
func extractJSON(t testing.TB, dir string, args ...string) extractReport {
	t.Helper()
	var rep extractReport
	out := run(t, dir, append([]string{"extract", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decode extract report: %v\n%s", err, out)
	}
	return rep
}

type extractReport struct {
	Commit   string             `json:"commit"`
	Previous string             `json:"previous"`
	UpToDate bool               `json:"up_to_date"`
	Manifest *manifest.Manifest `json:"manifest"`
}

type showReport struct {
	Path     string `json:"path"`
	Blob     string `json:"blob"`
	Kind     string `json:"kind"`
	Language string `json:"language"`
	Parser   string `json:"parser"`
	Lines    int    `json:"lines"`
	Sections []struct {
		Anchor    string `json:"anchor"`
		Kind      string `json:"kind"`
		Symbol    string `json:"symbol"`
		Name      string `json:"name"`
		QName     string `json:"qname"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
		Parser    string `json:"parser"`
		Content   string `json:"content"`
	} `json:"sections"`
}

// text joins the content of every section.
func (r showReport) text() string {
	var b strings.Builder
	for _, s := range r.Sections {
		b.WriteString(s.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

func show(t testing.TB, dir, path string) showReport {
	t.Helper()
	var rep showReport
	out := run(t, dir, "show", "--json", path)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decode show: %v\n%s", err, out)
	}
	return rep
}

// memoryFiles lists the source paths that have records in refs/konteks.
func memoryFiles(t testing.TB, r *testgit.Repo) []string {
	t.Helper()
	out := r.Git("ls-tree", "-r", "--name-only", "refs/konteks", "files/")
	var paths []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			paths = append(paths, strings.TrimPrefix(l, "files/"))
		}
	}
	return paths
}

func execGit(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	return cmd
}

// scaled stretches a wall-clock bound of a test (a deadline to poll
// until, a limit on how long something may take) by how much slower the
// race detector makes the code under test: Go's documentation puts it at
// 2-20x; this package's commands run about 3-5x slower with -race on a
// loaded 2-core machine.
func scaled(d time.Duration) time.Duration {
	if raceEnabled {
		return 5 * d
	}
	return d
}

// runnerActive reports whether the hooks' background runner of dir's
// repository is running: its lock file names a live process. It only
// reads the file: taking the lock, even for a moment, would make a
// runner starting then leave its request to us.
func runnerActive(t testing.TB, dir string) bool {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	state, err := repo.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	return lockHolderAlive(filepath.Join(state, "runner.lock"))
}

// lockHolderAlive reports whether the lock file at p names a live
// process other than this one.
func lockHolderAlive(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var pid int
	if _, err := fmt.Sscanf(string(b), "pid %d", &pid); err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// TestInProcessConcurrently runs command lines at once in one process,
// as the parallel tests do, and checks each answers as it does alone:
// under -race it fails when two command lines share a value they write
// (urfave/cli's --help and --version flags, a flag's destination, the
// process's settings).
func TestInProcessConcurrently(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Write("main.go", "package main\n\nfunc main() {}\n")
	r.Commit("init")
	lines := [][]string{
		{"-h"}, {"--version"}, {"extract", "-h"}, {"hooks", "install", "-h"}, {"mcp", "config", "-h"},
		{"extract", "--json", "--workers", "1"}, {"hooks", "status", "--json"}, {"fetch", "--json"}, {"gc", "-h"},
	}
	want := make([]string, len(lines))
	for i, args := range lines {
		out, errOut, _ := runInProcess(r.Dir, "", args...)
		want[i] = out + errOut
	}
	done := make(chan error)
	for i, args := range lines {
		go func() {
			out, errOut, _ := runInProcess(r.Dir, "", args...)
			if got := out + errOut; got != want[i] && args[0] != "extract" {
				done <- fmt.Errorf("%v at once with others:\n%s\nalone:\n%s", args, got, want[i])
				return
			}
			done <- nil
		}()
	}
	for range lines {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
