package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

func mixedRepo(t *testing.T) *testgit.Repo {
	t.Helper()
	r := testgit.New(t)
	r.CopyTree(filepath.Join("..", "..", "testdata", "repos", "mixed"))
	r.Commit("import mixed fixture")
	return r
}

// assertMatchesRebuild proves incremental memory is exactly what a fresh
// extraction of the same commit makes: the same records (by hash), the same
// skip list, the same totals.
func assertMatchesRebuild(t *testing.T, r *testgit.Repo) {
	t.Helper()
	incFiles := r.Git("rev-parse", "refs/konteks:files")
	incSkipped, _ := r.TryGit("rev-parse", "refs/konteks:skipped")
	incDirs, _ := r.TryGit("rev-parse", "refs/konteks:dirs")
	incModules, _ := r.TryGit("rev-parse", "refs/konteks:modules")
	incProject, _ := r.TryGit("rev-parse", "refs/konteks:project.json")
	var inc, reb extractReport
	if err := json.Unmarshal([]byte(run(t, r.Dir, "manifest", "--json")), &inc.Manifest); err != nil {
		t.Fatal(err)
	}
	reb = extractJSON(t, r.Dir, "--mode", "rebuild")
	if got := r.Git("rev-parse", "refs/konteks:files"); got != incFiles {
		t.Logf("inc:\n%s\nreb:\n%s", r.Git("ls-tree", "-r", incFiles), r.Git("ls-tree", "-r", got))
		t.Errorf("incremental files/ tree %s differs from rebuilt %s", incFiles, got)
	}
	if got, _ := r.TryGit("rev-parse", "refs/konteks:skipped"); got != incSkipped {
		t.Errorf("incremental skip list differs from rebuilt one")
	}
	if got, _ := r.TryGit("rev-parse", "refs/konteks:modules"); got != incModules {
		t.Errorf("incremental modules differ from rebuilt ones:\n%s", r.Git("diff", incModules, got))
	}
	if got, _ := r.TryGit("rev-parse", "refs/konteks:project.json"); got != incProject {
		t.Errorf("incremental portrait differs from the rebuilt one:\n%s", r.Git("diff", incProject, got))
	}
	// Directory summaries too (no test directory is wide enough to defer).
	if got, _ := r.TryGit("rev-parse", "refs/konteks:dirs"); got != incDirs {
		t.Errorf("incremental directory summaries differ from rebuilt ones:\n%s", r.Git("diff", "--stat", incDirs, got))
	}
	if !reflect.DeepEqual(inc.Manifest.Totals, reb.Manifest.Totals) {
		t.Errorf("incremental totals differ from rebuilt ones:\n inc %+v\n reb %+v", inc.Manifest.Totals, reb.Manifest.Totals)
	}
}

