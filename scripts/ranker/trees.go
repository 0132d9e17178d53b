package main

import (
	"math"
	"sort"

	"github.com/konteks/git-konteks/recall"
)

// Gradient-boosted trees on top of the linear model: the linear weights
// are fitted first, then each tree is fitted to the gradient and
// curvature of the same listwise loss at the current scores (Newton
// boosting), so trees add what a sum of features cannot say ("the vector
// signal counts when the lexical one is weak"). Splits are searched over
// at most maxBins quantile cuts of each feature.

const maxBins = 32

// treeOpts are the boosting settings.
type treeOpts struct {
	n      int     // trees
	depth  int     // levels of each tree
	shrink float64 // learning rate
	lambda float64 // L2 penalty of a leaf's value
	minH   float64 // least curvature (about one query's worth) in a leaf
}

// row is one candidate file of one query.
type row struct {
	x      []float64
	answer bool
	q      int     // query number
	weight float64 // the query's weight: each repository weighs the same
}

// boost fits opts.n trees on the queries of repos, starting from the
// linear scores under w.
func boost(byRepo map[string][]query, repos []string, w []float64, mask []bool, opts treeOpts) []recall.TreeNodes {
	var rows []row
	var starts []int // first row of each query
	total := 0
	for _, r := range repos {
		total += len(byRepo[r])
	}
	for _, r := range repos {
		qs := byRepo[r]
		weight := float64(total) / float64(len(repos)) / float64(len(qs))
		for _, q := range qs {
			has := false
			for _, f := range q.Files {
				has = has || f.Answer
			}
			if !has || len(q.Files) < 2 {
				continue
			}
			starts = append(starts, len(rows))
			for _, f := range q.Files {
				rows = append(rows, row{x: f.X, answer: f.Answer, q: len(starts) - 1, weight: weight})
			}
		}
	}
	starts = append(starts, len(rows))
	if len(rows) == 0 {
		return nil
	}
	nf := len(rows[0].x)
	cuts := make([][]float64, nf)
	for j := 0; j < nf; j++ {
		if mask[j] {
			cuts[j] = quantileCuts(rows, j)
		}
	}
	bin := make([][]uint8, len(rows))
	for i, r := range rows {
		bin[i] = make([]uint8, nf)
		for j := 0; j < nf; j++ {
			bin[i][j] = uint8(sort.SearchFloat64s(cuts[j], r.x[j]))
		}
	}
	score := make([]float64, len(rows))
	for i, r := range rows {
		score[i] = dot(w, r.x)
	}
	g := make([]float64, len(rows))
	h := make([]float64, len(rows))
	var trees []recall.TreeNodes
	for t := 0; t < opts.n; t++ {
		for q := 0; q+1 < len(starts); q++ {
			grad(rows[starts[q]:starts[q+1]], score[starts[q]:starts[q+1]], g[starts[q]:starts[q+1]], h[starts[q]:starts[q+1]])
		}
		tr := grow(rows, bin, cuts, g, h, mask, opts)
		for i, r := range rows {
			score[i] += tr.Eval(r.x)
		}
		trees = append(trees, tr)
	}
	return trees
}

// grad sets the gradient and curvature of one query's loss, -log of the
// answers' softmax mass, with respect to each candidate's score.
func grad(rs []row, s, g, h []float64) {
	hi := math.Inf(-1)
	for _, v := range s {
		hi = max(hi, v)
	}
	var z, za float64
	for i, r := range rs {
		e := math.Exp(s[i] - hi)
		z += e
		if r.answer {
			za += e
		}
	}
	for i, r := range rs {
		e := math.Exp(s[i] - hi)
		p := e / z
		d := p
		if r.answer {
			d -= e / za
		}
		g[i] = r.weight * d
		h[i] = r.weight * max(p*(1-p), 1e-6)
	}
}

// quantileCuts are up to maxBins-1 distinct cut values of feature j: a
// row goes left of cut c when its value is at most c.
func quantileCuts(rows []row, j int) []float64 {
	vs := make([]float64, len(rows))
	for i, r := range rows {
		vs[i] = r.x[j]
	}
	sort.Float64s(vs)
	var cuts []float64
	for k := 1; k < maxBins; k++ {
		c := vs[k*len(vs)/maxBins]
		if c == vs[len(vs)-1] {
			break
		}
		if len(cuts) == 0 || c > cuts[len(cuts)-1] {
			cuts = append(cuts, c)
		}
	}
	return cuts
}

// grow builds one tree level by level.
func grow(rows []row, bin [][]uint8, cuts [][]float64, g, h []float64, mask []bool, opts treeOpts) recall.TreeNodes {
	nf := len(cuts)
	tr := recall.TreeNodes{{Feature: -1}}
	node := make([]int, len(rows)) // every row starts at the root
	open := []int{0}
	for level := 0; level < opts.depth && len(open) > 0; level++ {
		slot := map[int]int{}
		for k, n := range open {
			slot[n] = k
		}
		type acc struct{ g, h float64 }
		hist := make([][][maxBins]acc, len(open))
		sums := make([]acc, len(open))
		for k := range hist {
			hist[k] = make([][maxBins]acc, nf)
		}
		for i := range rows {
			k, ok := slot[node[i]]
			if !ok {
				continue
			}
			sums[k].g += g[i]
			sums[k].h += h[i]
			for j := 0; j < nf; j++ {
				if mask[j] {
					b := bin[i][j]
					hist[k][j][b].g += g[i]
					hist[k][j][b].h += h[i]
				}
			}
		}
		var next []int
		for k, n := range open {
			G, H := sums[k].g, sums[k].h
			tr[n].Value = -G / (H + opts.lambda) * opts.shrink
			parent := G * G / (H + opts.lambda)
			bestGain, bestF, bestB := 1e-9, -1, 0
			for j := 0; j < nf; j++ {
				if !mask[j] {
					continue
				}
				var gl, hl float64
				for b := 0; b < len(cuts[j]); b++ {
					gl += hist[k][j][b].g
					hl += hist[k][j][b].h
					gr, hr := G-gl, H-hl
					if hl < opts.minH || hr < opts.minH {
						continue
					}
					gain := gl*gl/(hl+opts.lambda) + gr*gr/(hr+opts.lambda) - parent
					if gain > bestGain {
						bestGain, bestF, bestB = gain, j, b
					}
				}
			}
			if bestF < 0 {
				continue
			}
			l, r := len(tr), len(tr)+1
			tr = append(tr, recall.TreeNode{Feature: -1}, recall.TreeNode{Feature: -1})
			tr[n].Feature, tr[n].Threshold, tr[n].Left, tr[n].Right = bestF, cuts[bestF][bestB], l, r
			next = append(next, l, r)
		}
		for i := range rows {
			n := node[i]
			if tr[n].Feature >= 0 {
				if rows[i].x[tr[n].Feature] <= tr[n].Threshold {
					node[i] = tr[n].Left
				} else {
					node[i] = tr[n].Right
				}
			}
		}
		open = next
	}
	// The leaves opened at the last level get their values.
	if len(open) > 0 {
		G, H := make([]float64, len(tr)), make([]float64, len(tr))
		for i := range rows {
			G[node[i]] += g[i]
			H[node[i]] += h[i]
		}
		for _, n := range open {
			tr[n].Value = -G[n] / (H[n] + opts.lambda) * opts.shrink
		}
	}
	for n := range tr {
		if tr[n].Feature >= 0 {
			tr[n].Value = 0
		}
	}
	return tr
}
