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

// TestQuestionsAskedAtPin: questions are asked of memory at the pinned
// commit, whatever came after it; a question whose answer file is not
// in memory there is left out, and every ranking, the fused baseline
// among them, finds the one that is.
func TestQuestionsAskedAtPin(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"retry/backoff.go": "package retry\n\n// Backoff returns how long to wait before the next attempt: the delay\n// doubles after each failure up to a ceiling.\nfunc Backoff(attempt int) int { return 1 << attempt }\n",
		"retry/jitter.go":  "package retry\n\n// Jitter spreads retries of many clients apart.\nfunc Jitter(d int) int { return d }\n",
		"server/listen.go": "package server\n\n// Listen opens the listening socket.\nfunc Listen(addr string) error { return nil }\n",
	})
	pin := r.Commit("initial")
	r.Write("later/only.go", "package later\n\n// Doubles waits after each failure.\nfunc Doubles() {}\n")
	r.Commit("a file the pinned commit does not have")

	qs, err := evalRepo(source{Path: r.Dir, Name: "demo", Pin: pin}, setQuestions, setInput{questions: []question{
		{ID: "7", Title: "How long does the client wait between retries?", Text: "Does the delay grow after each failed attempt, and is there a ceiling?", Files: []string{"retry/backoff.go"}},
		{ID: "8", Title: "Where is the doubling done?", Files: []string{"later/only.go"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].ID != "7" || !slices.Equal(qs[0].Answer, []string{"retry/backoff.go"}) {
		t.Fatalf("queries %+v; want question 7 alone, answered by retry/backoff.go", qs)
	}
	for _, m := range []string{baselineMode, fusedMode, recall.Vector, recall.Hybrid} {
		if rs := qs[0].ranksBy[m]; len(rs) != 1 || rs[0] == 0 {
			t.Errorf("%s: retry/backoff.go ranks %v; want it found", m, rs)
		}
	}
}

func TestReadQuestions(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "o+n.jsonl")
	os.WriteFile(f, []byte(`{"id": "1", "title": "Where are routes matched?", "text": "", "files": ["router/tree.go"]}`+"\n\n"), 0o644)
	qs, err := readQuestions(f)
	if err != nil || len(qs) != 1 || qs[0].Files[0] != "router/tree.go" {
		t.Fatalf("readQuestions = %+v, %v", qs, err)
	}
	for _, tc := range []struct{ name, line, want string }{
		{"no files", `{"id": "1", "title": "Where?", "files": []}`, "answer file"},
		{"no title", `{"id": "1", "title": " ", "files": ["a.go"]}`, "title"},
		{"unclean path", `{"id": "1", "title": "Where?", "files": ["../a.go"]}`, "clean path"},
		{"absolute path", `{"id": "1", "title": "Where?", "files": ["/a.go"]}`, "clean path"},
		{"twice", `{"id": "1", "title": "Where?", "files": ["a.go"]}` + "\n" + `{"id": "1", "title": "Again?", "files": ["b.go"]}`, "twice"},
	} {
		os.WriteFile(f, []byte(tc.line+"\n"), 0o644)
		if _, err := readQuestions(f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// TestFuse: reciprocal rank fusion puts what both rankings hold high
// above what one ranking puts first.
func TestFuse(t *testing.T) {
	got := fuse(60, []string{"a", "b", "c"}, []string{"c", "d", "b"})
	// b: 1/62 + 1/63, c: 1/63 + 1/61, a: 1/61, d: 1/62.
	if want := []string{"c", "b", "a", "d"}; !slices.Equal(got, want) {
		t.Errorf("fuse = %v, want %v", got, want)
	}
	if got := fuse(60, nil, []string{"x"}); !slices.Equal(got, []string{"x"}) {
		t.Errorf("fuse with an empty ranking = %v", got)
	}
}

func TestNDCG(t *testing.T) {
	for _, tc := range []struct {
		ranks []int
		want  float64
	}{
		{[]int{1}, 1},
		{[]int{3}, 0.5},
		{[]int{2, 7}, (1/math.Log2(3) + 1/math.Log2(8)) / (1 + 1/math.Log2(3))},
		{[]int{1, 0}, 1 / (1 + 1/math.Log2(3))},
		{[]int{12}, 0},
		{[]int{0}, 0},
	} {
		if v := queryStats(tc.ranks)[statNDCG10]; math.Abs(v-tc.want) > 1e-9 {
			t.Errorf("NDCG@10 of %v = %v, want %v", tc.ranks, v, tc.want)
		}
	}
}

// TestQuestionSets: every committed question set reads, is named after
// a repository of the evaluation's list, and asks something.
func TestQuestionSets(t *testing.T) {
	list, err := readRepos("repos.tsv")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, s := range list {
		known[s.Name] = true
	}
	files, err := filepath.Glob(filepath.Join("questions", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no question sets: %v", err)
	}
	total := 0
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".jsonl"); !known[name] {
			t.Errorf("%s: a question set is named owner+name.jsonl after a repository of repos.tsv", f)
		}
		qs, err := readQuestions(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) == 0 {
			t.Errorf("%s: empty question set", f)
		}
		total += len(qs)
	}
	t.Logf("%d questions in %d sets", total, len(files))
}