func TestExtractFullThenChanged(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	head := r.Git("rev-parse", "HEAD")

	rep := extractJSON(t, r.Dir)
	m := rep.Manifest
	if m.Mode != "full" || m.SourceCommit != head {
		t.Fatalf("first run: mode %q source %s, want full of %s", m.Mode, m.SourceCommit, head)
	}
	if m.Totals.Scanned != 12 || m.Totals.Included != 12 || m.Run.Extracted != 12 {
		t.Fatalf("counts: %+v run %+v", m.Totals, m.Run)
	}
	if got := memoryFiles(t, r); len(got) != 12 || got[0] != "CHANGELOG.txt" {
		t.Fatalf("memory files: %v", got)
	}
	// The memory commit: real author, message naming mode and source commit.
	msg := r.Git("log", "-1", "--format=%an <%ae>%n%B", "refs/konteks")
	if !strings.Contains(msg, "Test Author <author@example.invalid>") || !strings.Contains(msg, "full extraction of "+head[:12]) || !strings.Contains(msg, "Source-Commit: "+head) {
		t.Fatalf("memory commit message:\n%s", msg)
	}

	// Nothing changed: up to date, no new commit.
	again := extractJSON(t, r.Dir)
	if !again.UpToDate || again.Commit != rep.Commit {
		t.Fatalf("second run should be up to date: %+v", again)
	}

	// Edit one file, rename another, delete a third.
	r.Write("internal/store/store.go", strings.Replace(readFile(t, r, "internal/store/store.go"), "Store is a concurrency-safe map.", "Store is a map guarded by a mutex.", 1))
	r.Git("mv", "web/app.js", "web/client.js")
	r.Remove("CHANGELOG.txt")
	r.Commit("edit, rename, delete")
	rep2 := extractJSON(t, r.Dir)
	m2 := rep2.Manifest
	if m2.Mode != "changed" || rep2.Previous != rep.Commit {
		t.Fatalf("mode %q previous %s, want changed on top of %s", m2.Mode, rep2.Previous, rep.Commit)
	}
	if m2.Run.Extracted != 1 || m2.Run.Reused != 1 || m2.Run.Removed != 2 {
		t.Fatalf("changed run: want 1 extracted (edit), 1 reused (rename), 2 removed (rename source, delete); got %+v", m2.Run)
	}
	if m2.Totals.Included != 11 || m2.Totals.Scanned != 11 {
		t.Fatalf("totals after change: %+v", m2.Totals)
	}
	// Memory no remote holds is replaced, not stacked on: one commit.
	if n := r.Git("rev-list", "--count", "refs/konteks"); n != "1" {
		t.Fatalf("memory chain holds %s commits, want 1 (nothing was pushed)", n)
	}
	rec := show(t, r.Dir, "internal/store/store.go")
	if !strings.Contains(rec.text(), "guarded by a mutex") || rec.Blob != r.Git("rev-parse", "HEAD:internal/store/store.go") {
		t.Fatalf("edited record is stale: %+v", rec)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "show", "CHANGELOG.txt"); err == nil || !strings.Contains(errOut, "not in memory") {
		t.Fatalf("deleted file still shown: %v %s", err, errOut)
	}
	// Only the changed paths' trees were rewritten: cmd/ is shared.
	if a, b := r.Git("rev-parse", rep.Commit+":files/cmd"), r.Git("rev-parse", "refs/konteks:files/cmd"); a != b {
		t.Fatalf("untouched subtree rewritten: %s vs %s", a, b)
	}
	assertMatchesRebuild(t, r)
}

func TestExtractReadsObjectsNotWorkTree(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	// Uncommitted edits and untracked files must not reach memory.
	r.Write("README.md", "# dirty work tree\n")
	r.Write("untracked.go", "package x\n")
	extractJSON(t, r.Dir)
	if rec := show(t, r.Dir, "README.md"); strings.Contains(rec.text(), "dirty") || !strings.Contains(rec.text(), "Mixed fixture") {
		t.Fatal("memory holds work tree content")
	}
	for _, p := range memoryFiles(t, r) {
		if p == "untracked.go" {
			t.Fatal("untracked file in memory")
		}
	}
	// --rev extracts another commit.
	first := r.Git("rev-parse", "HEAD")
	r.Write("new.txt", "second commit\n")
	r.Commit("second")
	rep := extractJSON(t, r.Dir, "--rev", "HEAD~1", "--mode", "full")
	if rep.Manifest.SourceCommit != first {
		t.Fatalf("--rev HEAD~1 extracted %s, want %s", rep.Manifest.SourceCommit, first)
	}
	st := run(t, r.Dir, "status")
	if !strings.Contains(st, "stale") {
		t.Fatalf("status should say stale:\n%s", st)
	}
}

