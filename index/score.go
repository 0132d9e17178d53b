package index

import (
	"container/heap"
	"math"
	"sort"
)

// fieldQuery is a query of one field: a disjunction of its terms, each
// boosted by its weight times boost.
type fieldQuery struct {
	field int
	terms []Term
	boost float64
	card  int // the field's total length, for BM25's average
}

// segHit is a document a query matched.
type segHit struct {
	seg, doc int
	score    float64
}

// BM25's parameters, as bleve's (search.BM25_k1, search.BM25_b).
var bm25K1, bm25B = 1.2, 0.75

// score ranks the live documents of x for a disjunction of field
// queries, over docTotal documents, as bleve's BM25 scores a disjunction
// of disjunctions of term queries, to the bit. A term's score is
//
//	idf · √tf·k1 / (√tf + k1·(1 − b + b·len/avg)) · (boost·idf·norm)
//
// where idf = ln(1 + (N − df + 0.5)/(df + 0.5)), avg is ⌈card/N⌉ of its
// field, len is the document's length as bleve stores it (through a
// float32 of 1/√len), and norm is 1/√Σ(boost·idf)² over every term of
// every field (in bleve's order of summing, see below). A field's score
// is the sum of its terms' times the share of its terms the document
// holds; a document's, the sum of its fields' times the share of the
// fields it matches. (Of one field, that is the field's score: bleve's
// disjunction of term queries.) Of no length at all (card 0), bleve's
// average is 0 and it scores a field by TF-IDF: tf·norm·idf with
// idf = 1 + ln(N/(df+1)).
//
// The n best come first; ties go to the smaller id.
//
// bleve keeps each product (a term's weight, a term's and a field's
// score) in a field or behind an interface call before adding it, so
// it is rounded; here the sum is in the same function, which Go may
// compile to a fused multiply-add (arm64, ppc64le, s390x, riscv64 do):
// the float64 conversions round the products as bleve does.
func (x *segIndex) score(qs []fieldQuery, docTotal, n int) ([]segHit, error) {
	if docTotal <= 0 || len(qs) == 0 || n <= 0 {
		return nil, nil
	}
	N := float64(uint64(docTotal))
	nseg := len(x.segs)
	type term struct {
		at    []int // its index in each segment, or -1
		idf   float64
		boost float64
	}
	type group struct {
		terms  []term
		order  termsByCount
		avg    float64
		bm25   bool
		weight float64 // Σ(boost·idf)², in order
	}
	gs := make([]group, len(qs))
	gcounts := make([]int, len(qs))
	for gi, q := range qs {
		g := &gs[gi]
		if q.card < 0 {
			return nil, nil
		}
		g.avg = math.Ceil(float64(q.card) / N)
		g.bm25 = g.avg > 0
		g.terms = make([]term, len(q.terms))
		g.order = termsByCount{idx: make([]int, len(q.terms)), counts: make([]int, len(q.terms))}
		for i, t := range q.terms {
			key := termKey(x.nf, q.field, t.Text)
			tm := term{at: make([]int, nseg), boost: t.Weight * q.boost}
			count := 0
			for si, s := range x.segs {
				ti := s.findKey(key)
				tm.at[si] = ti
				if ti >= 0 {
					c, err := x.count(si, ti)
					if err != nil {
						return nil, err
					}
					count += c
				}
			}
			df := float64(uint64(count))
			if g.bm25 {
				tm.idf = math.Log(1 + (N-df+0.5)/(df+0.5))
			} else {
				tm.idf = 1.0 + math.Log(N/float64(uint64(count)+1))
			}
			g.terms[i] = tm
			g.order.idx[i] = i
			g.order.counts[i] = count
			gcounts[gi] += count
		}
		// bleve's disjunction orders its searchers by their document
		// counts with sort.Sort, and sums in that order; the same sort
		// of the same sequence gives the same order, ties included.
		sort.Sort(g.order)
		for _, i := range g.order.idx {
			w := g.terms[i].boost * g.terms[i].idf
			g.weight += float64(w * w)
		}
	}
	outer := termsByCount{idx: make([]int, len(qs)), counts: gcounts}
	for i := range outer.idx {
		outer.idx[i] = i
	}
	sort.Sort(outer)
	sumSq := 0.0
	for _, gi := range outer.idx {
		sumSq += gs[gi].weight
	}
	qnorm := 1.0 / math.Sqrt(sumSq)

	top := &hitTop{x: x, n: n}
	var acc, total []float64
	var cnt []int32
	var matched []uint8
	var touched, hit []int32
	for si, s := range x.segs {
		acc, cnt = grow(acc, s.docs), grow(cnt, s.docs)
		total, matched = grow(total, s.docs), grow(matched, s.docs)
		hit = hit[:0]
		for _, gi := range outer.idx {
			g := &gs[gi]
			touched = touched[:0]
			for _, i := range g.order.idx {
				tm := &g.terms[i]
				ti := tm.at[si]
				if ti < 0 {
					continue
				}
				qw := tm.boost * tm.idf * qnorm
				err := s.eachPosting(ti, func(doc, freq uint32) {
					if x.isDead(si, doc) {
						return
					}
					var tf float64
					if freq < uint32(len(sqrtCache)) {
						tf = sqrtCache[freq]
					} else {
						tf = math.Sqrt(float64(freq))
					}
					norm := float64(float32(1.0 / math.Sqrt(float64(s.length(int(doc), qs[gi].field)))))
					var score float64
					if g.bm25 {
						fieldLength := 1 / (norm * norm)
						score = tm.idf * (tf * bm25K1) /
							(tf + bm25K1*(1-bm25B+(bm25B*fieldLength/g.avg)))
					} else {
						score = tf * norm * tm.idf
					}
					if qw != 1.0 {
						score = float64(score * qw)
					}
					if cnt[doc] == 0 {
						touched = append(touched, int32(doc))
					}
					acc[doc] += score
					cnt[doc]++
				})
				if err != nil {
					return nil, err
				}
			}
			for _, d := range touched {
				coord := float64(cnt[d]) / float64(len(g.terms))
				if matched[d] == 0 {
					hit = append(hit, d)
				}
				total[d] += float64(acc[d] * coord)
				matched[d]++
				acc[d], cnt[d] = 0, 0
			}
		}
		for _, d := range hit {
			coord := float64(matched[d]) / float64(len(qs))
			top.offer(segHit{si, int(d), total[d] * coord})
			total[d], matched[d] = 0, 0
		}
	}
	out := make([]segHit, len(top.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(top).(segHit)
	}
	return out, nil
}

// grow returns a zeroed slice of n elements, reusing s's memory when it
// is large enough (its first n elements are zero already).
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// hitTop keeps the n best hits: a min-heap whose root is the worst.
type hitTop struct {
	x *segIndex
	n int
	h []segHit
}

// worse says whether a ranks below b: a lower score, or the same and a
// larger id.
func (t *hitTop) worse(a, b segHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return t.x.segs[a.seg].id(a.doc) > t.x.segs[b.seg].id(b.doc)
}

func (t *hitTop) offer(h segHit) {
	if len(t.h) < t.n {
		heap.Push(t, h)
	} else if t.worse(t.h[0], h) {
		t.h[0] = h
		heap.Fix(t, 0)
	}
}

func (t *hitTop) Len() int           { return len(t.h) }
func (t *hitTop) Less(i, j int) bool { return t.worse(t.h[i], t.h[j]) }
func (t *hitTop) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *hitTop) Push(v any)         { t.h = append(t.h, v.(segHit)) }
func (t *hitTop) Pop() any {
	v := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return v
}

// termsByCount sorts searchers by their document counts, as bleve's
// OrderedSearcherList sorts them.
type termsByCount struct {
	idx    []int
	counts []int // each one's live documents
}

func (o termsByCount) Len() int { return len(o.idx) }
func (o termsByCount) Less(i, j int) bool {
	return o.counts[o.idx[i]] < o.counts[o.idx[j]]
}
func (o termsByCount) Swap(i, j int) { o.idx[i], o.idx[j] = o.idx[j], o.idx[i] }

// sqrtCache is bleve's table of square roots of small frequencies
// (scorer.SqrtCache): the same values math.Sqrt gives.
var sqrtCache = func() []float64 {
	c := make([]float64, 64)
	for i := range c {
		c[i] = math.Sqrt(float64(i))
	}
	return c
}()
