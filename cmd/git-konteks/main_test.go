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
// them, signals, hooks that git runs, the background runner) and the
// commands not yet run in-process.
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
// entry point as the program (GlobalOptions.run), unless the test gives
// extra environment: their options live in GlobalOptions, not in process
// state.
var inProcess = map[string]bool{
	"recall": true, "context": true, "status": true, "show": true, "overview": true, "skeleton": true,
	"remember": true, "diary": true, "memories": true, "session": true,
	"why": true, "history": true, "graph": true, "skill": true, "manifest": true, "project": true,
}

// tryRun runs git-konteks in dir, with extra environment, and returns
// stdout, stderr and the error (an exitError, or *exec.ExitError from the
// binary, on a non-zero exit).
func tryRun(dir string, env []string, args ...string) (string, string, error) {
	if env == nil && inProcess[commandOf(args)] {
		return runInProcess(dir, "", args...)
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
	var out, errb strings.Builder
	g := &GlobalOptions{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Executable: binary}
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

// commandOf is the command args run: the first argument that is neither
// a flag nor -C's directory.
func commandOf(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
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
