package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/recall"
)

// TestRepoList checks the committed list: it parses, every issue set
// belongs to a listed repository of the dev or test split, and every
// language of the test split is also in the dev split (the split is by
// repository, not by language).
func TestRepoList(t *testing.T) {
	list, err := readRepos("repos.tsv")
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]string{}
	langs := map[string]map[string]bool{}
	for _, s := range list {
		sets[s.Name] = s.Set
		if langs[s.Set] == nil {
			langs[s.Set] = map[string]bool{}
		}
		langs[s.Set][s.Lang] = true
	}
	files, _ := filepath.Glob(filepath.Join("issues", "*.jsonl"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if s := sets[name]; s != splitDev && s != splitTest {
			t.Errorf("%s: issue set of a repository that is in no dev or test split of repos.tsv", f)
		}
	}
	for l := range langs[splitTest] {
		if !langs[splitDev][l] {
			t.Errorf("language %s is in the test split only", l)
		}
	}
	if len(langs[splitTest]) < 10 {
		t.Errorf("the test split covers %d languages, want at least 10", len(langs[splitTest]))
	}
}

func TestReadReposErrors(t *testing.T) {
	pin := strings.Repeat("a", 40)
	for _, tc := range []struct{ name, text, want string }{
		{"fields", "a/b\t" + pin + "\tGo\n", "4 tab-separated"},
		{"name", "ab\t" + pin + "\tGo\tdev\n", "owner/name"},
		{"commit", "a/b\tHEAD\tGo\tdev\n", "40 lower-case hex"},
		{"set", "a/b\t" + pin + "\tGo\tlater\n", "not dev, test, swebench or train"},
		{"twice", "a/b\t" + pin + "\tGo\tdev\na/b\t" + pin + "\tGo\ttest\n", "listed twice"},
	} {
		f := filepath.Join(t.TempDir(), "repos.tsv")
		os.WriteFile(f, []byte("# comment\n\n"+tc.text), 0o644)
		if _, err := readRepos(f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

func TestSelectReposMissing(t *testing.T) {
	list := []source{{Name: "a+b", Set: splitDev}, {Name: "c+d", Set: splitTest}}
	dir := t.TempDir()
	if _, err := selectRepos(list, dir, splitDev); err == nil || !strings.Contains(err.Error(), "fetch-repos.sh") {
		t.Errorf("a missing repository: err %v, want one naming scripts/fetch-repos.sh", err)
	}
	os.Mkdir(filepath.Join(dir, "a+b"), 0o755)
	got, err := selectRepos(list, dir, splitDev)
	if err != nil || len(got) != 1 || got[0].Path != filepath.Join(dir, "a+b") {
		t.Errorf("selectRepos = %+v, %v; want a+b under %s alone", got, err, dir)
	}
}

func TestQueryStats(t *testing.T) {
	for _, tc := range []struct {
		ranks []int
		want  map[int]float64
	}{
		{[]int{3}, map[int]float64{statHit1: 0, statHit5: 1, statHit10: 1, statMRR: 1.0 / 3, statAcc5: 1, statAcc1: 0, statFiles10: 1}},
		{[]int{2, 7}, map[int]float64{statHit1: 0, statHit5: 1, statAcc5: 0, statAcc10: 1, statMRR: 0.5, statFiles10: 1}},
		{[]int{1, 0}, map[int]float64{statHit1: 1, statAcc1: 0, statAcc10: 0, statMRR: 1, statFiles10: 0.5}},
		{[]int{0}, map[int]float64{statHit10: 0, statAcc10: 0, statMRR: 0}},
		{[]int{12}, map[int]float64{statHit10: 0, statAcc10: 0, statMRR: 1.0 / 12, statFiles10: 0}},
	} {
		v := queryStats(tc.ranks)
		for i, w := range tc.want {
			if math.Abs(v[i]-w) > 1e-9 {
				t.Errorf("queryStats(%v)[%d] = %v, want %v", tc.ranks, i, v[i], w)
			}
		}
	}
}

// TestBootstrap: the interval holds the mean, is the same on every run,
// narrows with more queries, and is a point when every query agrees.
func TestBootstrap(t *testing.T) {
	mk := func(n int) [][]float64 {
		var v [][]float64
		for i := 0; i < n; i++ {
			v = append(v, []float64{float64(i % 2)})
		}
		return v
	}
	small, large := bootstrap(mk(20))[0], bootstrap(mk(400))[0]
	if small.Mean != 0.5 || small.Lo > 0.5 || small.Hi < 0.5 || small.Lo == small.Hi {
		t.Errorf("20 queries, half hits: %v; want 0.5 inside a proper interval", small)
	}
	if again := bootstrap(mk(20))[0]; again != small {
		t.Errorf("two runs differ: %v and %v", small, again)
	}
	if large.Hi-large.Lo >= small.Hi-small.Lo {
		t.Errorf("400 queries give %v, no narrower than 20 queries' %v", large, small)
	}
	if all := bootstrap([][]float64{{1}, {1}, {1}})[0]; all.Lo != 1 || all.Hi != 1 {
		t.Errorf("all hits: %v, want [1, 1]", all)
	}
}

func TestPatchFiles(t *testing.T) {
	patch := "diff --git a/pkg/a.py b/pkg/a.py\n--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+z\n" +
		"diff --git a/doc/b.rst b/doc/b.rst\n--- a/doc/b.rst\n+++ b/doc/b.rst\n@@ -1 +1 @@\n---- a/not/a/header\n+new\n"
	if got, want := patchFiles(patch), []string{"doc/b.rst", "pkg/a.py"}; !slices.Equal(got, want) {
		t.Errorf("patchFiles = %v, want %v", got, want)
	}
}

func TestReadSWEBench(t *testing.T) {
	base := strings.Repeat("b", 40)
	line := `{"instance_id": "o__n-1", "repo": "o/n", "base_commit": "` + base + `", "problem_statement": "it breaks", "patch": "--- a/x.py\n"}`
	dir := t.TempDir()
	for name, text := range map[string]string{"lite.jsonl": line + "\n" + line + "\n", "lite.json": "[" + line + "," + line + "]"} {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(text), 0o644)
		ins, err := readSWEBench(f)
		if err != nil || len(ins) != 2 || ins[0].Base != base || ins[1].Repo != "o/n" {
			t.Errorf("%s: %+v, %v", name, ins, err)
		}
	}
	golden := `[{"instance_id": "o__n-2", "repo": "o/n", "base_commit": "` + base + `", "problem_statement": "it breaks", "golden_patch": "--- a/y.py\n"}]`
	f := filepath.Join(dir, "golden.json")
	os.WriteFile(f, []byte(golden), 0o644)
	if ins, err := readSWEBench(f); err != nil || len(ins) != 1 || !slices.Equal(patchFiles(ins[0].Patch), []string{"y.py"}) {
		t.Errorf("golden_patch: %+v, %v", ins, err)
	}
	f = filepath.Join(dir, "bad.jsonl")
	os.WriteFile(f, []byte(`{"instance_id": "o__n-1", "repo": "o/n", "base_commit": "HEAD"}`+"\n"), 0o644)
	if _, err := readSWEBench(f); err == nil {
		t.Error("an instance without a 40-hex base commit was accepted")
	}
}

// TestPinnedCommits: with a pinned commit the commit set is drawn from
// history below it; commits after it (a refreshed clone) change nothing.
func TestPinnedCommits(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"store/cache.go": "package store\n\n// Get reads a cached value by key.\nfunc Get(key string) string { return key }\n",
		"store/disk.go":  "package store\n\n// Flush writes the cache to disk.\nfunc Flush() error { return nil }\n",
	})
	r.Commit("initial")
	r.Write("store/cache.go", "package store\n\n// Get reads a cached value by key, empty when absent.\nfunc Get(key string) string {\n\tif key == \"\" {\n\t\treturn \"\"\n\t}\n\treturn key\n}\n")
	pin := r.Commit("store: an empty key reads nothing from the cache")
	r.Write("store/disk.go", "package store\n\n// Flush writes the cache to disk and syncs it.\nfunc Flush() error {\n\treturn nil\n}\n")
	r.Commit("store: flush syncs the file to disk")

	qs, err := evalRepo(source{Path: r.Dir, Name: "demo", Pin: pin}, setCommits, setInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Commit != pin {
		var got []string
		for _, q := range qs {
			got = append(got, q.Commit[:7])
		}
		t.Fatalf("queries %v, want the pinned commit %.7s alone", got, pin)
	}
	if rs := qs[0].ranksBy[recall.Hybrid]; len(rs) != 1 || rs[0] == 0 {
		t.Errorf("store/cache.go ranks %v; want it found", rs)
	}
}

// TestSWEBenchAskedAtBase: a SWE-bench instance is asked at its base
// commit, its answer is the files its gold patch changes there, and a
// later commit of the repository does not leak into the memory asked.
func TestSWEBenchAskedAtBase(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"pkg/units.py":  "def convert(value, unit):\n    \"\"\"Convert a quantity between units of length.\"\"\"\n    return value\n",
		"pkg/tables.py": "def read_table(path):\n    \"\"\"Read a whitespace separated table from a file.\"\"\"\n    return []\n",
	})
	base := r.Commit("initial")
	r.Write("pkg/units.py", "def convert(value, unit):\n    \"\"\"Convert a quantity between units of length.\"\"\"\n    if unit == 'km':\n        return value * 1000\n    return value\n")
	r.Commit("units: kilometres")

	ins := []sweInstance{{
		ID: "demo__demo-1", Repo: "demo/demo", Base: base,
		Problem: "convert ignores the unit\nConverting 3 km to metres returns 3 instead of 3000.",
		Patch:   "diff --git a/pkg/units.py b/pkg/units.py\n--- a/pkg/units.py\n+++ b/pkg/units.py\n@@ -1,3 +1,5 @@\n",
	}, {ID: "other__other-1", Repo: "other/other", Base: base, Problem: "x", Patch: "--- a/x.py\n"}}
	qs, err := evalRepo(source{Path: r.Dir, Name: "demo+demo"}, setSWEBench, setInput{swe: ins})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].ID != "demo__demo-1" || !slices.Equal(qs[0].Answer, []string{"pkg/units.py"}) {
		t.Fatalf("queries %+v; want demo__demo-1 alone, answered by pkg/units.py", qs)
	}
	if rs := qs[0].ranksBy[recall.Hybrid]; len(rs) != 1 || rs[0] == 0 {
		t.Errorf("pkg/units.py ranks %v; want it found", rs)
	}
}

// TestPickLong: the long set takes the commits whose message (trailers
// dropped) is long, whole up to the issue cap; the commits set the rest,
// cut at 1,000 bytes.
func TestPickLong(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("initial")
	long := "Parse headers lazily\n\n## Description\n\n" + strings.Repeat("The parser now reads each header when it is asked for. ", 40)
	r.Write("a.go", "package a\n\n// Parse parses.\nfunc Parse() {}\n")
	r.Commit(long + "\n\nSigned-off-by: A Person <a@example.com>")
	r.Write("a.go", "package a\n\n// Parse parses lazily.\nfunc Parse() {}\n")
	r.Commit("short fix")
	if _, err := git(r.Dir, "update-ref", tipRef, "HEAD"); err != nil {
		t.Fatal(err)
	}
	cs, err := pick(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].msg != strings.TrimSpace(long) {
		t.Fatalf("long set: %+v; want the long commit alone, its message whole (%d bytes)", cs, len(strings.TrimSpace(long)))
	}
	cs, err = pick(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || len(cs[0].msg) != 1000 || cs[1].msg != "short fix" {
		t.Fatalf("commits set: %+v", cs)
	}
}
