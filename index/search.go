package index

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

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
	// TextOnly matches the term in the text only, never in a name or a
	// path: an English word of the question ("done", "when") says nothing
	// about which symbol or file is meant.
	TextOnly bool
}

// Boosts weigh the fields of a lexical query against the text field.
type Boosts struct {
	Name float64 // a term matching the section's name or qualified name
	Path float64 // a term matching the section's path
	// LengthScale scales the average section length BM25 normalises by
	// (0 or 1: the true average).
	LengthScale float64
}

// DefaultBoosts are the field weights recall uses.
var DefaultBoosts = Boosts{Name: 0.6, Path: 0.4}

// QueryTerms analyses a query text into weighted terms: each distinct term
// once, weighted by how often the query repeats it.
func QueryTerms(text string) []Term {
	a := analyzerPool.Get().(*analyzer)
	defer analyzerPool.Put(a)
	// Most texts are names and short tasks, asked per candidate: a few
	// terms, found again by a scan; a map only past that.
	const scan = 16
	var idx map[string]int
	var out []Term
	a.terms(text, func(t string) {
		if idx == nil {
			for i := range out {
				if out[i].Text == t {
					out[i].Weight++
					return
				}
			}
			if len(out) == scan {
				idx = make(map[string]int, 2*scan)
				for i, o := range out {
					idx[o.Text] = i
				}
			}
		} else if i, ok := idx[t]; ok {
			out[i].Weight++
			return
		}
		if idx != nil {
			idx[t] = len(out)
		}
		out = append(out, Term{Text: t, Weight: 1})
	})
	return out
}

