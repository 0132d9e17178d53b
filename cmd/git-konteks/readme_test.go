package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// runnableMarker marks a README block the doc test runs: an HTML comment
// (invisible when the README is rendered) alone on the line before a
// fenced ```sh block. Blocks without it (installation, cloning from the
// network) are shown, not run.
const runnableMarker = "<!-- runnable -->"

// readmeBlock is one runnable block: its commands, and the README line its
// fence opens on (for failure messages).
type readmeBlock struct {
	line  int
	lines []string
}

// runnableBlocks returns the README's runnable sh blocks in order. A
// marker not followed by a ```sh fence, or a fence left open, is an error:
// a typo must not quietly take a block out of the test.
func runnableBlocks(path string) ([]readmeBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		blocks []readmeBlock
		cur    *readmeBlock
		marked bool
		n      int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		case marked:
			if strings.TrimSpace(line) != "```sh" {
				return nil, fmt.Errorf("%s:%d: %s must be followed by a ```sh fence", path, n, runnableMarker)
			}
			cur, marked = &readmeBlock{line: n}, false
		case strings.TrimSpace(line) == runnableMarker:
			marked = true
		}
	}
	if cur != nil || marked {
		return nil, fmt.Errorf("%s: a runnable block is not closed", path)
	}
	return blocks, sc.Err()
}

// TestReadme runs every runnable block of the README, in order, as a user
// following it would: in a clone of this project's own repository (the
// walk-through's "real repository"), with real git and this test's binary
// on PATH as git-konteks, so `git konteks` is the command under test. Each
// block runs in `sh -e` from the clone's top directory, so any failing
// command fails the test. The clone's origin is removed first: the
// walk-through's team part uses a bare repository beside the clone, and
// nothing may be pushed to or configured on the checkout the test runs in.
func TestReadme(t *testing.T) {
	t.Parallel()
	blocks, err := runnableBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 5 {
		t.Fatalf("README has %d runnable blocks; the walk-through and team set-up must be runnable", len(blocks))
	}
	src, err := exec.Command("git", "-C", "../..", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("the README walk-through runs on this project's repository, and none was found: %v", err)
	}
	root := t.TempDir()
	work := filepath.Join(root, "git-konteks")
	clone := exec.Command("git", "clone", "-q", strings.TrimSpace(string(src)), work)
	clone.Env = testgit.Env()
	if out, err := clone.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = work, testgit.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("remote", "remove", "origin")

	// The runner the hooks start works in the background: let it finish
	// before the temporary directory is removed.
	t.Cleanup(func() { waitRunners(t, root) })
	path := filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH")
	env := append(testgit.Env(), "PATH="+path, "HOME="+root)
	for _, b := range blocks {
		script := strings.Join(b.lines, "\n") + "\n"
		cmd := exec.Command("sh", "-e", "-c", script)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README.md:%d: %v\n%s\noutput:\n%s", b.line, err, script, out)
		}
		t.Logf("README.md:%d ok (%d lines of output)", b.line, strings.Count(string(out), "\n"))
		if os.Getenv("KONTEKS_README_OUTPUT") != "" {
			t.Logf("%s", out)
		}
	}
	// The team set-up worked end to end: the teammate's saved constraint
	// reached the first clone through the bare remote.
	if out := run(t, work, "memories"); !strings.Contains(out, "Never force-push") {
		t.Fatalf("the teammate's memory did not arrive:\n%s", out)
	}
}

// waitRunners waits (up to 60 s) until no hooks runner holds its lock in
// any repository under root and none has a request pending. A request
// whose runner has not yet taken its lock (or made the lock file) counts
// as busy: the runner is about to write there. The lock is read, never
// taken (see runnerActive).
func waitRunners(t *testing.T, root string) {
	states, _ := filepath.Glob(filepath.Join(root, "*", ".git", "konteks"))
	deadline := time.Now().Add(scaled(60 * time.Second))
	for _, dir := range states {
		lock, pending := filepath.Join(dir, "runner.lock"), filepath.Join(dir, "pending")
		for {
			if !lockHolderAlive(lock) {
				if _, err := os.Stat(pending); err != nil {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Logf("a hooks runner is still busy in %s", dir)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// docLink is a Markdown link's target: [text](target).
var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks checks that every relative link in the README and the
// manual pages names a file that exists, so pages cannot point at pages
// that were renamed or never written. Anchors (#...) are not checked.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../docs/*/*.md")
	pages = append(append(pages, more...), "../../README.md", "../../CHANGELOG.md")
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", strings.TrimPrefix(page, "../../"), m[1])
			}
		}
	}
}

// configKey is a konteks.* git config key as the code names it.
var configKey = regexp.MustCompile(`\bkonteks\.[a-zA-Z]+(\.[a-zA-Z]+)?`)

// TestReadmeConfigKeys checks that the README's configuration table names
// every konteks.* key the code reads (in its code or doc comments), so a
// new key cannot go undocumented. A two-part name that begins longer keys
// (konteks.embed) is a section, not a key.
func TestReadmeConfigKeys(t *testing.T) {
	t.Parallel()
	keys := map[string]bool{}
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "third_party" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, k := range configKey.FindAllString(string(b), -1) {
			keys[strings.ToLower(k)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := strings.ToLower(string(readme))
	for k := range keys {
		section := false
		for other := range keys {
			section = section || strings.HasPrefix(other, k+".")
		}
		if !section && !strings.Contains(table, "| `"+k+"` |") {
			t.Errorf("the README's configuration table has no row for %s", k)
		}
	}
	if len(keys) < 20 {
		t.Fatalf("found only %d konteks.* keys in the code: is the walk right?", len(keys))
	}
}