func TestGateSkipsAndCounts(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END RSA PRIVATE KEY-----\n"
	r.WriteFiles(map[string]string{
		"main.go":                 "package main\n\nfunc main() {}\n",
		".gitignore":              "*.log\nbuild/\n",
		".konteksignore":          "*.snap\n!keep.snap\n",
		"sub/.konteksignore":      "private.md\n",
		"sub/private.md":          "# private\n",
		"sub/public.md":           "# public\n",
		"a.snap":                  "snapshot\n",
		"keep.snap":               "kept snapshot\n",
		".env":                    "TOKEN=abc\n",
		".env.example":            "TOKEN=\n",
		"certs/server.key":        "key\n",
		"id_rsa":                  "key\n",
		"leak.go":                 "package x\n\nconst k = `" + key + "`\n",
		"token.txt":               "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB here\n",
		"placeholder.txt":         "aws key AKIAIOSFODNN7EXAMPLE is the documented example\n",
		"package-lock.json":       "{}\n",
		"go.sum":                  "x v1 h1:abc\n",
		"vendor/lib/lib.go":       "package lib\n",
		"node_modules/x/index.js": "module.exports = 1\n",
		"testdata/case.txt":       "test input stays in\n",
		"gen.go":                  "// Code generated by stringer; DO NOT EDIT.\n\npackage x\n",
		"attr/gen.txt":            "not generated by content\n",
		".gitattributes":          "attr/gen.txt linguist-generated\nvendor/lib/keep.go -linguist-vendored\n",
		"vendor/lib/keep.go":      "package lib // kept by attribute\n",
		"web/app.min.js":          "var a=1;\n",
		"archive.zip":             "PK\x03\x04",
		"blob.dat":                "abc\x00def",
		"empty.txt":               "",
		"lfs.bin.txt":             "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
		"big.txt":                 strings.Repeat("x", 10<<20+1),
		"debug.log":               "log line\n",
		"build/out.txt":           "build output\n",
	})
	r.Git("add", "-A")
	r.Git("add", "-f", "debug.log", "build/out.txt") // force-added files that .gitignore names
	r.Commit("gate fixture")
	_ = os.Symlink("main.go", filepath.Join(r.Dir, "link.go"))
	r.Git("add", "link.go")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+r.Git("rev-parse", "HEAD")+",sub/module")
	r.Git("commit", "-q", "-m", "symlink and gitlink")

	m := extractJSON(t, r.Dir).Manifest
	want := map[string]int{
		"ignored": 4, "secret-file": 3, "secret": 2, "lockfile": 2, "vendored": 2,
		"generated": 2, "minified": 1, "binary": 2, "empty": 1, "lfs-pointer": 1,
		"too-large": 1, "symlink": 1, "submodule": 1,
	}
	if !reflect.DeepEqual(m.Totals.Skipped, want) {
		t.Errorf("skipped by reason:\n got %v\nwant %v", m.Totals.Skipped, want)
	}
	files := memoryFiles(t, r)
	sort.Strings(files)
	// .gitignore and .gitattributes are the project's own (linguist's
	// vendor list dropped them); vendor/ and node_modules/ are not.
	wantFiles := []string{".env.example", ".gitattributes", ".gitignore", ".konteksignore", "keep.snap", "main.go", "placeholder.txt", "sub/.konteksignore", "sub/public.md", "testdata/case.txt", "vendor/lib/keep.go"}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("included files:\n got %v\nwant %v", files, wantFiles)
	}
	// Nothing secret is anywhere in the memory ref.
	for _, p := range []string{"token.txt", "leak.go", ".env", "id_rsa"} {
		if _, errOut, err := tryRun(r.Dir, nil, "show", p); err == nil || !strings.Contains(errOut, "skipped by the gate") {
			t.Errorf("show %s: want a gate explanation, got %v %s", p, err, errOut)
		}
	}
	if grep, _ := r.TryGit("grep", "-c", "PRIVATE KEY", "refs/konteks"); grep != "" {
		t.Errorf("private key found in memory: %s", grep)
	}
	if m.Totals.Scanned != 34 || m.Totals.Included != len(wantFiles) {
		t.Errorf("scanned %d included %d", m.Totals.Scanned, m.Totals.Included)
	}
}

