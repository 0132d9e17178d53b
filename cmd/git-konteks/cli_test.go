package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/hooks"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/mcp"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/recall"
)

// exitCode is the exit status of a finished command (0 for success).
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) {
		t.Fatalf("not an exit: %v", err)
	}
	return ee.ExitCode()
}

func TestHelpCommand(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	top := run(t, r.Dir, "help")
	if !strings.Contains(top, "recall ") || !strings.Contains(top, "COMMANDS:") {
		t.Fatalf("help:\n%s", top)
	}
	if h := run(t, r.Dir, "-h"); h != top {
		t.Fatalf("help and -h differ:\n%s\n---\n%s", top, h)
	}
	if out := run(t, r.Dir, "help", "recall"); !strings.Contains(out, "git-konteks recall - find the sections") || !strings.Contains(out, "--limit") {
		t.Fatalf("help recall:\n%s", out)
	}
	if out, want := run(t, r.Dir, "help", "recall"), run(t, r.Dir, "recall", "-h"); out != want {
		t.Fatalf("help recall and recall -h differ:\n%s\n---\n%s", out, want)
	}
	if out := run(t, r.Dir, "help", "hooks", "install"); !strings.Contains(out, "git-konteks hooks install - install the hooks") {
		t.Fatalf("help hooks install:\n%s", out)
	}
}

// A mistyped command is answered as git answers one, with exit 2.
func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"recal", "retries"}, "git-konteks: unknown command 'recal'; did you mean 'recall'?"},
		{[]string{"extarct"}, "git-konteks: unknown command 'extarct'; did you mean 'extract'?"},
		{[]string{"help", "recal"}, "git-konteks: unknown command 'recal'; did you mean 'recall'?"},
		{[]string{"hooks", "instal"}, "git-konteks: unknown hooks command 'instal'; did you mean 'install'?"},
		{[]string{"memories", "lst"}, "git-konteks: unknown memories command 'lst'; did you mean 'list'?"},
		{[]string{"frobnicate"}, "git-konteks: unknown command 'frobnicate' (see `git konteks help`)"},
	} {
		out, errOut, err := tryRun(r.Dir, nil, tc.args...)
		if code := exitCode(t, err); code != 2 || strings.TrimSpace(errOut) != tc.want || out != "" {
			t.Errorf("%v: exit %d\nstderr %q\nwant   %q\nstdout %q", tc.args, code, errOut, tc.want, out)
		}
	}
	// An unknown flag is a usage error too.
	_, errOut, err := tryRun(r.Dir, nil, "recall", "--bogus", "x")
	if code := exitCode(t, err); code != 2 || !strings.Contains(errOut, "flag provided but not defined: -bogus") {
		t.Fatalf("unknown flag: exit %d, %q", code, errOut)
	}
}

