package history

import (
	"math"
	"sort"

	"github.com/konteks/git-konteks/text"
)

// build indexes the history once: file identities across renames, and
// the message index.
func (h *History) build() {
	h.once.Do(func() {
		h.byH = make(map[string]int, len(h.Commits))
		h.live = map[string]int32{}
		h.last = map[string]int32{}
		h.changeIDs = make([][]int32, len(h.Commits))
		for i := range h.Commits {
			c := &h.Commits[i]
			h.byH[c.Hash] = i
			ids := make([]int32, len(c.Changes))
			for j, ch := range c.Changes {
				var id int32
				switch ch.Kind {
				case "R":
					old, ok := h.live[ch.Old]
					if !ok {
						old = h.newID(ch.Old)
					}
					delete(h.live, ch.Old)
					id = old
					h.idName[id] = ch.Path
				case "A", "C":
					id = h.newID(ch.Path)
				default:
					var ok bool
					if id, ok = h.live[ch.Path]; !ok {
						id = h.newID(ch.Path)
					}
				}
				if ch.Kind == "D" {
					delete(h.live, ch.Path)
				} else {
					h.live[ch.Path] = id
				}
				h.last[ch.Path] = id
				ids[j] = id
				if n := len(h.idCommits[id]); n == 0 || h.idCommits[id][n-1] != int32(i) {
					h.idCommits[id] = append(h.idCommits[id], int32(i))
				}
			}
			h.changeIDs[i] = ids
		}
		h.ix = newMsgIndex(h.Commits)
	})
}

func (h *History) newID(p string) int32 {
	id := int32(len(h.idName))
	h.idName = append(h.idName, p)
	h.idCommits = append(h.idCommits, nil)
	return id
}

// fileID is the identity of the file at path p (the live file, else the
// last one that had the name).
func (h *History) fileID(p string) (int32, bool) {
	h.build()
	if id, ok := h.live[p]; ok {
		return id, true
	}
	id, ok := h.last[p]
	return id, ok
}

// ByHash finds a commit's record.
func (h *History) ByHash(hash string) (*Commit, bool) {
	h.build()
	i, ok := h.byH[hash]
	if !ok {
		return nil, false
	}
	return &h.Commits[i], true
}

// Touch is a commit that changed a file, with the change.
type Touch struct {
	Commit *Commit
	Change Change
	Index  int // position in time order (larger is newer)
}

// Touched lists the commits that changed the file now (or last) at path,
// following it across renames, newest first.
func (h *History) Touched(p string) []Touch {
	id, ok := h.fileID(p)
	if !ok {
		return nil
	}
	cs := h.idCommits[id]
	out := make([]Touch, 0, len(cs))
	for k := len(cs) - 1; k >= 0; k-- {
		i := int(cs[k])
		c := &h.Commits[i]
		for j, cid := range h.changeIDs[i] {
			if cid == id {
				out = append(out, Touch{Commit: c, Change: c.Changes[j], Index: i})
				break
			}
		}
	}
	return out
}

// Names lists the paths a file has had, newest first.
func (h *History) Names(p string) []string {
	seen := map[string]bool{p: true}
	names := []string{p}
	for _, t := range h.Touched(p) {
		for _, n := range []string{t.Change.Path, t.Change.Old} {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// small reports whether a commit is focused enough to say something about
// how its files relate: not a merge, bot, mass or formatting change, and
// at most maxFiles paths.
func small(c *Commit, maxFiles int) bool {
	return c.Weight >= 0.5 && c.Files >= 1 && c.Files <= maxFiles
}

// CoChanged counts, for the file at p, the other files (by current name)
// changed in the same small commits, most often first.
func (h *History) CoChanged(p string, maxFiles, limit int) []Count {
	id, ok := h.fileID(p)
	if !ok {
		return nil
	}
	counts := map[int32]float64{}
	for _, ci := range h.idCommits[id] {
		c := &h.Commits[ci]
		if !small(c, maxFiles) {
			continue
		}
		for _, o := range h.changeIDs[ci] {
			if o != id {
				counts[o] += c.Weight
			}
		}
	}
	out := make([]Count, 0, len(counts))
	for o, n := range counts {
		out = append(out, Count{Path: h.idName[o], N: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Path < out[j].Path
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Count is a path with a weight.
type Count struct {
	Path string  `json:"path"`
	N    float64 `json:"n"`
}

// Match is a commit that matches a question.
type Match struct {
	Commit *Commit
	Index  int
	Score  float64
}

// Search ranks commits by how well their messages match q (BM25 over the
// search terms of subject and body, text.Terms, the subject counted twice), scaled by the commit's
// weight, with ties to the newer. Deterministic.
func (h *History) Search(q string, limit int) []Match {
	h.build()
	scores := h.ix.score(text.Terms(q))
	out := make([]Match, 0, len(scores))
	for i, s := range scores {
		c := &h.Commits[i]
		out = append(out, Match{Commit: c, Index: int(i), Score: s * math.Sqrt(max(c.Weight, 0.01))})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Index > out[j].Index
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// msgIndex is a compact BM25 index over commit messages.
type msgIndex struct {
	post  map[string]postings
	dl    []uint16
	avgdl float64
}

// postings are the documents holding a term, ascending, and the term's
// frequency in each.
type postings struct {
	docs []int32
	tfs  []uint16
}

func newMsgIndex(cs []Commit) *msgIndex {
	ix := &msgIndex{post: map[string]postings{}, dl: make([]uint16, len(cs))}
	total := 0
	tf := map[string]int{}
	for i := range cs {
		clear(tf)
		n := 0
		for k, part := range []string{cs[i].Subject, cs[i].Subject, cs[i].Body} {
			if k == 2 && len(part) > 1500 {
				part = part[:1500]
			}
			for _, t := range text.Terms(part) {
				tf[t]++
				n++
			}
		}
		ix.dl[i] = uint16(min(n, math.MaxUint16))
		total += n
		for t, f := range tf {
			p := ix.post[t]
			p.docs = append(p.docs, int32(i))
			p.tfs = append(p.tfs, uint16(min(f, math.MaxUint16)))
			ix.post[t] = p
		}
	}
	if len(cs) > 0 {
		ix.avgdl = float64(total) / float64(len(cs))
	}
	return ix
}

func (ix *msgIndex) score(terms []string) map[int32]float64 {
	return bm25(terms, ix.dl, ix.avgdl, func(t string) ([]int32, []uint16) {
		p := ix.post[t]
		return p.docs, p.tfs
	})
}

// bm25 scores documents against terms with BM25 (k1 1.2, b 0.75): each
// distinct term adds its weight to every document that holds it. dl is
// each document's length in terms, avgdl their mean; lookup gives a
// term's postings. Both message indexes (msgIndex, Signals) score here.
func bm25(terms []string, dl []uint16, avgdl float64, lookup func(term string) (docs []int32, tfs []uint16)) map[int32]float64 {
	const k1, b = 1.2, 0.75
	out := map[int32]float64{}
	n := float64(len(dl))
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		docs, tfs := lookup(t)
		if len(docs) == 0 {
			continue
		}
		df := float64(len(docs))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for k, d := range docs {
			tf := float64(tfs[k])
			norm := 1 - b + b*float64(dl[d])/max(avgdl, 1)
			out[d] += idf * tf * (k1 + 1) / (tf + k1*norm)
		}
	}
	return out
}
