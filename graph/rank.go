package graph

// Damping of the random walks: the chance of following an edge rather
// than jumping back (to any file, or to the seeds).
const Damping = 0.85

const damping = Damping

// pageRank is the global PageRank of the file graph (weighted, directed:
// a file many files use ranks high), scaled so the mean is 1.
func pageRank(n int, off, to []uint32, w []float32) []float32 {
	if n == 0 {
		return nil
	}
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		for k := off[i]; k < off[i+1]; k++ {
			out[i] += float64(w[k])
		}
	}
	r := make([]float64, n)
	next := make([]float64, n)
	for i := range r {
		r[i] = 1 / float64(n)
	}
	for it := 0; it < 40; it++ {
		dangling := 0.0
		for i := 0; i < n; i++ {
			if out[i] == 0 {
				dangling += r[i]
			}
		}
		base := (1-damping)/float64(n) + damping*dangling/float64(n)
		for i := range next {
			next[i] = base
		}
		for i := 0; i < n; i++ {
			if out[i] == 0 {
				continue
			}
			s := damping * r[i] / out[i]
			for k := off[i]; k < off[i+1]; k++ {
				next[to[k]] += s * float64(w[k])
			}
		}
		delta := 0.0
		for i := range r {
			d := next[i] - r[i]
			if d < 0 {
				d = -d
			}
			delta += d
		}
		r, next = next, r
		if delta < 1e-6 {
			break
		}
	}
	res := make([]float32, n)
	for i, x := range r {
		res[i] = float32(x * float64(n))
	}
	return res
}

// Personalized is a personalised PageRank on the seeds (file -> weight):
// the chance that a walk that starts at a seed, follows edges in either
// direction (a file's callers matter as much as its callees) in
// proportion to their weights, and returns to the seeds with probability
// 1-damping at every step, is at each file. It is computed by local push
// (Andersen, Chung and Lang), so it costs what the seeds' neighbourhood
// holds, not the whole graph; eps bounds the residual per unit of degree.
func (g *Graph) Personalized(seeds map[int]float64, eps float64) map[int]float64 {
	p := map[int]float64{}
	r := map[int]float64{}
	total := 0.0
	for s, w := range seeds {
		if s >= 0 && s < g.n && w > 0 {
			total += w
		}
	}
	if total == 0 {
		return p
	}
	var queue []int
	for s, w := range seeds {
		if s >= 0 && s < g.n && w > 0 {
			r[s] += w / total
			queue = append(queue, s)
		}
	}
	deg := func(u int) float64 { return float64(g.outSum[u] + g.inSum[u]) }
	for steps := 0; len(queue) > 0 && steps < 200000; steps++ {
		u := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		ru := r[u]
		du := deg(u)
		if ru <= 0 || (du > 0 && ru < eps*du) {
			continue
		}
		p[u] += (1 - damping) * ru
		r[u] = 0
		if du == 0 {
			p[u] += damping * ru
			continue
		}
		push := damping * ru / du
		visit := func(to []uint32, w []float32) {
			for k, v := range to {
				j := int(v)
				old := r[j]
				r[j] = old + push*float64(w[k])
				dj := deg(j)
				if old < eps*dj && r[j] >= eps*dj {
					queue = append(queue, j)
				}
			}
		}
		visit(g.outTo[g.outOff[u]:g.outOff[u+1]], g.outW[g.outOff[u]:g.outOff[u+1]])
		visit(g.inTo[g.inOff[u]:g.inOff[u+1]], g.inW[g.inOff[u]:g.inOff[u+1]])
	}
	return p
}
