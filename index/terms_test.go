package index

import (
	"fmt"
	"strings"
	"testing"
)

// TestQueryTermsWeights: each distinct term once, in first-seen order,
// weighted by its repeats, below and past the number of terms QueryTerms
// finds again by a scan before it keeps a map.
func TestQueryTermsWeights(t *testing.T) {
	for _, distinct := range []int{1, 15, 16, 17, 40} {
		var b strings.Builder
		for rep := 0; rep < 3; rep++ {
			for i := 0; i < distinct; i++ {
				if i%(rep+1) == 0 {
					fmt.Fprintf(&b, "word%c%c ", 'a'+i/26, 'a'+i%26)
				}
			}
		}
		var order []string
		weight := map[string]float64{}
		EachTerm(b.String(), func(term string) bool {
			if weight[term] == 0 {
				order = append(order, term)
			}
			weight[term]++
			return true
		})
		got := QueryTerms(b.String())
		if len(got) != len(order) || distinct > 16 && len(order) <= 16 {
			t.Fatalf("%d distinct words: %d terms, want %d", distinct, len(got), len(order))
		}
		for i, term := range got {
			if term.Text != order[i] || term.Weight != weight[order[i]] {
				t.Errorf("%d distinct words: term %d = %v, want %s weighing %v", distinct, i, term, order[i], weight[order[i]])
			}
		}
	}
}

// TestEachTermStops: EachTerm gives the terms Terms gives, repeats
// included, and none after fn says stop.
func TestEachTermStops(t *testing.T) {
	text := "parseHTTPRequest reads requests; the parser parses"
	var all []string
	EachTerm(text, func(term string) bool { all = append(all, term); return true })
	if want := Terms(text); len(all) <= len(want) || strings.Join(want, " ") != strings.Join(dedup(all), " ") {
		t.Fatalf("EachTerm gave %q; Terms gives %q", all, want)
	}
	for stop := 1; stop <= len(all); stop++ {
		var got []string
		EachTerm(text, func(term string) bool { got = append(got, term); return len(got) < stop })
		if len(got) != stop || strings.Join(got, " ") != strings.Join(all[:stop], " ") {
			t.Errorf("stopping after %d: got %q", stop, got)
		}
	}
}

func dedup(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