// `git konteks --help` is `git help konteks`, which is `man git-konteks`:
// the page make install puts under share/man/man1 carries the same text
// as -h.
func TestManPage(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	prefix := t.TempDir()
	for _, d := range []string{"bin", "share/man/man1"} {
		if err := os.MkdirAll(filepath.Join(prefix, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "bin", "git-konteks"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	r := recallRepo(t)
	page := run(t, r.Dir, "help", "--man")
	if err := os.WriteFile(filepath.Join(prefix, "share/man/man1/git-konteks.1"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Join(prefix, "bin") + ":" + os.Getenv("PATH"), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=2000", "MANPATH=", "LANG=C"}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var pages []string
	for _, argv := range [][]string{{"git", "konteks", "--help"}, {"git", "help", "konteks"}, {"man", "git-konteks"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = r.Dir
		cmd.Env = append(testgit.Env(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		pages = append(pages, flat(string(out)))
	}
	if pages[0] != pages[1] || pages[1] != pages[2] {
		t.Fatalf("--help, git help and man differ")
	}
	// Every command's usage and every flag line of -h is in the page.
	app := newApp(&GlobalOptions{})
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		if !strings.Contains(pages[0], flat(c.Usage)) {
			t.Errorf("the page lacks %s's usage %q", c.Name, c.Usage)
		}
		for _, f := range c.VisibleFlags() {
			_, usage, _ := strings.Cut(f.String(), "\t")
			if !strings.Contains(pages[0], flat(usage)) {
				t.Errorf("the page lacks %s's flag %q", c.Name, f.String())
			}
		}
	}
	if !strings.Contains(pages[0], "EXIT STATUS") {
		t.Errorf("no exit status in the page:\n%s", pages[0])
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	out := run(t, r.Dir, "--version")
	for _, want := range []string{
		"git-konteks version ",
		fmt.Sprintf("manifest schema %d", manifest.Schema),
		fmt.Sprintf("file records v%d", memory.RecordVersion),
		fmt.Sprintf("history records v%d", history.Version),
		fmt.Sprintf("local search index: v%d", index.FormatVersion),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--version lacks %q:\n%s", want, out)
		}
	}
}

// TestNoCollectionAtStart: a command that allocates little runs no
// garbage collection, package initialisation included (startheap turns
// collection off before bleve's and enry's tables are built; before it,
// every call collected once before main ran).
func TestNoCollectionAtStart(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "--version")
	cmd.Env = append(withoutEnv(os.Environ(), "GOGC", "GOMEMLIMIT", "GODEBUG"), "GODEBUG=gctrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("--version: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "gc ") {
			t.Errorf("--version collected garbage: %s", line)
		}
	}
}

// TestStartAllocations: package initialisation, paid by every command,
// allocates under 2 MB. Dependencies that built tables at init did
// the most of it: enry's classifier (16 MB before third_party/go-enry),
// bleve's Levenshtein automata (1 MB, before third_party/vellum builds
// them on first use), enry's content heuristics (0.36 MB). A new dependency with a costly init fails here.
func TestStartAllocations(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "--version")
	cmd.Env = append(withoutEnv(os.Environ(), "GODEBUG"), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("--version: %v\n%s", err, stderr.String())
	}
	total, worst, worstBytes := 0, "", 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init <package> @<start> ms, <clock> ms clock, <bytes> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("bad inittrace line %q", line)
		}
		total += n
		if n > worstBytes {
			worst, worstBytes = f[1], n
		}
	}
	if total == 0 {
		t.Fatalf("no inittrace lines:\n%s", stderr.String())
	}
	if total > 2<<20 {
		t.Errorf("package initialisation allocated %d bytes, over 2 MB; the most: %s, %d bytes", total, worst, worstBytes)
	}
}

// withoutEnv is env less the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// bigRepo commits enough files that an extraction takes a while.
func bigRepo(t *testing.T, files int) *testgit.Repo {
	t.Helper()
	r := recallRepo(t)
	extractJSON(t, r.Dir)
	for i := 0; i < files; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i%40)
		for j := 0; j < 15; j++ {
			fmt.Fprintf(&b, "// F%dx%d computes the %dth value of file %d.\nfunc F%dx%d(a, b int) int {\n\tif a > b {\n\t\treturn a - %d\n\t}\n\treturn b + %d\n}\n\n", i, j, j, i, i, j, j, j)
		}
		r.Write(fmt.Sprintf("p%d/f%d.go", i%40, i), b.String())
	}
	r.Commit("many files")
	return r
}

