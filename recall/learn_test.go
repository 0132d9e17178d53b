package recall

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/index"
)

func TestRerankOrdersFilesByTheModel(t *testing.T) {
	paths := map[int]string{1: "a.go", 2: "a.go", 3: "b.go", 4: "c.go", 5: "d.go"}
	hs := []index.Hit{{Doc: 1, Score: 10}, {Doc: 3, Score: 8}, {Doc: 2, Score: 5}, {Doc: 4, Score: 4}, {Doc: 5, Score: 3}}
	x := func(v float64) []float64 {
		out := make([]float64, len(FeatureNames))
		out[featureIndex["symbol"]] = v
		return out
	}
	// The model prefers b.go, then c.go, then a.go; d.go is past the
	// depth and keeps its place after them.
	feats := []FileFeatures{{Path: "a.go", X: x(0)}, {Path: "b.go", X: x(2)}, {Path: "c.go", X: x(1)}}
	lr := &LearnedRanking{Depth: 3, Weights: map[string]float64{"symbol": 1}}
	got, conf := rerank(hs, feats, lr, func(d int) string { return paths[d] })
	// Softmax over the three files' scores 2, 1, 0: all three are in the
	// first ConfidenceFiles.
	if math.Abs(conf-1) > 1e-9 {
		t.Fatalf("confidence %v, want 1 with three files", conf)
	}
	var order []int
	for _, h := range got {
		order = append(order, h.Doc)
	}
	// a.go's second section keeps its share (5/10) of a.go's score.
	if want := []int{3, 4, 1, 2, 5}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if got[0].Score != 10 {
		t.Fatalf("the best keeps the pipeline's best score: %v", got[0].Score)
	}
	if a, a2 := got[2].Score, got[3].Score; math.Abs(a2/a-0.5) > 1e-9 {
		t.Fatalf("a.go's sections %v and %v: want a share of 0.5", a, a2)
	}
	if got[4].Score >= got[3].Score || got[4].Score <= 0 {
		t.Fatalf("the rest stays below the re-ordered files: %+v", got)
	}
}

func TestFeaturesDescribeTheCandidates(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{})
	ctx := context.Background()
	fs, err := s.Features(ctx, "DrawLegend draws the wrong legend in render/chart.go", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatal("no candidate files")
	}
	byPath := map[string][]float64{}
	for i, f := range fs {
		if len(f.X) != len(FeatureNames) {
			t.Fatalf("%s: %d features, want %d", f.Path, len(f.X), len(FeatureNames))
		}
		if _, dup := byPath[f.Path]; dup {
			t.Fatalf("%s listed twice", f.Path)
		}
		byPath[f.Path] = f.X
		if got, want := f.X[featureIndex["pipe_rank"]], -math.Log(float64(i+1)); got != want {
			t.Fatalf("%s: pipe_rank %v, want %v", f.Path, got, want)
		}
	}
	chart := byPath["render/chart.go"]
	if chart == nil {
		t.Fatalf("render/chart.go is not a candidate: %+v", fs)
	}
	for _, n := range []string{"path_named", "symbol", "definition"} {
		if chart[featureIndex[n]] != 1 {
			t.Errorf("render/chart.go: %s = %v, want 1", n, chart[featureIndex[n]])
		}
	}
	if fetch := byPath["fetch/fetch.go"]; fetch != nil && fetch[featureIndex["path_named"]] != 0 {
		t.Errorf("fetch/fetch.go is not named, path_named = %v", fetch[featureIndex["path_named"]])
	}
	if readme := byPath["README.md"]; readme != nil && readme[featureIndex["docs"]] != 1 {
		t.Errorf("README.md: docs = %v", readme[featureIndex["docs"]])
	}
	// The features are what the learned ranker reads: the same query
	// gives the same features.
	again, err := s.Features(ctx, "DrawLegend draws the wrong legend in render/chart.go", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fs, again) {
		for i := range fs {
			for j := range fs[i].X {
				if i < len(again) && again[i].X[j] != fs[i].X[j] {
					t.Errorf("%s: %s %v then %v", fs[i].Path, FeatureNames[j], fs[i].X[j], again[i].X[j])
				}
			}
		}
		t.Fatal("features differ between two calls")
	}
}

func TestLearnedRankingIsTheDefault(t *testing.T) {
	if DefaultRanking.Learned == nil || DefaultRanking.Learned.Depth <= 0 {
		t.Fatal("DefaultRanking has no learned stage")
	}
	for n := range DefaultRanking.Learned.Weights {
		if _, ok := featureIndex[n]; !ok {
			t.Errorf("weight of unknown feature %q (FeatureNames renamed without a new fit?)", n)
		}
	}
}

func TestIsExample(t *testing.T) {
	for p, want := range map[string]bool{
		"examples/basic/main.go": true, "benches/parse.rs": true, "src/Sample/x.cs": true,
		"src/main.go": false, "example.go": false, "docs/examplesx/y.md": false,
	} {
		if got := isExample(p); got != want {
			t.Errorf("isExample(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestUpdatedIndexRanksAsARebuiltOne checks determinism across index
// histories: memory brought forward by an incremental extraction, searched
// through an index updated in place, ranks exactly as the same memory
// searched through an index built from scratch.
func TestUpdatedIndexRanksAsARebuiltOne(t *testing.T) {
	r, repo := repoWithMemory(t)
	ctx := context.Background()
	queries := []string{"how long to wait before retrying a failed attempt", "render helper chart things", "DrawLegend", "widgetizer dashboards usage"}
	// The first index, built at the first memory.
	openS(t, repo, OpenOptions{}).Close()
	// Memory moves: files change, one goes, one comes.
	r.Write("render/extra1.go", "package render\n\n// Helper1 retries the helper things with a backoff.\nfunc Helper1() int { return 7 }\n")
	r.Remove("render/extra2.go")
	r.Write("render/axis.go", "package render\n\n// DrawAxis renders the axis of a chart with its ticks.\nfunc DrawAxis(ticks []float64) string { return \"\" }\n")
	r.Commit("change")
	if _, err := extract.Run(ctx, repo, extract.Options{Mode: extract.ModeChanged}); err != nil {
		t.Fatal(err)
	}
	updated := openS(t, repo, OpenOptions{})
	if st := updated.State().Index; st != "update" && st != "current" {
		t.Logf("index state after the change: %s", st)
	}
	var a []*Result
	for _, q := range queries {
		a = append(a, search(t, updated, q, Options{Limit: 20, NoContent: true}))
	}
	updated.Close()
	dir, err := index.Dir(repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rebuilt := openS(t, repo, OpenOptions{})
	for i, q := range queries {
		b := search(t, rebuilt, q, Options{Limit: 20, NoContent: true})
		if !reflect.DeepEqual(hitKeys(a[i].Hits), hitKeys(b.Hits)) {
			t.Errorf("%q: updated index ranks\n%v\nrebuilt ranks\n%v", q, hitKeys(a[i].Hits), hitKeys(b.Hits))
		}
	}
}

// hitKeys is each hit's place and score, rounded past float noise.
func hitKeys(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s#%s %.6f", h.Path, h.Anchor, h.Score))
	}
	return out
}
