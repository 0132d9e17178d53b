package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/testgit"
)

// An updated index scores every hit exactly as a rebuilt one of the same
// memory, to the last bit, for queries of many terms: bleve's disjunction
// over more terms than DisjunctionHeapTakeover summed a section's term
// scores in an order that depends on the segments, and a unit in the
// last place swaps near-ties.
func TestLongQueriesScoreAlikeUpdatedAndRebuilt(t *testing.T) {
	seed := uint64(7)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	vocab := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember flint granite harbor iris jasper")
	words := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	file := func(k int) string {
		var b strings.Builder
		b.WriteString("package p\n\n")
		for f := 0; f < 6; f++ {
			fmt.Fprintf(&b, "// F%d_%d %s\nfunc F%d_%d() { _ = %q }\n\n", k, f, words(5+rng.IntN(30)), k, f, words(3+rng.IntN(20)))
		}
		return b.String()
	}
	r := testgit.New(t)
	for k := 0; k < 30; k++ {
		r.Write(fmt.Sprintf("p/f%02d.go", k), file(k))
	}
	r.Commit("init")
	repo := extractAt(t, r)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	for k := 0; k < 30; k += 4 {
		r.Write(fmt.Sprintf("p/f%02d.go", k), file(k))
	}
	r.Commit("edit")
	up := updated(t, r, repo)
	re := rebuilt(t, repo)
	for i := 0; i < 40; i++ {
		q := words(12 + rng.IntN(20))
		hu, err1 := up.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 200)
		hr, err2 := re.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 200)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if len(hu) != len(hr) {
			t.Fatalf("%q: %d hits updated, %d rebuilt", q, len(hu), len(hr))
		}
		for j := range hu {
			if hu[j] != hr[j] {
				t.Fatalf("%q: hit %d updated %v (%.17g), rebuilt %v (%.17g)", q, j, hu[j], hu[j].Score, hr[j], hr[j].Score)
			}
		}
	}
}
