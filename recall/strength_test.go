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