// Ctrl-C (SIGINT to the whole foreground process group, git's children
// included) or SIGTERM during an extraction stops it cleanly: one line,
// exit 130, refs/konteks as it was, and a resume that finishes the job.
func TestInterruptedExtraction(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("generates a large repository")
	}
	r := bigRepo(t, 1500)
	before := r.Git("rev-parse", "refs/konteks")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r.TryGit("update-ref", "-d", "refs/konteks-wip")
			cmd := exec.Command(binary, "extract")
			cmd.Dir = r.Dir
			cmd.Env = append(testgit.Env(), "KONTEKS_CHECKPOINT_EVERY=50")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Mid-extraction: once the first checkpoint is written.
			deadline := time.Now().Add(scaled(60 * time.Second))
			for {
				if _, err := r.TryGit("rev-parse", "-q", "--verify", "refs/konteks-wip"); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no checkpoint before the deadline")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if sig == syscall.SIGINT {
				syscall.Kill(-cmd.Process.Pid, sig) // what a terminal's Ctrl-C does
			} else {
				cmd.Process.Signal(sig)
			}
			err := cmd.Wait()
			want := "git-konteks: interrupted; memory unchanged (run `git konteks extract --mode resume` to continue)"
			if code := exitCode(t, err); code != 130 || strings.TrimSpace(errb.String()) != want || out.String() != "" {
				t.Fatalf("exit %d\nstderr %q\nstdout %q", code, errb.String(), out.String())
			}
			if now := r.Git("rev-parse", "refs/konteks"); now != before {
				t.Fatalf("refs/konteks moved from %s to %s", before, now)
			}
		})
	}
	rep := extractJSON(t, r.Dir, "--mode", "resume")
	if rep.Manifest.SourceCommit != r.Git("rev-parse", "HEAD") || rep.Manifest.Totals.Included != 1503 {
		t.Fatalf("resume: %+v", rep.Manifest.Totals)
	}
	if out, err := r.TryGit("fsck", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
}