// searchTop runs req for its best req.Size hits, deterministically.
// Bleve keeps, of hits tied at the cut-off, the ones its segments hold
// first, so an index updated in place and one rebuilt from the same
// memory would return different sections. One hit more tells whether
// the cut falls inside a tie; only then (rarely: exact ties are
// identical texts) the search runs again ordered by score and then id,
// which costs about a sixth more per query on rails.
func searchTop(ctx context.Context, bl bleve.Index, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	n := req.Size
	req.Size = n + 1
	res, err := bl.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(res.Hits) > n && n > 0 && res.Hits[n-1].Score == res.Hits[n].Score {
		req.Size = n
		req.SortBy([]string{"-_score", "_id"})
		if res, err = bl.SearchInContext(ctx, req); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	if len(res.Hits) > n {
		res.Hits = res.Hits[:n]
	}
	return res, nil
}

// Lexical ranks sections by BM25 over their lexical text, plus boosted
// matches of the same terms in names and paths. Ties break by id, so
// results are deterministic.
func (ix *Index) Lexical(ctx context.Context, terms []Term, b Boosts, n int) ([]Hit, error) {
	if len(terms) == 0 || n <= 0 {
		return nil, nil
	}
	// Boosts go on the term queries: bleve does not apply a disjunction's.
	field := func(name string, boost float64) query.Query {
		qs := make([]query.Query, 0, len(terms))
		for _, t := range terms {
			if t.TextOnly && name != fieldText {
				continue
			}
			tq := query.NewTermQuery(t.Text)
			tq.SetField(name)
			tq.SetBoost(t.Weight * boost)
			qs = append(qs, tq)
		}
		return query.NewDisjunctionQuery(qs)
	}
	named := 0
	for _, t := range terms {
		if !t.TextOnly {
			named++
		}
	}
	qs := []query.Query{field(fieldText, 1)}
	if b.Name > 0 && named > 0 {
		qs = append(qs, field(fieldName, b.Name))
	}
	if b.Path > 0 && named > 0 {
		qs = append(qs, field(fieldPath, b.Path))
	}
	top := query.NewDisjunctionQuery(qs)
	req := bleve.NewSearchRequestOptions(top, n, 0, false)
	req.PreSearchData = ix.bm25Stats(ix.docs.n, b.LengthScale)
	res, err := searchTop(ctx, ix.bl, req)
	if err != nil {
		return nil, err
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

// bm25Stats gives bleve the statistics BM25 is defined with: the number
// of documents and, per field, the total analysed length, so that the
// average field length is what it says. (Left alone, bleve divides the
// size of each segment's term dictionary, summed over segments, by the
// document count: a number that is not a length and that changes with how
// an index happens to be segmented, so a rebuilt and an updated index of
// the same memory would rank differently.)
func (ix *Index) bm25Stats(docs int, scale float64) map[string]interface{} {
	card := map[string]int{}
	for f := range ix.meta.Tokens {
		card[f] = ix.cardinality(f, scale)
	}
	return map[string]interface{}{bsearch.BM25PreSearchDataKey: &bsearch.BM25Stats{DocCount: float64(docs), FieldCardinality: card}}
}

// cardinality is a field's total analysed length, scaled (scale 0 or 1:
// the true total), which BM25 divides by the documents for the average.
func (ix *Index) cardinality(field string, scale float64) int {
	if scale <= 0 {
		scale = 1
	}
	return int(float64(ix.meta.Tokens[field]) * scale)
}

// FileHit is a file ranked as a whole.
type FileHit struct {
	Path  string
	Score float64
}

// Files ranks whole files by BM25 over all of their text.
// lengthScale scales the average file length BM25 normalises by (1: the
// true average; smaller: long files lose more).
func (ix *Index) Files(ctx context.Context, terms []Term, n int, lengthScale float64) ([]FileHit, error) {
	if len(terms) == 0 || n <= 0 {
		return nil, nil
	}
	if ix.fx == nil {
		return nil, errors.New("index: the generation was opened without its search indexes")
	}
	return ix.fx.search(terms, ix.files, ix.cardinality(fieldFile, lengthScale), n)
}

// TermCount is a term of the index's vocabulary and the number of
// sections whose text holds it.
type TermCount struct {
	Term  string
	Count int
}

// PrefixTerms lists up to limit terms of the sections' text that start
// with prefix (prefix itself included when present), in term order: the
// repository's own words for a query word ("rout" → router, routes).
// Counts are of live sections, as DocFreq's.
func (ix *Index) PrefixTerms(prefix string, limit int) []TermCount {
	if prefix == "" || limit <= 0 {
		return nil
	}
	c, err := ix.counter()
	if err != nil {
		return nil
	}
	defer c.close()
	d, err := c.r.FieldDictPrefix(fieldText, []byte(prefix))
	if err != nil {
		return nil
	}
	defer d.Close()
	var out []TermCount
	for len(out) < limit {
		e, err := d.Next()
		if err != nil || e == nil {
			break
		}
		// The walk's own counts are not used: past a term held by one
		// section (which a merged segment stores in one word, zap's
		// "1-hit" encoding), bleve's dictionary walk reports every
		// later term of the segment as held by one section.
		if n := c.live(e.Term); n > 0 {
			out = append(out, TermCount{Term: e.Term, Count: n})
		}
	}
	return out
}

// DocFreq is the number of sections whose text holds term.
func (ix *Index) DocFreq(term string) int {
	c, err := ix.counter()
	if err != nil {
		return 0
	}
	defer c.close()
	return c.live(term)
}

// termCounter counts the live sections that hold a term, from each
// segment's postings less its deleted documents: an update deletes a
// changed file's old sections, which stay in their segment until it is
// merged. Counted otherwise, an updated index would expand queries and
// judge evidence otherwise than a rebuilt one of the same memory.
type termCounter struct {
	r    bindex.IndexReader
	segs []segmentText
	pl   segment.PostingsList // reused between lookups
}

// segmentText is a segment's text dictionary and its deleted documents.
type segmentText struct {
	dict    segment.TermDictionary
	deleted *roaring.Bitmap
}

func (ix *Index) counter() (*termCounter, error) {
	adv, err := ix.bl.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	c := &termCounter{r: r}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		r.Close()
		return nil, fmt.Errorf("index: bleve reader %T is not a scorch snapshot", r)
	}
	for _, ss := range snap.Segments() {
		dict, err := ss.Segment().Dictionary(fieldText)
		if err != nil {
			r.Close()
			return nil, err
		}
		c.segs = append(c.segs, segmentText{dict, ss.Deleted()})
	}
	return c, nil
}

// live is the number of live sections holding term.
func (c *termCounter) live(term string) int {
	n := 0
	for _, s := range c.segs {
		pl, err := s.dict.PostingsList([]byte(term), s.deleted, c.pl)
		if err != nil {
			continue
		}
		c.pl = pl
		n += int(pl.Count())
	}
	return n
}

func (c *termCounter) close() { c.r.Close() }

// Nearest ranks sections by the cosine similarity of their best vector to
// q. Every stored vector's cosine is first estimated from ternary sketches
// (a few AND/POPCNT instructions each); the most promising shortlist (at
// least 4,000 vectors, 20 per hit asked for) is then scored exactly in
// int8. TestNearestShortlist checks that the shortlist keeps the exact
// nearest. Nearest returns nothing when the index holds no vectors of q's
// dimension.
func (ix *Index) Nearest(q embed.Quantized, n int) []Hit {
	t := ix.vecs
	if t == nil || t.n == 0 || t.dim != len(q.Q) || n <= 0 {
		return nil
	}
	short := max(shortlistMin, 20*n)
	var rows []int32
	if short >= t.n {
		rows = make([]int32, t.n)
		for i := range rows {
			rows[i] = int32(i)
		}
	} else {
		rows = t.shortlist(sketch(nil, q.Q), short)
	}
	// Exact scores, best per doc, kept in a heap of the n best (a total
	// order, so the order docs arrive in does not matter).
	h := &hitHeap{}
	push := func(hit Hit) {
		if h.Len() < n {
			heap.Push(h, hit)
		} else if worse((*h)[0], hit) {
			(*h)[0] = hit
			heap.Fix(h, 0)
		}
	}
	dim := t.dim
	score := func(i int32) float64 {
		return float64(embed.DotInt8(q.Q, t.q[int(i)*dim:(int(i)+1)*dim])) * float64(q.Scale) * float64(t.scales[i])
	}
	if inDocOrder(t, rows) {
		// A doc's rows are adjacent: its best is known when the next
		// doc's first row comes, and no map is needed (a map of the
		// shortlist's docs was a twentieth of a CLI recall's page faults
		// on the Go tree).
		cur, best := -1, 0.0
		for _, i := range rows {
			s := score(i)
			if d := int(t.docs[i]); d != cur {
				if cur >= 0 {
					push(Hit{Doc: cur, Score: best})
				}
				cur, best = d, s
			} else if s > best {
				best = s
			}
		}
		if cur >= 0 {
			push(Hit{Doc: cur, Score: best})
		}
	} else {
		best := make(map[int]float64, len(rows))
		for _, i := range rows {
			s := score(i)
			d := int(t.docs[i])
			if b, ok := best[d]; !ok || s > b {
				best[d] = s
			}
		}
		for d, s := range best {
			push(Hit{Doc: d, Score: s})
		}
	}
	out := []Hit(*h)
	sortHits(out)
	return out
}

// inDocOrder reports whether the docs of rows never decrease: then each
// doc's rows are adjacent. Tables are written in doc order; a table that
// is not is still searched right, through a map.
func inDocOrder(t *vecTable, rows []int32) bool {
	for k := 1; k < len(rows); k++ {
		if t.docs[rows[k]] < t.docs[rows[k-1]] {
			return false
		}
	}
	return true
}

// shortlistMin is the smallest shortlist Nearest scores exactly.
const shortlistMin = 4000

// shortlist returns about m rows (ties at the cut-off included) whose
// sketches promise the highest cosine with the query's sketch qs: the
// ternary dot product, normalised by the number of components each side
// has. It runs on every CPU.
func (t *vecTable) shortlist(qs []uint64, m int) []int32 {
	workers := runtime.GOMAXPROCS(0)
	if t.n < 32768 {
		workers = 1
	}
	words := t.words
	qp, qn := qs[:words], qs[words:2*words]
	qnnz := 0
	for k := 0; k < words; k++ {
		qnnz += bits.OnesCount64(qp[k]) + bits.OnesCount64(qn[k])
	}
	if qnnz == 0 {
		qnnz = 1
	}
	// The estimates, and a copy of them for the selection below: a
	// search's largest allocation (8 bytes a vector), so reused.
	buf, _ := t.scratch.Get().(*[]float32)
	if buf == nil || len(*buf) != 2*t.n {
		b := make([]float32, 2*t.n)
		buf = &b
	}
	defer t.scratch.Put(buf)
	est, tmp := (*buf)[:t.n], (*buf)[t.n:]
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := t.n*w/workers, t.n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				b := t.bits[2*i*words : 2*(i+1)*words : 2*(i+1)*words]
				rp, rn := b[:words], b[words:]
				agree, disagree, nnz := 0, 0, 0
				for k := 0; k < words; k++ {
					agree += bits.OnesCount64(qp[k]&rp[k]) + bits.OnesCount64(qn[k]&rn[k])
					disagree += bits.OnesCount64(qp[k]&rn[k]) + bits.OnesCount64(qn[k]&rp[k])
					nnz += bits.OnesCount64(rp[k]) + bits.OnesCount64(rn[k])
				}
				if nnz == 0 {
					nnz = 1
				}
				est[i] = float32(agree-disagree) / float32(math.Sqrt(float64(nnz*qnnz)))
			}
		}()
	}
	wg.Wait()
	// The m-th largest estimate, by selection on a copy.
	copy(tmp, est)
	cut := nthLargest(tmp, m)
	rows := make([]int32, 0, m+m/8)
	for i, e := range est {
		if e >= cut {
			rows = append(rows, int32(i))
		}
	}
	return rows
}

// nthLargest returns the k-th largest value of a (k >= 1), reordering a.
func nthLargest(a []float32, k int) float32 {
	if k > len(a) {
		k = len(a)
	}
	lo, hi, want := 0, len(a)-1, k-1
	for lo < hi {
		p := a[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] > p {
				i++
			}
			for a[j] < p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return a[want]
		}
	}
	return a[want]
}

func sortHits(h []Hit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Score != h[j].Score {
			return h[i].Score > h[j].Score
		}
		return h[i].Doc < h[j].Doc
	})
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
