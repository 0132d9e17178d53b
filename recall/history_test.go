package recall

import (
	"context"
	"fmt"
	"testing"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
)

// TestHistorySignalRescores checks that the history signal lifts the file
// a past commit about the same task touched, among files content ranks
// alike, and that weight 0 leaves the ranking as it was.
func TestHistorySignalRescores(t *testing.T) {
	r, repo := repoWithMemory(t)
	r.Write("render/extra4.go", "package render\n\n// Helper4 does helper things number 4.\nfunc Helper4() int { return 4 + 0 }\n")
	r.Commit("Cache the widget thumbnails between runs")
	q := "cache the thumbnails of helper things"
	s, opt, base := withoutHistory(t, repo, q)
	rk := DefaultRanking
	rk.History = 2
	rk.HistoryMinCommits = 0 // the fixture's history is young
	opt.Ranking = &rk
	withHist := search(t, s, q, opt)
	if len(withHist.Hits) != len(base.Hits) {
		t.Fatalf("the signal changed the candidates: %d hits, %d before", len(withHist.Hits), len(base.Hits))
	}
	if withHist.Hits[0].Path != "render/extra4.go" {
		t.Fatalf("with history the first hit is %s (before: %s)", withHist.Hits[0].Path, base.Hits[0].Path)
	}
	if base.Hits[0].Path == "render/extra4.go" {
		t.Fatalf("test does not test: extra4.go already first without history")
	}
	rk.History, rk.CoChange, rk.Recency = 0, 0, 0
	again := search(t, s, q, opt)
	// The default ranking has history on, once history holds enough
	// commits: this fixture's few are not.
	opt.Ranking = nil
	if def := search(t, s, q, opt); def.Hits[0].Path != base.Hits[0].Path {
		t.Fatalf("the default ranking used a young history: first hit %s", def.Hits[0].Path)
	}
	def := DefaultRanking
	def.HistoryMinCommits = 2
	opt.Ranking = &def
	if res := search(t, s, q, opt); res.Hits[0].Path != "render/extra4.go" {
		t.Fatalf("the default ranking does not use history: first hit %s", res.Hits[0].Path)
	}
	opt.Ranking = &rk
	for i := range again.Hits {
		if again.Hits[i].Path != base.Hits[i].Path || again.Hits[i].Score != base.Hits[i].Score {
			t.Fatalf("weight 0 changed the ranking at %d", i)
		}
	}
}

// TestCompanionSignal checks that the file which usually changes with the
// best file is lifted right behind it, even when nothing in it matches
// the task, and that weight 0 leaves the ranking as it was.
func TestCompanionSignal(t *testing.T) {
	r, repo := repoWithMemory(t)
	for i := 0; i < 3; i++ {
		r.Write("render/chart.go", fmt.Sprintf("package render\n\n// DrawChart renders a bar chart of the values as SVG.\nfunc DrawChart(values []float64) string {\n\treturn \"<svg/>\" // %d\n}\n", i))
		r.Write("golden/output.txt", fmt.Sprintf("expected picture %d\n", i))
		r.Commit(fmt.Sprintf("Regenerate the golden file, round %d", i))
	}
	q := "bar chart values as SVG"
	s, opt, base := withoutHistory(t, repo, q)
	if base.Hits[0].Path != "render/chart.go" {
		t.Fatalf("first hit %s, want render/chart.go", base.Hits[0].Path)
	}
	for _, h := range base.Hits {
		if h.Path == "golden/output.txt" {
			t.Fatalf("test does not test: the golden file matches the task by content")
		}
	}
	rk := *opt.Ranking
	rk.Companion, rk.CompanionSeeds, rk.CompanionShare, rk.CompanionCommits = 0.8, 3, 0.2, 2
	opt.Ranking = &rk
	res := search(t, s, q, opt)
	if len(res.Hits) < 2 || res.Hits[0].Path != "render/chart.go" || res.Hits[1].Path != "golden/output.txt" {
		t.Fatalf("with companions: %v", paths(res.Hits))
	}
	if res.Hits[1].Score >= res.Hits[0].Score {
		t.Fatalf("a companion outranks the file that brought it: %v", res.Hits[:2])
	}
	if want := "changes with render/chart.go (3 of its commits)"; res.Hits[1].Via != want || res.Hits[0].Via != "" {
		t.Fatalf("via: %q and %q, want %q for the companion only", res.Hits[0].Via, res.Hits[1].Via, want)
	}
	rk.CompanionCommits = 4 // more than the three shared commits
	if res := search(t, s, q, opt); len(res.Hits) != len(base.Hits) {
		t.Fatalf("a companion of too few commits was added: %v", paths(res.Hits))
	}
}

