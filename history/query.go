package history

import (
	"math"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/text"
)

// build indexes the history once: file identities across renames, and
// the message index.
func (h *History) build() {
	h.once.Do(func() {
		h.byH = make(map[string]int, len(h.Commits))
		h.fileIDs = newFileIDs()
		h.changeIDs = make([][]int32, len(h.Commits))
		h.ix = newMsgIndex(len(h.Commits))
		var mt msgTerms
		for i := range h.Commits {
			c := &h.Commits[i]
			h.byH[c.Hash] = i
			ids := make([]int32, len(c.Changes))
			for j, ch := range c.Changes {
				ids[j] = h.assign(int32(i), ch.Kind, ch.Path, ch.Old)
			}
			h.changeIDs[i] = ids
			h.ix.add(int32(i), c.Subject, c.Body, &mt)
		}
		h.ix.finish()
	})
}

// fileIDs follows files through renames: each file gets an identity
// when it is added (or first seen), keeps it through renames, and loses
// its path when deleted. Commits are assigned in time order.
type fileIDs struct {
	live      map[string]int32 // path -> identity of the file there now
	last      map[string]int32 // path -> identity of the last file there (deleted too)
	idName    []string         // identity -> its newest path
	idCommits [][]int32        // identity -> commits that changed it, oldest first
}

func newFileIDs() fileIDs {
	return fileIDs{live: map[string]int32{}, last: map[string]int32{}}
}

// assign gives the change (kind, path, old path) of commit i its file
// identity.
func (f *fileIDs) assign(i int32, kind, path, old string) int32 {
	var id int32
	switch kind {
	case "R":
		o, ok := f.live[old]
		if !ok {
			o = f.newID(old)
		}
		delete(f.live, old)
		id = o
		f.idName[id] = path
	case "A", "C":
		id = f.newID(path)
	default:
		var ok bool
		if id, ok = f.live[path]; !ok {
			id = f.newID(path)
		}
	}
	if kind == "D" {
		delete(f.live, path)
	} else {
		f.live[path] = id
	}
	f.last[path] = id
	if n := len(f.idCommits[id]); n == 0 || f.idCommits[id][n-1] != i {
		f.idCommits[id] = append(f.idCommits[id], i)
	}
	return id
}

func (f *fileIDs) newID(p string) int32 {
	id := int32(len(f.idName))
	f.idName = append(f.idName, p)
	f.idCommits = append(f.idCommits, nil)
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
	ids   map[string]int32 // term -> id
	terms []string         // id -> term
	posts []postings       // id -> the documents holding the term
	dl    []uint16
	avgdl float64
	total int // terms over all documents
}

// newMsgIndex is an empty index sized for n documents.
func newMsgIndex(n int) *msgIndex {
	return &msgIndex{ids: map[string]int32{}, dl: make([]uint16, 0, n)}
}

// postings are the documents holding a term, ascending, and the term's
// frequency in each.
type postings struct {
	docs []int32
	tfs  []uint16
}

// id is the id of term t, assigned on first sight.
func (ix *msgIndex) id(t string) int32 {
	if id, ok := ix.ids[t]; ok {
		return id
	}
	id := int32(len(ix.terms))
	ix.ids[t] = id
	ix.terms = append(ix.terms, t)
	ix.posts = append(ix.posts, postings{})
	return id
}

// lookup returns the postings of term t.
func (ix *msgIndex) lookup(t string) ([]int32, []uint16) {
	id, ok := ix.ids[t]
	if !ok {
		return nil, nil
	}
	p := ix.posts[id]
	return p.docs, p.tfs
}

// add indexes the message of document i (the next one: documents are
// added in order): the subject counts twice, the body's first 1,500
// bytes once. Terms are counted by id: a map operation for every word
// of rails' 99,000 messages was a third of their indexing.
func (ix *msgIndex) add(i int32, subject, body string, mt *msgTerms) {
	n := 0
	if len(body) > 1500 {
		body = body[:1500]
	}
	mt.order = mt.order[:0]
	count := func(times int32) func(int32) {
		return func(id int32) {
			for int(id) >= len(mt.counts) {
				mt.counts = append(mt.counts, 0)
			}
			if mt.counts[id] == 0 {
				mt.order = append(mt.order, id)
			}
			mt.counts[id] += times
			n += int(times)
		}
	}
	mt.eachID(ix, subject, count(2))
	mt.eachID(ix, body, count(1))
	ix.dl = append(ix.dl, uint16(min(n, math.MaxUint16)))
	ix.total += n
	for _, id := range mt.order {
		p := &ix.posts[id]
		p.docs = append(p.docs, i)
		p.tfs = append(p.tfs, uint16(min(mt.counts[id], math.MaxUint16)))
		mt.counts[id] = 0
	}
}

// msgTerms gives the terms of messages (text.Terms) as ids of an index,
// keeping each distinct word's: messages repeat their words, and analysing every word
// of rails' 99,000 messages again took over a second of a cold recall.
type msgTerms struct {
	a   text.Analyzer
	ids map[string][]int32 // word -> ids of its terms in the index being built
	// scratch for msgIndex.add: per term id, its count in the message,
	// and the ids counted in first-seen order
	counts []int32
	order  []int32
}

// maxMsgWords bounds the word cache.
const maxMsgWords = 1 << 17

// eachID calls fn with the ids in ix of the terms of s, in order, repeats
// included. One msgTerms serves one index.
func (m *msgTerms) eachID(ix *msgIndex, s string, fn func(id int32)) {
	if m.ids == nil {
		m.ids = map[string][]int32{}
	}
	text.Words(s, func(w string) {
		ids, ok := m.ids[w]
		if !ok {
			ids = []int32{}
			for _, t := range m.a.AppendTerms(nil, w) {
				ids = append(ids, ix.id(t))
			}
			if len(m.ids) >= maxMsgWords {
				clear(m.ids)
			}
			m.ids[strings.Clone(w)] = ids
		}
		for _, id := range ids {
			fn(id)
		}
	})
}

// finish sets the mean document length once every document is added.
func (ix *msgIndex) finish() {
	if len(ix.dl) > 0 {
		ix.avgdl = float64(ix.total) / float64(len(ix.dl))
	}
}

func (ix *msgIndex) score(terms []string) map[int32]float64 {
	return bm25(terms, ix.dl, ix.avgdl, ix.lookup)
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
