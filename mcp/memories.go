package mcp

import (
	"math"
	"sort"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
)

// Durable memories are not in the search index (it is built from the
// file records), so recall and context match them here: the task's terms,
// analysed as the index analyses text (identifiers split, stemmed, function
// words dropped), against each live entry's text, subject, kind, tags, paths
// and symbols, weighted by how rare each term is among the entries; an entry
// linked to a file the answer points at matches too. There are few entries
// (tens to hundreds), so a scan costs well under a millisecond.

// minMemoryScore is the least score an entry needs: one term rare among
// the entries, or two common ones.
const minMemoryScore = 1.5

// linkBonus is what a link to one of the answer's files adds.
const linkBonus = 2.0

// memoryCand is a live entry with its analysed terms.
type memoryCand struct {
	it    durable.Item
	terms map[string]bool
}

// memoryTerms analyses the live entries of a memory tree once (entries
// are immutable; the cache follows the tree).
func (s *Server) memoryTerms(tree gitstore.Hash, items []durable.Item) ([]memoryCand, map[string]int) {
	s.cmu.Lock()
	if s.dur.tree == tree && s.dur.df != nil {
		c, df := s.dur.cands, s.dur.df
		s.cmu.Unlock()
		return c, df
	}
	s.cmu.Unlock()
	var cands []memoryCand
	df := map[string]int{}
	for _, it := range items {
		if it.Status != durable.StatusLive || (it.Type != durable.TypeMemory && it.Type != durable.TypeDiary) {
			continue
		}
		ts := map[string]bool{}
		for _, t := range index.Terms(searchable(it)) {
			ts[t] = true
			df[t]++
		}
		cands = append(cands, memoryCand{it, ts})
	}
	s.cmu.Lock()
	if s.dur.tree == tree {
		s.dur.cands, s.dur.df = cands, df
	}
	s.cmu.Unlock()
	return cands, df
}

// matchMemories returns the live durable entries that match a task, best
// first; paths are the files the answer points at.
func (s *Server) matchMemories(snap *snapshot, task string, paths []string, limit int) []MemoryHit {
	out := []MemoryHit{}
	if snap == nil {
		return out
	}
	items, _, err := s.durableItems(snap)
	if err != nil || len(items) == 0 {
		return out
	}
	cands, df := s.memoryTerms(snap.mem.Tree, items)
	// A corpus of at least 20 is assumed, so that with only a few entries
	// one shared rare word is enough.
	n := float64(max(len(cands), 20))
	query := index.Terms(task)
	onPath := map[string]bool{}
	for _, p := range paths {
		onPath[p] = true
	}
	var hits []MemoryHit
	for _, c := range cands {
		score := 0.0
		for _, t := range query {
			if c.terms[t] {
				score += math.Log(1 + n/float64(df[t]))
			}
		}
		for _, p := range c.it.Paths {
			if onPath[p] {
				score += linkBonus
				break
			}
		}
		if score < minMemoryScore {
			continue
		}
		it := c.it
		hits = append(hits, MemoryHit{ID: it.ID, Type: it.Type, Kind: it.Kind, Subject: it.Subject, Text: it.Text,
			Tags: it.Tags, Paths: it.Paths, Created: it.Created.UTC().Format(time.RFC3339), Score: math.Round(score*1000) / 1000})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Created > hits[j].Created
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return append(out, hits...)
}
