package recall

import (
	"slices"
	"strings"
	"testing"
)

func TestAssess(t *testing.T) {
	store := Hit{Path: "internal/store/store.go", Name: "Store.Get", Summary: "Get returns the value stored for key.", Content: "func (s *Store) Get(key string) (string, bool) {", Score: 1}
	readme := Hit{Path: "README.md", Name: "demo", Summary: "A demo.", Content: "# demo\n\nA demo.", Score: 0.625}
	config := Hit{Path: "config/app.yaml", Name: "port", Content: "port: 8080", Score: 0.4}
	for _, c := range []struct {
		name     string
		task     string
		hits     []Hit
		strength string
		noMatch  bool
		reason   string
	}{
		{"nothing", "rotate signing keys", nil, Weak, true, "nothing in memory"},
		{"least bad hit", "rotate signing keys", []Hit{readme}, Weak, true, "none of the task's words (rotate, signing, keys)"},
		{"all words, leads", "get the value stored for a key", []Hit{store, readme, config}, Strong, false, "4 of 4"},
		{"a single hit holds it", "Store.Get", []Hit{store}, Strong, false, "2 of 2"},
		{"a quarter of the task", "get the cache shard lease", []Hit{store, readme}, Partial, false, "1 of 4 task words, the best one too few of them; missing: cache, shard, lease"},
		{"tied scores", "get value key", []Hit{store, {Path: "b.go", Name: "Get", Content: "value key", Score: 1}}, Weak, false, "no hit stands out"},
		{"one word of many", "rotate the signing keys of the release pipeline nightly", []Hit{store}, Weak, false, "only 1 of 6"},
		{"history only", "rotate signing keys", []Hit{{Path: "ci/release.sh", Name: "release", Via: "past commits like this task changed it", Score: 1}}, Weak, false, "past commits"},
		{"stop words", "how is it", []Hit{store}, Weak, false, "no content word"},
	} {
		e := Assess(c.task, c.hits)
		if e.Strength != c.strength || e.NoMatch != c.noMatch || !strings.Contains(e.Reason, c.reason) {
			t.Errorf("%s: %+v, want %s no-match %v reason ~%q", c.name, e, c.strength, c.noMatch, c.reason)
		}
		if e.NoMatch && !strings.HasPrefix(e.Label(), NoGoodMatch) || !e.NoMatch && !strings.HasPrefix(e.Label(), e.Strength+" evidence") {
			t.Errorf("%s: label %q", c.name, e.Label())
		}
	}
	e := Assess("get the value stored in the cache", []Hit{store})
	if !slices.Equal(e.Matched, []string{"get", "value", "stored"}) || !slices.Equal(e.Missing, []string{"cache"}) || e.Coverage != 0.75 {
		t.Errorf("words: %+v", e)
	}
}

// TestJudgeFollowsConfidence: with the learned ranker's confidence the
// label is that confidence against the ranking's thresholds, whatever
// share of the task's words the hits hold; with no word matched, or
// without a confidence, the words decide.
func TestJudgeFollowsConfidence(t *testing.T) {
	_, repo := repoWithMemory(t)
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	rk := DefaultRanking
	rk.Learned = &LearnedRanking{Depth: 30, Strong: 0.75, Weak: 0.6, Weights: map[string]float64{"lex": 1}}
	few := "why does my client give up too early when the server is slow"
	hits := search(t, s, "backoff", Options{Limit: 5}).Hits
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	words := s.Evidence(few, hits)
	if words.Strength == Strong {
		t.Fatalf("the words alone judge %q strong; the test needs a task they do not", few)
	}
	for _, c := range []struct {
		conf float64
		want string
	}{{0.9, Strong}, {0.75, Strong}, {0.7, Partial}, {0.6, Partial}, {0.3, Weak}} {
		e := s.Judge(few, hits, c.conf, &rk)
		if e.Strength != c.want || e.Confidence != round2(c.conf) || !strings.Contains(e.Reason, "chance of holding the answer") {
			t.Errorf("confidence %.2f: %s (%s), want %s", c.conf, e.Strength, e.Reason, c.want)
		}
	}
	if e := s.Judge(few, hits, 0, &rk); e.Strength != words.Strength {
		t.Errorf("no confidence: %s, want the words' %s", e.Strength, words.Strength)
	}
	if e := s.Judge("rotate quokka signing ceremonies", hits, 0.95, &rk); !e.NoMatch || e.Strength != Weak {
		t.Errorf("no word matched, confident ranking: %+v, want no good match", e)
	}
}
