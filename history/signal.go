package history

import (
	"math"
	"sort"
)

// Evidence for recall: what history says about files that content ranking
// already found. Every map is keyed by a file's newest name, so evidence
// recorded under an older name follows the file across renames.

// MessageFiles scores files by the past commits whose messages match q:
// the best topCommits matching commits that are small (at most maxFiles
// paths, not a merge, bot, mass or formatting change) each give their
// files the commit's relative score, divided by the square root of how
// many files it touched. Scores are scaled so the best file has 1.
func (h *History) MessageFiles(q string, maxFiles, topCommits int) map[string]float64 {
	h.build()
	scores := h.ix.score(Tokens(q))
	if len(scores) == 0 {
		return nil
	}
	type cand struct {
		i int32
		s float64
	}
	var cs []cand
	for i, s := range scores {
		if small(&h.Commits[i], maxFiles) {
			cs = append(cs, cand{i, s * h.Commits[i].Weight})
		}
	}
	// Best first; ties to the newer commit.
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].s != cs[b].s {
			return cs[a].s > cs[b].s
		}
		return cs[a].i > cs[b].i
	})
	if len(cs) > topCommits {
		cs = cs[:topCommits]
	}
	out := map[string]float64{}
	if len(cs) == 0 || cs[0].s <= 0 {
		return out
	}
	top := cs[0].s
	best := 0.0
	for _, c := range cs {
		com := &h.Commits[c.i]
		v := c.s / top / math.Sqrt(float64(max(len(com.Changes), 1)))
		for j, id := range h.changeIDs[c.i] {
			if com.Changes[j].Kind == "D" {
				continue
			}
			p := h.idName[id]
			out[p] += v
			best = max(best, out[p])
		}
	}
	for p := range out {
		out[p] /= best
	}
	return out
}

// CoChange scores files by how often they changed together with the seed
// files (path -> the seed's weight, e.g. its relative content score) in
// small commits: for each seed, a file's share of the seed's commits,
// shrunk toward 0 for seeds with few commits.
func (h *History) CoChange(seeds map[string]float64, maxFiles int) map[string]float64 {
	h.build()
	out := map[string]float64{}
	for p, w := range seeds {
		id, ok := h.fileID(p)
		if !ok || w <= 0 {
			continue
		}
		n := 0.0
		counts := map[int32]float64{}
		for _, ci := range h.idCommits[id] {
			c := &h.Commits[ci]
			if !small(c, maxFiles) {
				continue
			}
			n += c.Weight
			for _, o := range h.changeIDs[ci] {
				if o != id {
					counts[o] += c.Weight
				}
			}
		}
		for o, k := range counts {
			out[h.idName[o]] += w * k / (n + 2)
		}
	}
	return out
}

// Age is how many recorded commits are newer than the last one that
// changed the file at p (0: the newest commit changed it); ok is false when
// no recorded commit did.
func (h *History) Age(p string) (int, bool) {
	id, ok := h.fileID(p)
	if !ok {
		return 0, false
	}
	cs := h.idCommits[id]
	if len(cs) == 0 {
		return 0, false
	}
	return len(h.Commits) - 1 - int(cs[len(cs)-1]), true
}
