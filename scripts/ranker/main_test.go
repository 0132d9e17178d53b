package main

import (
	"math"
	"slices"
	"testing"
)

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

// -set-weights weighs a set's queries as if each were listed that many
// times, and changes the fit: here the issues want the opposite of the
// commits, and weighing them three times moves the weight their way.
func TestSetWeights(t *testing.T) {
	defer func(w string, it int) { *setW, *iters = w, it }(*setW, *iters)
	*iters = 400
	q := func(set, id string, answerFirst bool) query {
		a, b := file{Path: "a", X: []float64{1, 0}}, file{Path: "b", X: []float64{0, 1}}
		if answerFirst {
			a.Answer = true
		} else {
			b.Answer = true
		}
		return query{Set: set, Repo: "r", ID: id, Files: []file{a, b}}
	}
	commits := []query{q("commits", "c1", true), q("commits", "c2", true), q("commits", "c3", false)}
	issue := q("issues", "i1", false)
	mask := []bool{true, true}
	fitOf := func(qs []query, weights string) []float64 {
		*setW = weights
		return fit(map[string][]query{"r": qs}, []string{"r"}, 2, mask)
	}
	weighed := fitOf(append(slices.Clone(commits), issue), "issues=3")
	listed := fitOf(append(slices.Clone(commits), issue, issue, issue), "")
	once := fitOf(append(slices.Clone(commits), issue), "")
	for i := range weighed {
		if math.Abs(weighed[i]-listed[i]) > 1e-9 {
			t.Fatalf("issues=3 gives %v, listing each issue three times %v", weighed, listed)
		}
	}
	if weighed[1]-weighed[0] <= once[1]-once[0] {
		t.Fatalf("issues=3 (%v) leans no more to the issues' answer than weight 1 (%v)", weighed, once)
	}
}
