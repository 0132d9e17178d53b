package recall

import (
	"context"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/internal/memtest"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestGraphExpansionFindsNeighbour: the file the query describes calls a
// helper whose text shares no word with the query; text ranking cannot
// find the helper, the graph brings it in as the matched file's neighbour.
func TestGraphExpansionFindsNeighbour(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"billing/invoice.go": `package billing

import "example.com/shop/mathx"

// InvoiceTotal computes the invoice total with sales tax for a customer order.
func InvoiceTotal(lines []float64, taxRate float64) float64 {
	sum := 0.0
	for _, l := range lines {
		sum += l
	}
	return mathx.RoundHalfEven(sum * (1 + taxRate))
}
`,
		"mathx/round.go": `package mathx

import "math"

// RoundHalfEven rounds to two decimals, ties to the even neighbour.
func RoundHalfEven(x float64) float64 { return math.RoundToEven(x*100) / 100 }
`,
		"docs/unrelated.md": "# Shipping\n\nParcels leave the warehouse daily.\n",
		"ship/label.go":     "package ship\n\n// PrintLabel prints a parcel label.\nfunc PrintLabel(addr string) string { return addr }\n",
	})
	r.Commit("shop")
	repo := memtest.Extract(t, r.Dir)
	s := openS(t, repo, OpenOptions{NoEmbedder: true})
	q := "invoice total with sales tax"
	has := func(res *Result, p string) bool {
		for _, h := range res.Hits {
			if h.Path == p {
				return true
			}
		}
		return false
	}
	plain := DefaultRanking
	plain.GraphRanking = GraphRanking{}
	res := search(t, s, q, Options{Mode: Lexical, Ranking: &plain})
	if !has(res, "billing/invoice.go") || has(res, "mathx/round.go") {
		t.Fatalf("text ranking: %+v", res.Hits)
	}
	for _, gr := range []GraphRanking{{Neighbors: 0.3}, {PPR: 0.3}} {
		rk := DefaultRanking
		rk.GraphRanking = gr
		res = search(t, s, q, Options{Mode: Lexical, Ranking: &rk})
		if len(res.Hits) == 0 || res.Hits[0].Path != "billing/invoice.go" || !has(res, "mathx/round.go") {
			t.Fatalf("%+v: the neighbour is missing or outranks the match: %+v", gr, res.Hits)
		}
		if has(res, "ship/label.go") {
			t.Fatalf("%+v: an unlinked file came in: %+v", gr, res.Hits)
		}
	}
	// A central file gains from the prior, bounded.
	rk := DefaultRanking
	rk.GraphRanking = GraphRanking{Central: 0.3}
	if res := search(t, s, q, Options{Mode: Lexical, Ranking: &rk}); res.Hits[0].Path != "billing/invoice.go" {
		t.Fatalf("central prior: %+v", res.Hits)
	}

	// A context pack names the files its best files connect to, from the
	// graph cache the searches above built; without a cache it leaves
	// them out rather than wait for one.
	pack, err := s.Context(context.Background(), q, PackOptions{Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pack.Markdown, "## Connected files\n\n- billing/invoice.go: uses mathx/round.go\n") {
		t.Fatalf("no connected files in the pack:\n%s", pack.Markdown)
	}
	if pack.Tokens > DefaultBudget {
		t.Fatalf("pack of %d tokens over the budget", pack.Tokens)
	}
	if err := graph.Remove(repo, s.mem); err != nil {
		t.Fatal(err)
	}
	graphs.Lock()
	graphs.open = nil
	graphs.Unlock()
	if pack, err = s.Context(context.Background(), q, PackOptions{Mode: Lexical}); err != nil || strings.Contains(pack.Markdown, "Connected files") {
		t.Fatalf("pack without a graph cache: %v\n%s", err, pack.Markdown)
	}
}
