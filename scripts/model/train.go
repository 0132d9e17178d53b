package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// trainer holds the token table being learned: row t of E is token t's
// direction; idf weights stay fixed and are folded into the rows when the
// model is written.
type trainer struct {
	dim   int
	vocab []string
	ids   map[string]int32
	idf   []float32
	E     []float32 // len(vocab) × dim
	G     []float32 // Adagrad accumulators, same shape
	lr    float32
	temp  float32
	grad  []float32 // scratch, same shape; rows listed in touched
	touch []bool
	rows  []int32
}

// example is a pair turned into token ids with their weights.
type example struct {
	repo  int
	q     bag
	docs  []bag
	group string // repo/commit: docs of one commit are not each other's negatives
}

type bag struct {
	ids []int32
	w   []float32 // idf × (1+ln tf)
}

func buildVocab(all [][]pair, size, minDF int) ([]string, []float32) {
	df := map[string]int{}
	n := 0
	count := func(ts []string) {
		seen := map[string]bool{}
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
		n++
	}
	for _, ps := range all {
		for _, p := range ps {
			count(p.Query)
			for _, d := range p.Docs {
				count(d)
			}
		}
	}
	type kv struct {
		t string
		n int
	}
	var kvs []kv
	for t, c := range df {
		if c >= minDF {
			kvs = append(kvs, kv{t, c})
		}
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].n != kvs[j].n {
			return kvs[i].n > kvs[j].n
		}
		return kvs[i].t < kvs[j].t
	})
	if len(kvs) > size {
		kvs = kvs[:size]
	}
	vocab := make([]string, len(kvs))
	idf := make([]float32, len(kvs))
	for i, e := range kvs {
		vocab[i] = e.t
		idf[i] = float32(math.Log(float64(n+1) / float64(e.n+1)))
	}
	return vocab, idf
}

func newTrainer(vocab []string, idf []float32, dim int, rng *rand.Rand) *trainer {
	t := &trainer{dim: dim, vocab: vocab, idf: idf, ids: make(map[string]int32, len(vocab)), lr: 0.05, temp: 0.05}
	for i, v := range vocab {
		t.ids[v] = int32(i)
	}
	t.E = make([]float32, len(vocab)*dim)
	t.G = make([]float32, len(vocab)*dim)
	t.grad = make([]float32, len(vocab)*dim)
	t.touch = make([]bool, len(vocab))
	s := 1 / math.Sqrt(float64(dim))
	for i := range t.E {
		t.E[i] = float32(rng.NormFloat64() * s)
	}
	for i := range t.G {
		t.G[i] = 1e-6
	}
	return t
}

func (t *trainer) bag(ts []string) bag {
	counts := map[int32]int{}
	var order []int32
	for _, s := range ts {
		if id, ok := t.ids[s]; ok {
			if counts[id] == 0 {
				order = append(order, id)
			}
			counts[id]++
		}
	}
	b := bag{ids: order, w: make([]float32, len(order))}
	for i, id := range order {
		b.w[i] = t.idf[id] * float32(1+math.Log(float64(counts[id])))
	}
	return b
}

// embed returns the unnormalised sum u and its norm.
func (t *trainer) embed(b bag, u []float32) float32 {
	clear(u)
	for i, id := range b.ids {
		row := t.E[int(id)*t.dim : int(id+1)*t.dim]
		w := b.w[i]
		for j, x := range row {
			u[j] += w * x
		}
	}
	var s float64
	for _, x := range u {
		s += float64(x) * float64(x)
	}
	return float32(math.Sqrt(s)) + 1e-6
}

// step trains on one batch: query i's positive is doc i; every other doc
// in the batch (of another commit) is a negative, and the loss is
// symmetric. It returns the mean loss.
func (t *trainer) step(qs, ds []bag, groups []string) float64 {
	B, D := len(qs), t.dim
	qv := make([]float32, B*D)
	dv := make([]float32, B*D)
	qn := make([]float32, B)
	dn := make([]float32, B)
	for i := range qs {
		qn[i] = t.embed(qs[i], qv[i*D:(i+1)*D])
		dn[i] = t.embed(ds[i], dv[i*D:(i+1)*D])
		scale(qv[i*D:(i+1)*D], 1/qn[i])
		scale(dv[i*D:(i+1)*D], 1/dn[i])
	}
	S := make([]float64, B*B)
	for i := 0; i < B; i++ {
		for j := 0; j < B; j++ {
			if i != j && groups[i] == groups[j] {
				S[i*B+j] = math.Inf(-1)
				continue
			}
			S[i*B+j] = float64(dot(qv[i*D:(i+1)*D], dv[j*D:(j+1)*D])) / float64(t.temp)
		}
	}
	Gs := make([]float64, B*B) // dL/dS
	loss := 0.0
	for i := 0; i < B; i++ { // rows: query → docs
		loss += softmaxGrad(S, Gs, i*B, 1, B, i)
	}
	for j := 0; j < B; j++ { // columns: doc → queries
		loss += softmaxGrad(S, Gs, j, B, B, j)
	}
	inv := 1 / (2 * float64(B))
	gq := make([]float32, D)
	gd := make([]float32, D)
	// dL/dq_i = Σ_j G_ij d_j / temp; dL/dd_j = Σ_i G_ij q_i / temp
	gdAll := make([]float32, B*D)
	for i := 0; i < B; i++ {
		clear(gq)
		for j := 0; j < B; j++ {
			g := float32(Gs[i*B+j] * inv / float64(t.temp))
			if g == 0 {
				continue
			}
			axpy(gq, g, dv[j*D:(j+1)*D])
			axpy(gdAll[j*D:(j+1)*D], g, qv[i*D:(i+1)*D])
		}
		t.backward(qs[i], qv[i*D:(i+1)*D], qn[i], gq)
	}
	for j := 0; j < B; j++ {
		copy(gd, gdAll[j*D:(j+1)*D])
		t.backward(ds[j], dv[j*D:(j+1)*D], dn[j], gd)
	}
	t.apply()
	return loss * inv
}