// With --json a failure is one JSON object on stderr with a stable code.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	nowhere := t.TempDir()
	for _, tc := range []struct {
		dir  string
		args []string
		code string
		exit int
	}{
		{nowhere, []string{"status", "--json"}, "not_a_repository", 1},
		{nowhere, []string{"init", "--json"}, "not_a_repository", 1},
		{r.Dir, []string{"recall", "--json", "retries"}, "no_memory", 1},
		{r.Dir, []string{"recall", "--json", "-n", "0", "retries"}, "usage", 2},
		{r.Dir, []string{"recal", "--json", "retries"}, "unknown_command", 2},
		{r.Dir, []string{"remember", "--json", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for ci"}, "rejected", 1},
	} {
		out, errOut, err := tryRun(tc.dir, nil, tc.args...)
		var e struct {
			Error, Message string
			Exit           int
		}
		if jerr := json.Unmarshal([]byte(errOut), &e); jerr != nil {
			t.Errorf("%v: stderr is not one JSON object: %v\n%s", tc.args, jerr, errOut)
			continue
		}
		if code := exitCode(t, err); code != tc.exit || e.Error != tc.code || e.Exit != tc.exit || e.Message == "" || out != "" {
			t.Errorf("%v: exit %d, %+v, stdout %q; want %s exit %d", tc.args, code, e, out, tc.code, tc.exit)
		}
	}
	// A running extraction holds the lock: --no-wait says "locked".
	lock := holdExtractLock(t, r.Dir)
	_, errOut, err := tryRun(r.Dir, nil, "extract", "--json", "--no-wait")
	lock.Unlock()
	if code := exitCode(t, err); code != 1 || !strings.Contains(errOut, `"error":"locked"`) {
		t.Fatalf("extract --no-wait under the lock: exit %d, %s", code, errOut)
	}
	// Without --json the same error is one line of text.
	_, errOut, _ = tryRun(nowhere, nil, "status")
	if strings.TrimSpace(errOut) != "git-konteks: not a git repository (or any parent up to the root)" {
		t.Fatalf("text error %q", errOut)
	}
}

// holdExtractLock takes the lock an extraction holds, as a running one
// would.
func holdExtractLock(t *testing.T, dir string) *gitstore.Lock {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	lock, _, err := repo.TryLock("extract")
	if err != nil {
		t.Fatal(err)
	}
	return lock
}

func TestInitJSON(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	var out struct {
		Hooks []struct {
			Name      string
			Installed bool
		}
		Remotes []any
		Extract *struct {
			Commit   string
			Manifest struct {
				SourceCommit string `json:"source_commit"`
			}
		}
	}
	if err := json.Unmarshal([]byte(run(t, r.Dir, "init", "--json", "--no-fetch")), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Hooks) != len(hooks.Names) || !out.Hooks[0].Installed || out.Remotes == nil || out.Extract == nil ||
		out.Extract.Manifest.SourceCommit != r.Git("rev-parse", "HEAD") || out.Extract.Commit != r.Git("rev-parse", "refs/konteks") {
		t.Fatalf("init --json: %+v", out)
	}
}

// Limits below 1 are refused; saved memories have their own field and are
// not counted by --limit; a task of "-" is read from stdin.
func TestRecallLimitsMemoriesAndStdin(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	extractJSON(t, r.Dir)
	for _, n := range []string{"0", "-5"} {
		_, errOut, err := tryRun(r.Dir, nil, "recall", "-n", n, "retry delay")
		if code := exitCode(t, err); code != 2 || !strings.Contains(errOut, "at least 1") {
			t.Fatalf("-n %s: exit %d, %q", n, code, errOut)
		}
	}
	run(t, r.Dir, "remember", "--kind", "decision", "Retry delay doubles after each failed attempt, capped at ten seconds")
	res := recallJSONAll(t, r.Dir, "--limit", "1", "retry delay doubles after a failed attempt")
	if len(res.Hits) != 1 || res.Hits[0].Path != "fetch/fetch.go" || res.Hits[0].StartLine == 0 {
		t.Fatalf("--limit 1 hits: %+v", res.Hits)
	}
	if len(res.Memories) != 1 || res.Memories[0].Kind != "decision" || !strings.Contains(res.Memories[0].Text, "capped at ten seconds") {
		t.Fatalf("memories: %+v", res.Memories)
	}
	if res.Memory.SourceCommit != r.Git("rev-parse", "HEAD") {
		t.Fatalf("memory state: %+v", res.Memory)
	}

	task := "how long to wait\nbetween retries of a failed attempt\n"
	stdin := func(args ...string) string {
		out, errOut, err := runInProcess(r.Dir, task, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}
	if got, want := stdin("recall", "-"), run(t, r.Dir, "recall", strings.TrimSpace(task)); got != want {
		t.Fatalf("recall - differs from the task given as an argument:\n%s\n---\n%s", got, want)
	}
	if got, want := stdin("context", "-"), run(t, r.Dir, "context", strings.TrimSpace(task)); got != want || !strings.Contains(got, "Backoff") {
		t.Fatalf("context - differs from the task given as an argument:\n%s\n---\n%s", got, want)
	}
}

// core.hooksPath pointing at a tracked directory (husky): the hooks written
// there name no path of this machine, a warning says why, and they still
// keep memory current here and, from PATH, on a teammate's machine.
func TestHooksInTrackedDirectory(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	// Hooks in .git/hooks keep naming this executable, without a warning.
	if _, errOut, err := tryRun(r.Dir, nil, "hooks", "install"); err != nil || errOut != "" {
		t.Fatalf("install in .git/hooks: %v, stderr %q", err, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "hooks", "post-commit")); !strings.Contains(string(b), binary) {
		t.Fatalf(".git/hooks/post-commit does not name %s:\n%s", binary, b)
	}
	if _, err := r.TryGit("config", "--get", "konteks.hooks.bin"); err == nil {
		t.Fatal("konteks.hooks.bin set for hooks outside the work tree")
	}
	run(t, r.Dir, "hooks", "uninstall")
	r.Write(".husky/pre-commit", "#!/bin/sh\nexit 0\n")
	r.Commit("husky")
	r.Git("config", "core.hooksPath", ".husky")
	extractJSON(t, r.Dir)
	_, errOut, err := tryRun(r.Dir, nil, "hooks", "install")
	if err != nil || !strings.Contains(errOut, "warning: core.hooksPath .husky is inside the work tree") {
		t.Fatalf("install: %v, stderr %q", err, errOut)
	}
	for _, n := range []string{"post-commit", "post-merge", "post-rewrite", "post-checkout"} {
		b, err := os.ReadFile(filepath.Join(r.Dir, ".husky", n))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, filepath.Dir(binary)) || strings.Contains(s, r.Dir) || strings.Contains(s, "'/") {
			t.Fatalf("%s names an absolute path:\n%s", n, b)
		}
	}
	if got := r.Git("config", "--get", "konteks.hooks.bin"); got == "" {
		t.Fatal("the executable is not recorded in local config")
	}
	r.Write("fetch/retry.go", "package fetch\n\n// Retry runs fn until it succeeds.\nfunc Retry(fn func() error) {}\n")
	waitForMemory(t, r, r.Commit("retry"))

	// A teammate's clone: no local config, git-konteks on PATH.
	r.Git("config", "--unset", "konteks.hooks.bin")
	pathDir := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(pathDir, "git-konteks")); err != nil {
		t.Fatal(err)
	}
	r.Write("fetch/more.go", "package fetch\n\n// More fetches more.\nfunc More() {}\n")
	r.Git("add", "-A")
	commit := exec.Command("git", "commit", "-q", "-m", "more")
	commit.Dir = r.Dir
	commit.Env = append(testgit.Env(), "PATH="+pathDir+":"+os.Getenv("PATH"))
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	waitForMemory(t, r, r.Git("rev-parse", "HEAD"))

	run(t, r.Dir, "hooks", "uninstall")
	if _, err := r.TryGit("config", "--get", "konteks.hooks.bin"); err == nil {
		t.Fatal("uninstall left konteks.hooks.bin")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".husky", "post-commit")); err == nil {
		t.Fatal("uninstall left the hook")
	}
}