func TestIgnoreRuleChangeRegates(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.WriteFiles(map[string]string{".konteksignore": "*.txt\n", "a.txt": "alpha\n", "b.md": "# b\n", "docs/c.txt": "gamma\n"})
	r.Commit("ignore txt")
	m := extractJSON(t, r.Dir).Manifest
	if m.Totals.Included != 2 || m.Totals.Skipped["ignored"] != 2 {
		t.Fatalf("before: %+v", m.Totals)
	}
	r.Write(".konteksignore", "docs/\n")
	r.Commit("ignore docs instead")
	m = extractJSON(t, r.Dir).Manifest
	if m.Mode != "full" || !strings.Contains(m.Reason, "rules changed") {
		t.Fatalf("a rule change should re-gate: mode %s reason %q", m.Mode, m.Reason)
	}
	if m.Totals.Included != 3 || m.Totals.Skipped["ignored"] != 1 || m.Run.Extracted != 2 {
		t.Fatalf("after: totals %+v run %+v", m.Totals, m.Run)
	}
	assertMatchesRebuild(t, r)
}

func TestRenameAndRevertReuseRecords(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	extractJSON(t, r.Dir)
	r.Git("mv", "internal", "pkg")
	r.Commit("move internal to pkg")
	m := extractJSON(t, r.Dir).Manifest
	if m.Run.Extracted != 0 || m.Run.Reused != 2 {
		t.Fatalf("a directory rename must reuse records: %+v", m.Run)
	}
	// Full mode reuses unchanged records without reading their blobs.
	m = extractJSON(t, r.Dir, "--mode", "full").Manifest
	if m.Run.Extracted != 0 || m.Run.BytesRead != 0 {
		t.Fatalf("full run over unchanged memory re-extracted: %+v", m.Run)
	}
	assertMatchesRebuild(t, r)
}

func TestRebuildKeepsDurable(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	extractJSON(t, r.Dir)
	// Add a durable memory to refs/konteks with plumbing, as `remember` will.
	blob := r.GitStdin("decision: keep the store in memory\n", "hash-object", "-w", "--stdin")
	r.Git("read-tree", "--index-output="+filepath.Join(r.Dir, ".git", "tmp-index"), "refs/konteks")
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(r.Dir, ".git", "tmp-index")}
	git := func(args ...string) string {
		out, errOut, err := runGitEnv(r.Dir, idx, args...)
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, errOut)
		}
		return out
	}
	git("update-index", "--add", "--cacheinfo", "100644,"+blob+",durable/memories/ab/abc123")
	tree := git("write-tree")
	c := r.Git("commit-tree", tree, "-p", "refs/konteks", "-m", "remember")
	r.Git("update-ref", "refs/konteks", c)

	m := extractJSON(t, r.Dir, "--mode", "rebuild").Manifest
	if m.Mode != "rebuild" || m.Run.Extracted != 12 {
		t.Fatalf("rebuild: %+v", m.Run)
	}
	if got := r.Git("cat-file", "-p", "refs/konteks:durable/memories/ab/abc123"); got != "decision: keep the store in memory" {
		t.Fatalf("durable memory lost by rebuild: %q", got)
	}
	// And by full and changed runs.
	r.Write("x.txt", "x\n")
	r.Commit("x")
	extractJSON(t, r.Dir)
	extractJSON(t, r.Dir, "--mode", "full")
	if _, err := r.TryGit("cat-file", "-e", "refs/konteks:durable/memories/ab/abc123"); err != nil {
		t.Fatal("durable memory lost by a later run")
	}
}

