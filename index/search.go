package index

import (
	"container/heap"
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/konteks/git-konteks/embed"
)

// Hit is a ranked section: its ordinal in the docs table and its score.
type Hit struct {
	Doc   int
	Score float64
}

// Term is a query term with a weight.
type Term struct {
	Text   string
	Weight float64
}

// Boosts weigh the fields of a lexical query against the text field.
type Boosts struct {
	Name float64 // a term matching the section's name or qualified name
	Path float64 // a term matching the section's path
}

// DefaultBoosts are the field weights recall uses.
var DefaultBoosts = Boosts{Name: 0.6, Path: 0.4}

// QueryTerms analyses a query text into weighted terms: each distinct term
// once, weighted by how often the query repeats it.
func QueryTerms(text string) []Term {
	a := analyzerPool.Get().(*analyzer)
	defer analyzerPool.Put(a)
	idx := map[string]int{}
	var out []Term
	a.terms(text, func(t string) {
		if i, ok := idx[t]; ok {
			out[i].Weight++
			return
		}
		idx[t] = len(out)
		out = append(out, Term{Text: t, Weight: 1})
	})
	return out
}

// Lexical ranks sections by BM25 over their lexical text, plus boosted
// matches of the same terms in names and paths. Ties break by id, so
// results are deterministic.
func (ix *Index) Lexical(ctx context.Context, terms []Term, b Boosts, n int) ([]Hit, error) {
	if len(terms) == 0 || n <= 0 {
		return nil, nil
	}
	field := func(name string, boost float64) query.Query {
		qs := make([]query.Query, 0, len(terms))
		for _, t := range terms {
			tq := query.NewTermQuery(t.Text)
			tq.SetField(name)
			tq.SetBoost(t.Weight)
			qs = append(qs, tq)
		}
		d := query.NewDisjunctionQuery(qs)
		d.SetBoost(boost)
		return d
	}
	qs := []query.Query{field(fieldText, 1)}
	if b.Name > 0 {
		qs = append(qs, field(fieldName, b.Name))
	}
	if b.Path > 0 {
		qs = append(qs, field(fieldPath, b.Path))
	}
	top := query.NewDisjunctionQuery(qs)
	req := bleve.NewSearchRequestOptions(top, n, 0, false)
	res, err := ix.bl.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		if i := ix.docs.find(h.ID); i >= 0 {
			hits = append(hits, Hit{Doc: i, Score: h.Score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Doc < hits[j].Doc
	})
	return hits, nil
}

// DocFreq is the number of sections whose text holds term.
func (ix *Index) DocFreq(term string) int {
	// A term query without scoring would need a full search; the field
	// dictionary answers directly.
	d, err := ix.bl.FieldDictRange(fieldText, []byte(term), []byte(term))
	if err != nil {
		return 0
	}
	defer d.Close()
	e, err := d.Next()
	if err != nil || e == nil {
		return 0
	}
	return int(e.Count)
}

// Nearest ranks sections by the cosine similarity of their best vector to
// q (exact search over every stored vector, on every CPU). It returns
// nothing when the index holds no vectors of q's dimension.
func (ix *Index) Nearest(q embed.Quantized, n int) []Hit {
	t := ix.vecs
	if t == nil || t.n == 0 || t.dim != len(q.Q) || n <= 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	if t.n < 4096 {
		workers = 1
	}
	// Split rows at doc boundaries so each doc is scored by one worker.
	bounds := []int{0}
	for w := 1; w < workers; w++ {
		i := t.n * w / workers
		for i < t.n && i > 0 && t.docs[i] == t.docs[i-1] {
			i++
		}
		bounds = append(bounds, i)
	}
	bounds = append(bounds, t.n)
	results := make([][]Hit, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			results[w] = t.scan(q, bounds[w], bounds[w+1], n)
		}(w)
	}
	wg.Wait()
	var all []Hit
	for _, r := range results {
		all = append(all, r...)
	}
	sortHits(all)
	if len(all) > n {
		all = all[:n]
	}
	return all
}

func sortHits(h []Hit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Score != h[j].Score {
			return h[i].Score > h[j].Score
		}
		return h[i].Doc < h[j].Doc
	})
}

// scan scores rows [lo, hi) and keeps the n best docs.
func (t *vecTable) scan(q embed.Quantized, lo, hi, n int) []Hit {
	h := &hitHeap{}
	dim := t.dim
	best := -2.0
	cur := -1
	flush := func() {
		if cur < 0 {
			return
		}
		if h.Len() < n {
			heap.Push(h, Hit{Doc: cur, Score: best})
		} else if worse((*h)[0], Hit{Doc: cur, Score: best}) {
			(*h)[0] = Hit{Doc: cur, Score: best}
			heap.Fix(h, 0)
		}
	}
	for i := lo; i < hi; i++ {
		d := int(t.docs[i])
		if d != cur {
			flush()
			cur, best = d, -2
		}
		s := float64(embed.DotInt8(q.Q, t.q[i*dim:(i+1)*dim])) * float64(q.Scale) * float64(t.scales[i])
		if s > best {
			best = s
		}
	}
	flush()
	return *h
}

// worse reports whether a ranks below b.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc > b.Doc
}

// hitHeap is a min-heap of the best hits so far (its root is the worst).
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