// The help texts say what the code does.
func TestHelpAgreesWithCode(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	if out := run(t, r.Dir, "help", "recall"); recall.DefaultRanking.Fusion == recall.FuseScores && strings.Contains(out, "reciprocal rank") {
		t.Errorf("recall help names reciprocal rank fusion; the ranking fuses scores:\n%s", out)
	}
	if out := run(t, r.Dir, "help", "mcp"); !strings.Contains(out, strconv.Itoa(len(mcp.Tools))+" tools (") {
		t.Errorf("mcp help does not count %d tools:\n%s", len(mcp.Tools), out)
	}
	for _, cmd := range []string{"recall", "context"} {
		if out := run(t, r.Dir, "help", cmd); !strings.Contains(out, "--refresh  ") || strings.Contains(out, "--refresh changed") {
			t.Errorf("%s help shows --refresh as taking a value:\n%s", cmd, out)
		}
	}
	if out := run(t, r.Dir, "help", "extract"); strings.Contains(out, "(default: 0)") || !strings.Contains(out, "(default: number of CPUs)") {
		t.Errorf("extract help on --workers:\n%s", out)
	}
	// remember's help says a duplicate exits 0; it does.
	if out := run(t, r.Dir, "help", "remember"); !strings.Contains(out, "exits 0") {
		t.Errorf("remember help on duplicates:\n%s", out)
	}
	extractJSON(t, r.Dir)
	run(t, r.Dir, "remember", "Backoff doubles the delay")
	if out, _, err := tryRun(r.Dir, nil, "remember", "Backoff doubles the delay"); exitCode(t, err) != 0 || !strings.Contains(out, "already remembered") {
		t.Errorf("duplicate remember: %v %q", err, out)
	}
}

// docs/cli.md lists every error code the command line can print.
func TestErrorCodesDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{"usage", "unknown_command", "interrupted", "error"}
	for _, c := range errorCodes {
		codes = append(codes, c.code)
	}
	for _, c := range codes {
		if !strings.Contains(string(b), "| `"+c+"` |") {
			t.Errorf("docs/cli.md does not document the error code %s", c)
		}
	}
}

// TestEveryRegexpCompiles compiles every package-level expression of the
// binary, which are compiled on first use (internal/lazyre): one that
// does not compile fails here, not in someone's run.
func TestEveryRegexpCompiles(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