func TestResumeAfterKill(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	for i := 0; i < 60; i++ {
		r.Write(filepath.Join("pkg", "f"+itoa(i)+".go"), "package pkg\n\nfunc F"+itoa(i)+"() int { return "+itoa(i)+" }\n")
	}
	r.Commit("sixty files")
	// Kill -9 right after the second checkpoint (every 10 files).
	env := []string{"KONTEKS_CHECKPOINT_EVERY=10", "KONTEKS_TEST_KILL_AFTER_CHECKPOINT=2", "KONTEKS_NO_GIT_CLI="}
	_, _, err := tryRun(r.Dir, env, "extract", "--workers", "1")
	if err == nil {
		t.Fatal("the killed run exited cleanly")
	}
	if _, err := r.TryGit("rev-parse", "-q", "--verify", "refs/konteks"); err == nil {
		t.Fatal("refs/konteks moved although the run was killed")
	}
	done := r.Git("ls-tree", "-r", "--name-only", "refs/konteks-wip", "files/")
	if n := len(strings.Split(done, "\n")); n < 20 || n >= 60 {
		t.Fatalf("checkpoint holds %d files, want 20..59", n)
	}
	st := run(t, r.Dir, "status")
	if !strings.Contains(st, "--mode resume") {
		t.Fatalf("status should suggest resume:\n%s", st)
	}
	m := extractJSON(t, r.Dir, "--mode", "resume").Manifest
	if m.Run.Reused < 20 || m.Run.Extracted+m.Run.Reused != 60 || m.Totals.Included != 60 {
		t.Fatalf("resume: %+v totals %+v", m.Run, m.Totals)
	}
	if _, err := r.TryGit("rev-parse", "-q", "--verify", "refs/konteks-wip"); err == nil {
		t.Fatal("checkpoint ref left behind after resume")
	}
	assertMatchesRebuild(t, r)
}

func TestConcurrentExtractions(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	outs := make([]string, 3)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i], _, errs[i] = tryRun(r.Dir, nil, "extract", "--json")
		}(i)
	}
	wg.Wait()
	made := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("extraction %d failed: %v", i, err)
		}
		var rep extractReport
		json.Unmarshal([]byte(outs[i]), &rep)
		if !rep.UpToDate {
			made++
		}
	}
	if made != 1 {
		t.Fatalf("%d extractions made memory commits; the lock should make it one", made)
	}
	if n := r.Git("rev-list", "--count", "refs/konteks"); n != "1" {
		t.Fatalf("memory history has %s commits", n)
	}
}

func TestBareWorktreeAndGitDir(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	head := r.Git("rev-parse", "HEAD")

	bare := filepath.Join(t.TempDir(), "bare.git")
	r.Git("clone", "-q", "--bare", r.Dir, bare)
	if m := extractJSON(t, bare).Manifest; m.SourceCommit != head || m.Totals.Included != 12 {
		t.Fatalf("bare: %+v", m)
	}

	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "feature", wt)
	w := testgit.At(t, wt)
	w.Write("feature.md", "# feature\n")
	fh := w.Commit("feature work")
	if m := extractJSON(t, wt).Manifest; m.SourceCommit != fh {
		t.Fatalf("worktree extracted %s, want its own HEAD %s", m.SourceCommit, fh)
	}
	// Memory lives in the common dir: the main checkout sees it.
	if got := r.Git("rev-parse", "refs/konteks"); got == "" {
		t.Fatal("no memory visible from the main worktree")
	}
	if rec := show(t, filepath.Join(wt), "feature.md"); rec.Kind != "markdown" {
		t.Fatalf("show in worktree: %+v", rec)
	}

	elsewhere := t.TempDir()
	out, errOut, err := tryRun(elsewhere, []string{"GIT_DIR=" + filepath.Join(r.Dir, ".git")}, "status", "--json")
	if err != nil || !strings.Contains(out, fh) {
		t.Fatalf("GIT_DIR status: %v %s %s", err, out, errOut)
	}
	if _, errOut, err := tryRun(elsewhere, nil, "status"); err == nil || !strings.Contains(errOut, "not a git repository") {
		t.Fatalf("outside a repository: %v %s", err, errOut)
	}
}

