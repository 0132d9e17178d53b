package mcp

import (
	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/recall"
)

// Durable memories are matched by recall.DurableMatcher; the server keeps
// one per memory tree (entries are immutable, so the cache follows the
// tree).

// durableMatcher returns the matcher of a memory tree's live entries and
// skills.
func (s *Server) durableMatcher(tree gitstore.Hash, items []durable.Item) *recall.DurableMatcher {
	s.cmu.Lock()
	if s.dur.tree == tree && s.dur.matcher != nil {
		m := s.dur.matcher
		s.cmu.Unlock()
		return m
	}
	var skills []durable.Skill
	if s.dur.tree == tree {
		skills = s.dur.skills
	}
	s.cmu.Unlock()
	m := recall.NewDurableMatcher(items, skills...)
	s.cmu.Lock()
	if s.dur.tree == tree {
		s.dur.matcher = m
	}
	s.cmu.Unlock()
	return m
}

// matchMemories returns the live durable entries that match a task, best
// first; paths are the files the answer points at.
func (s *Server) matchMemories(snap *snapshot, task string, paths []string, limit int) []MemoryHit {
	if snap == nil {
		return []MemoryHit{}
	}
	items, _, err := s.durableItems(snap)
	if err != nil {
		return []MemoryHit{}
	}
	return s.durableMatcher(snap.mem.Tree, items).Match(task, paths, limit)
}