// softmaxGrad adds the cross-entropy gradient of the B logits S[off+k*stride]
// with target k=target into G, and returns the loss.
func softmaxGrad(S, G []float64, off, stride, B, target int) float64 {
	m := math.Inf(-1)
	for k := 0; k < B; k++ {
		m = math.Max(m, S[off+k*stride])
	}
	sum := 0.0
	for k := 0; k < B; k++ {
		sum += math.Exp(S[off+k*stride] - m)
	}
	for k := 0; k < B; k++ {
		p := math.Exp(S[off+k*stride]-m) / sum
		if k == target {
			p--
		}
		G[off+k*stride] += p
	}
	return -(S[off+target*stride] - m - math.Log(sum))
}

// backward takes g = dL/dv for v = u/|u| to the rows of the bag's tokens.
func (t *trainer) backward(b bag, v []float32, norm float32, g []float32) {
	D := t.dim
	p := dot(v, g)
	gu := make([]float32, D)
	for j := range gu {
		gu[j] = (g[j] - v[j]*p) / norm
	}
	for i, id := range b.ids {
		if !t.touch[id] {
			t.touch[id] = true
			t.rows = append(t.rows, id)
		}
		axpy(t.grad[int(id)*D:int(id+1)*D], b.w[i], gu)
	}
}

func (t *trainer) apply() {
	D := t.dim
	for _, id := range t.rows {
		g := t.grad[int(id)*D : int(id+1)*D]
		e := t.E[int(id)*D : int(id+1)*D]
		acc := t.G[int(id)*D : int(id+1)*D]
		for j, x := range g {
			acc[j] += x * x
			e[j] -= t.lr * x / float32(math.Sqrt(float64(acc[j])))
		}
		clear(g)
		t.touch[id] = false
	}
	t.rows = t.rows[:0]
}

// rowsOut returns the rows as the model stores them: each token's
// direction scaled by its idf.
func (t *trainer) rowsOut() [][]float32 {
	out := make([][]float32, len(t.vocab))
	for i := range out {
		r := make([]float32, t.dim)
		copy(r, t.E[i*t.dim:(i+1)*t.dim])
		scale(r, t.idf[i])
		out[i] = r
	}
	return out
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(y []float32, a float32, x []float32) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func scale(v []float32, a float32) {
	for i := range v {
		v[i] *= a
	}
}

// mrr ranks, for each query of a held-out repository, every document of
// that repository's sampled commits by cosine and returns the mean
// reciprocal rank of the first document of the query's own commit.
func (t *trainer) mrr(exs []example, limit int) float64 {
	if len(exs) > limit {
		exs = exs[:limit]
	}
	D := t.dim
	var docs []float32
	var owner []int
	u := make([]float32, D)
	for i, e := range exs {
		for _, d := range e.docs {
			n := t.embed(d, u)
			scale(u, 1/n)
			docs = append(docs, u...)
			owner = append(owner, i)
		}
	}
	total := 0.0
	for i, e := range exs {
		n := t.embed(e.q, u)
		scale(u, 1/n)
		best := math.Inf(-1)
		var scores []float64
		for k := range owner {
			s := float64(dot(u, docs[k*D:(k+1)*D]))
			scores = append(scores, s)
			if owner[k] == i {
				best = math.Max(best, s)
			}
		}
		rank := 1
		for k, s := range scores {
			if owner[k] != i && s > best {
				rank++
			}
		}
		total += 1 / float64(rank)
	}
	return total / float64(len(exs))
}

func (t *trainer) String() string {
	return fmt.Sprintf("vocab %d, dim %d", len(t.vocab), t.dim)
}