// withoutHistory extracts memory of the commits a test added and ranks q
// with no history signal: the searcher, the options (lexical, 20 hits, one
// per file, the ranking without history) and their result.
func withoutHistory(t *testing.T, repo *gitstore.Repo, q string) (*Searcher, Options, *Result) {
	t.Helper()
	if _, err := extract.Run(context.Background(), repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	off := DefaultRanking
	off.HistoryRanking = HistoryRanking{}
	opt := Options{Limit: 20, PerFile: 1, Mode: Lexical, NoContent: true, Ranking: &off}
	return s, opt, search(t, s, q, opt)
}

func paths(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Path)
	}
	return out
}

// TestHistoryFloor checks that a file two past commits about the same task
// changed is added behind the best content hit even though nothing in it
// matches, that a single commit is not enough, and that weight 0 leaves
// the ranking as it was.
func TestHistoryFloor(t *testing.T) {
	r, repo := repoWithMemory(t)
	for i := 0; i < 2; i++ {
		r.Write("render/extra3.go", fmt.Sprintf("package render\n\n// Helper3 does helper things number 3.\nfunc Helper3() int { return 3 + %d }\n", i))
		r.Write(fmt.Sprintf("notes%d.txt", i), "unrelated\n")
		r.Commit("Tune the thumbnail cache")
	}
	r.Write("render/extra5.go", "package render\n\n// Helper5 does helper things number 5.\nfunc Helper5() int { return 5 + 1 }\n")
	r.Commit("Thumbnail cache: one more knob")
	q := "tune the thumbnail cache of bar charts"
	s, opt, base := withoutHistory(t, repo, q)
	if len(base.Hits) == 0 || base.Hits[0].Path != "render/chart.go" {
		t.Fatalf("content ranking: %v", paths(base.Hits))
	}
	for _, h := range base.Hits {
		if h.Path == "render/extra3.go" {
			t.Fatalf("test does not test: content ranking finds render/extra3.go")
		}
	}
	rk := *opt.Ranking
	rk.History, rk.HistoryCommits, rk.HistoryMaxFiles = 2.5, 20, 8
	rk.HistoryFloor, rk.HistoryFloorMin, rk.HistoryFloorCommits = 0.5, 0.3, 2
	opt.Ranking = &rk
	res := search(t, s, q, opt)
	got := paths(res.Hits)
	if len(got) < 2 || got[0] != "render/chart.go" || got[1] != "render/extra3.go" {
		t.Fatalf("with the floor: %v", got)
	}
	if res.Hits[1].Score >= res.Hits[0].Score {
		t.Fatalf("a floored file outranks the best content hit: %v", res.Hits[:2])
	}
	if want := "history: 2 past commits like this task changed this file"; res.Hits[1].Via != want || res.Hits[0].Via != "" {
		t.Fatalf("via: %q and %q, want %q for the floored file only", res.Hits[0].Via, res.Hits[1].Via, want)
	}
	for _, p := range got {
		if p == "render/extra5.go" || p == "notes0.txt" {
			t.Fatalf("%s has one matching commit, yet was added: %v", p, got)
		}
	}
	rk.HistoryFloor = 0
	if res := search(t, s, q, opt); len(res.Hits) != len(base.Hits) {
		t.Fatalf("floor 0 added files: %v", paths(res.Hits))
	}
}