func TestMissingBlobIsCountedNotFatal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     []string
		partial bool
	}{
		{"cat-file", nil, false},
		{"go-git", []string{"KONTEKS_NO_GIT_CLI=1"}, false},
		{"partial-clone", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testgit.New(t)
			for i := 0; i < 40; i++ { // enough to use the cat-file reader
				r.Write("f"+itoa(i)+".txt", "file "+itoa(i)+"\n")
			}
			r.Write("gone.txt", "this blob will vanish\n")
			r.Commit("files")
			id := r.Git("rev-parse", "HEAD:gone.txt")
			if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", id[:2], id[2:])); err != nil {
				t.Fatal(err)
			}
			if tc.partial {
				// A promisor remote that cannot be reached: nothing may try it.
				r.Git("config", "remote.origin.url", "file:///nonexistent/promisor")
				r.Git("config", "remote.origin.promisor", "true")
				r.Git("config", "core.repositoryformatversion", "1")
				r.Git("config", "extensions.partialclone", "origin")
			}
			out, errOut, err := tryRun(r.Dir, tc.env, "extract", "--json", "--mode", "full")
			if err != nil {
				t.Fatalf("extract: %v\n%s", err, errOut)
			}
			var rep extractReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if m := rep.Manifest; m.Totals.Skipped["missing"] != 1 || m.Totals.Included != 40 {
				t.Fatalf("missing blob: %+v", m.Totals)
			}
		})
	}
}

func TestCorruptMemory(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	extractJSON(t, r.Dir)
	// Replace one record by garbage, as a hostile or broken peer might.
	bad := r.GitStdin("this is not zstd", "hash-object", "-w", "--stdin")
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(r.Dir, ".git", "tmp-index")}
	runGitEnv(r.Dir, idx, "read-tree", "refs/konteks")
	runGitEnv(r.Dir, idx, "update-index", "--cacheinfo", "100644,"+bad+",files/internal/store/store.go")
	tree, _, _ := runGitEnv(r.Dir, idx, "write-tree")
	c := r.Git("commit-tree", strings.TrimSpace(tree), "-p", "refs/konteks", "-m", "corrupt")
	r.Git("update-ref", "refs/konteks", c)

	_, errOut, err := tryRun(r.Dir, nil, "show", "internal/store/store.go")
	if err == nil || !strings.Contains(errOut, "corrupt") || !strings.Contains(errOut, "rebuild") {
		t.Fatalf("show of a corrupt record: %v %s", err, errOut)
	}
	// A changed run that touches the corrupt record says how to recover.
	r.Write("internal/store/store.go", "package store\n")
	r.Commit("touch")
	if _, errOut, err := tryRun(r.Dir, nil, "extract"); err == nil || !strings.Contains(errOut, "rebuild") {
		t.Fatalf("extract over a corrupt record: %v %s", err, errOut)
	}
	// Rebuild recovers.
	if m := extractJSON(t, r.Dir, "--mode", "rebuild").Manifest; m.Totals.Included != 12 {
		t.Fatalf("rebuild: %+v", m.Totals)
	}
	if rec := show(t, r.Dir, "internal/store/store.go"); rec.Lines != 1 {
		t.Fatalf("after rebuild: %+v", rec)
	}

	// A corrupt manifest: status explains, extract refuses, rebuild recovers.
	junk := r.GitStdin("{not json", "hash-object", "-w", "--stdin")
	runGitEnv(r.Dir, idx, "read-tree", "refs/konteks")
	runGitEnv(r.Dir, idx, "update-index", "--cacheinfo", "100644,"+junk+",manifest.json")
	tree, _, _ = runGitEnv(r.Dir, idx, "write-tree")
	c = r.Git("commit-tree", strings.TrimSpace(tree), "-p", "refs/konteks", "-m", "corrupt manifest")
	r.Git("update-ref", "refs/konteks", c)
	if st := run(t, r.Dir, "status"); !strings.Contains(st, "rebuild") {
		t.Fatalf("status of corrupt memory:\n%s", st)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "extract"); err == nil || !strings.Contains(errOut, "--mode rebuild") {
		t.Fatalf("extract over corrupt manifest: %v %s", err, errOut)
	}
	extractJSON(t, r.Dir, "--mode", "rebuild")
}

