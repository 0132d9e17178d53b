package recall

import (
	"context"
	"testing"

	"github.com/konteks/git-konteks/extract"
)

// TestHistorySignalRescores checks that the history signal lifts the file
// a past commit about the same task touched, among files content ranks
// alike, and that weight 0 leaves the ranking as it was.
func TestHistorySignalRescores(t *testing.T) {
	r, repo := repoWithMemory(t)
	r.Write("render/extra4.go", "package render\n\n// Helper4 does helper things number 4.\nfunc Helper4() int { return 4 + 0 }\n")
	r.Commit("Cache the widget thumbnails between runs")
	if _, err := extract.Run(context.Background(), repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	q := "cache the thumbnails of helper things"
	off := DefaultRanking
	off.HistoryRanking = HistoryRanking{}
	opt := Options{Limit: 20, PerFile: 1, Mode: Lexical, NoContent: true, Ranking: &off}
	base := search(t, s, q, opt)
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
