package secret

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMatcherFindsEveryOccurrence holds the automaton to a naive search
// over random keyword sets and texts: every occurrence of every keyword,
// in any case, overlapping ones and keywords inside keywords included.
func TestMatcherFindsEveryOccurrence(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	word := func(alpha string, lo, hi int) string {
		b := make([]byte, lo+rng.IntN(hi-lo+1))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	for round := 0; round < 200; round++ {
		var kws []string
		seen := map[string]bool{}
		for len(kws) < 1+rng.IntN(12) {
			k := word("abcAB_-", 1, 5)
			if !seen[strings.ToLower(k)] {
				seen[strings.ToLower(k)] = true
				kws = append(kws, k)
			}
		}
		text := word("abcABxy_-", 0, 200)
		m := newMatcher(kws)
		var got []string
		m.each([]byte(text), func(id, at int) {
			got = append(got, kws[id]+"@"+strconv.Itoa(at))
		})
		var want []string
		lt := strings.ToLower(text)
		for _, k := range kws {
			lk := strings.ToLower(k)
			for at := 0; at+len(lk) <= len(lt); at++ {
				if lt[at:at+len(lk)] == lk {
					want = append(want, k+"@"+strconv.Itoa(at))
				}
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("keywords %q in %q:\n got  %v\n want %v", kws, text, got, want)
		}
	}
}