func TestShowAndStatusOutput(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	if _, errOut, err := tryRun(r.Dir, nil, "show", "README.md"); err == nil || !strings.Contains(errOut, "git konteks extract") {
		t.Fatalf("show before any extraction: %v %s", err, errOut)
	}
	extractJSON(t, r.Dir)
	out := run(t, filepath.Join(r.Dir, "internal"), "show", "store/store.go") // relative to the current directory
	if !strings.Contains(out, "internal/store/store.go") || !strings.Contains(out, "Go") {
		t.Fatalf("show output:\n%s", out)
	}
	st := run(t, r.Dir, "status")
	if !strings.Contains(st, "up to date") || !strings.Contains(st, "12 included") {
		t.Fatalf("status:\n%s", st)
	}
	man := run(t, r.Dir, "manifest")
	for _, want := range []string{"source commit:", "mode:           full", "timings:"} {
		if !strings.Contains(man, want) {
			t.Fatalf("manifest lacks %q:\n%s", want, man)
		}
	}
	if _, errOut, err := tryRun(r.Dir, nil, "extract", "--mode", "sideways"); err == nil || !strings.Contains(errOut, "unknown mode") {
		t.Fatalf("bad mode: %v %s", err, errOut)
	}
}

func readFile(t *testing.T, r *testgit.Repo, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(i int) string { return strconv.Itoa(i) }

func runGitEnv(dir string, env []string, args ...string) (string, string, error) {
	cmd := execGit(dir, env, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return strings.TrimSpace(out.String()), errb.String(), err
}

// TestKillAtRandomPoints kills extractions with SIGKILL at random moments:
// refs/konteks must always name complete memory (or none), and resume must
// finish the work to exactly what a clean run makes.
func TestKillAtRandomPoints(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	for i := 0; i < 400; i++ {
		r.Write(filepath.Join("pkg"+itoa(i%9), "f"+itoa(i)+".go"), "package pkg\n\n// F"+itoa(i)+" returns its number.\nfunc F"+itoa(i)+"() int { return "+itoa(i)+" }\n")
	}
	r.Commit("many files")
	seed := time.Now().UnixNano()
	if s, err := strconv.ParseInt(os.Getenv("KONTEKS_TEST_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (KONTEKS_TEST_SEED=%d replays these kill points)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	// Six kills here; `make soak` goes on for minutes.
	budget, soaking := testgit.Soak(t, 0)
	deadline := time.Now().Add(budget)
	for round := 0; round < 6 || soaking && time.Now().Before(deadline); round++ {
		cmd := exec.Command(binary, "extract", "--mode", "rebuild", "--workers", "1")
		cmd.Dir = r.Dir
		cmd.Env = append(testgit.Env(), "KONTEKS_CHECKPOINT_EVERY=25")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(400)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		// Whatever refs/konteks names is complete and consistent.
		if _, err := r.TryGit("rev-parse", "-q", "--verify", "refs/konteks"); err == nil {
			var m extractReport
			if err := json.Unmarshal([]byte(run(t, r.Dir, "manifest", "--json")), &m.Manifest); err != nil {
				t.Fatalf("round %d: manifest unreadable after kill: %v", round, err)
			}
			if n := len(memoryFiles(t, r)); n != m.Manifest.Totals.Included {
				t.Fatalf("round %d: ref names %d records, manifest says %d", round, n, m.Manifest.Totals.Included)
			}
		}
		if out, err := r.TryGit("fsck", "--no-dangling", "--connectivity-only"); err != nil {
			t.Fatalf("round %d: fsck: %v\n%s", round, err, out)
		}
	}
	extractJSON(t, r.Dir, "--mode", "resume")
	if st := run(t, r.Dir, "status", "--json"); !strings.Contains(st, `"stale": false`) {
		t.Fatalf("after resume:\n%s", st)
	}
	assertMatchesRebuild(t, r)
}
