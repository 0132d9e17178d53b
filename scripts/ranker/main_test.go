package main

import "testing"

// -fit-sets keeps the queries of the named sets for the fit, and
// -label-sets calibrates the label on its sets only: a set of easy
// queries does not make every answer strong.
func TestSetsOfTheFitAndTheLabel(t *testing.T) {
	defer func(f, l string) { *fitOn, *labelOn = f, l }(*fitOn, *labelOn)
	qs := []query{{Set: "commits", ID: "a"}, {Set: "long", ID: "b"}, {Set: "commits", ID: "c"}}
	*fitOn = ""
	if got := fitted(qs); len(got) != 3 {
		t.Fatalf("no -fit-sets: %d queries fitted, want 3", len(got))
	}
	*fitOn = "commits"
	if got := fitted(qs); len(got) != 2 || got[0].ID != "a" || got[1].ID != "c" {
		t.Fatalf("-fit-sets commits: %+v", got)
	}
	// 40 commits answered first half the time, 40 long ones always.
	var js []judgedQuery
	for i := 0; i < 40; i++ {
		rank := 1
		if i%2 == 0 {
			rank = 0
		}
		js = append(js, judgedQuery{conf: float64(i) / 100, rank: rank, set: "commits"})
		js = append(js, judgedQuery{conf: 0.5 + float64(i)/100, rank: 1, set: "long"})
	}
	*labelOn = ""
	if strong, _ := thresholds(append([]judgedQuery(nil), js...)); strong > 0.3 {
		t.Fatalf("every set: strong at %v, want the long queries' precision to pull it down", strong)
	}
	*labelOn = "commits"
	if strong, _ := thresholds(append([]judgedQuery(nil), js...)); strong != 1 {
		t.Fatalf("-label-sets commits: strong at %v, want none strong (half of them answered)", strong)
	}
}
