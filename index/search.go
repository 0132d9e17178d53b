package index

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync"

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

// Lexical ranks sections by BM25 over their lexical text, plus boosted
// matches of the same terms in names and paths. Ties break by id, so
// results are deterministic.
func (ix *Index) Lexical(ctx context.Context, terms []Term, b Boosts, n int) ([]Hit, error) {
	if len(terms) == 0 || n <= 0 {
		return nil, nil
	}
	if ix.sx == nil {
		return nil, errNotSearchable
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A disjunction of the fields' disjunctions, as bleve's query was:
	// the terms in every field but the text only in the text.
	var named []Term
	for _, t := range terms {
		if !t.TextOnly {
			named = append(named, t)
		}
	}
	qs := []fieldQuery{{field: textField, terms: terms, boost: 1, card: ix.cardinality(fieldText, b.LengthScale)}}
	if b.Name > 0 && len(named) > 0 {
		qs = append(qs, fieldQuery{field: nameField, terms: named, boost: b.Name, card: ix.cardinality(fieldName, b.LengthScale)})
	}
	if b.Path > 0 && len(named) > 0 {
		qs = append(qs, fieldQuery{field: pathField, terms: named, boost: b.Path, card: ix.cardinality(fieldPath, b.LengthScale)})
	}
	hs, err := ix.sx.score(qs, ix.docs.n, n)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(hs))
	for _, h := range hs {
		if i := ix.docs.find(ix.sx.segs[h.seg].id(h.doc)); i >= 0 {
			hits = append(hits, Hit{Doc: i, Score: h.score})
		}
	}
	return hits, nil
}

// cardinality is a field's total analysed length, scaled (scale 0 or 1:
// the true total), which BM25 divides by the documents for the average.
// The totals are the memory's (meta.json), not the segments': a rebuilt
// and an updated index of the same memory rank alike.
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
		return nil, errNotSearchable
	}
	return ix.fx.searchFiles(terms, ix.files, ix.cardinality(fieldFile, lengthScale), n)
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
	if ix.sx == nil {
		return nil
	}
	return ix.sx.prefixTerms(textField, prefix, limit)
}

// DocFreq is the number of sections whose text holds term.
func (ix *Index) DocFreq(term string) int {
	if ix.sx == nil {
		return 0
	}
	return ix.sx.docFreq(textField, term)
}

// errNotSearchable is a search of a generation opened without its
// search indexes (see openGen).
var errNotSearchable = errors.New("index: the generation was opened without its search indexes")

// Nearest ranks sections by the cosine similarity of their best vector to
// q. Every stored vector's cosine is first estimated from ternary sketches
// (a few AND/POPCNT instructions each); the most promising shortlist (at
// least 4,000 vectors, 20 per hit asked for) is then scored exactly in
// int8. TestNearestShortlist checks that the shortlist keeps the exact
// nearest. Nearest returns nothing when the index holds no vectors of q's
// dimension.
func (ix *Index) Nearest(q embed.Quantized, n int) []Hit {
	if n <= 0 {
		return nil
	}
	// The tables holding vectors of q's dimension: the base's, and an
	// overlay's (see layers.go). The shortlist's cut is taken over the
	// live rows of all of them, so that the rows scored, and the hits, are
	// those one table of the same vectors gives.
	var ls []vecLayer
	live := 0
	for _, l := range ix.vecLayers() {
		if l.t.dim == len(q.Q) && l.live > 0 {
			ls = append(ls, l)
			live += l.live
		}
	}
	if live == 0 {
		return nil
	}
	short := max(shortlistMin, 20*n)
	var rows [][]int32
	if short >= live {
		rows = make([][]int32, len(ls))
		for k, l := range ls {
			for i := range l.t.n {
				if l.liveRow(i) {
					rows[k] = append(rows[k], int32(i))
				}
			}
		}
	} else {
		rows = shortlist(ls, sketch(nil, q.Q), short, &ix.scratch)
	}
	// Exact scores, best per doc, kept in a heap of the n best (a total
	// order, so the order docs arrive in does not matter).
	h := &hitHeap{}
	push := h.pusher(n)
	for k, l := range ls {
		pushBest(l.t, rows[k], q, l.doc, push)
	}
	out := []Hit(*h)
	sortHits(out)
	return out
}

// pusher returns a function that keeps the n best hits pushed in h.
func (h *hitHeap) pusher(n int) func(Hit) {
	return func(hit Hit) {
		if h.Len() < n {
			heap.Push(h, hit)
		} else if worse((*h)[0], hit) {
			(*h)[0] = hit
			heap.Fix(h, 0)
		}
	}
}

// pushBest pushes each doc's best exact cosine over rows of t, the doc
// of a row given by docOf.
func pushBest(t *vecTable, rows []int32, q embed.Quantized, docOf func(int32) int, push func(Hit)) {
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
			if d := docOf(i); d != cur {
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
		return
	}
	best := make(map[int]float64, len(rows))
	for _, i := range rows {
		d := docOf(i)
		if d < 0 {
			// A dead doc's row in a table out of doc order (damaged),
			// which the dead rows' binary search missed.
			continue
		}
		s := score(i)
		if b, ok := best[d]; !ok || s > b {
			best[d] = s
		}
	}
	for d, s := range best {
		push(Hit{Doc: d, Score: s})
	}
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

// shortlistMin is the smallest shortlist Nearest scores exactly (a
// variable for the tests).
var shortlistMin = 4000

// shortlist returns, per layer, about m of its live rows in all (ties at
// the cut-off included) whose sketches promise the highest cosine with
// the query's sketch qs: the ternary dot product, normalised by the
// number of components each side has. It runs on every CPU. The
// estimates and their copy for the selection, a search's largest
// allocation (8 bytes a vector), are kept in scratch between searches.
func shortlist(ls []vecLayer, qs []uint64, m int, scratch *sync.Pool) [][]int32 {
	total := 0
	for _, l := range ls {
		total += l.t.n
	}
	buf, _ := scratch.Get().(*[]float32)
	if buf == nil || len(*buf) != 2*total {
		b := make([]float32, 2*total)
		buf = &b
	}
	defer scratch.Put(buf)
	est, tmp := (*buf)[:total], (*buf)[total:total]
	at := 0
	for _, l := range ls {
		e := est[at : at+l.t.n]
		l.t.estimate(qs, queryNonZero(qs, l.t.words), e)
		for i, v := range e {
			if l.liveRow(i) {
				tmp = append(tmp, v)
			}
		}
		at += l.t.n
	}
	// The m-th largest live estimate, by selection on the copy.
	cut := nthLargest(tmp, m)
	rows := make([][]int32, len(ls))
	at = 0
	for k, l := range ls {
		for i, v := range est[at : at+l.t.n] {
			if v >= cut && l.liveRow(i) {
				rows[k] = append(rows[k], int32(i))
			}
		}
		at += l.t.n
	}
	return rows
}

// estimate sets est[i] to the sketch estimate of row i's cosine with the
// query's sketch qs (of qnnz components), on every CPU.
func (t *vecTable) estimate(qs []uint64, qnnz int, est []float32) {
	workers := runtime.GOMAXPROCS(0)
	if t.n < 32768 {
		workers = 1
	}
	words := t.words
	qp, qn := qs[:words], qs[words:2*words]
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
}

// queryNonZero is the number of components a query's sketch holds (at
// least 1).
func queryNonZero(qs []uint64, words int) int {
	qnnz := 0
	for k := 0; k < words; k++ {
		qnnz += bits.OnesCount64(qs[k]) + bits.OnesCount64(qs[words+k])
	}
	return max(qnnz, 1)
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
