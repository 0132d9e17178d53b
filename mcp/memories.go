package mcp

import (
	"context"

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

// matcher is the matcher of the snapshot's saved entries (nil, for
// recall to read them, when they cannot be loaded).
func (s *Server) matcher(snap *snapshot) *recall.DurableMatcher {
	if snap == nil || snap.mem == nil {
		return nil
	}
	items, _, err := s.durableItems(snap)
	if err != nil {
		return nil
	}
	return s.durableMatcher(snap.mem.Tree, items).Verify(snap.repo, snap.mem)
}

// answer is recall.Answer over the server's cached entries: the one
// answer the recall tool and the prompts render (the command line
// renders the same).
func (s *Server) answer(ctx context.Context, se *recall.Searcher, snap *snapshot, task string, opt recall.AnswerOptions) (*recall.Response, error) {
	opt.Matcher = s.matcher(snap)
	return recall.Answer(ctx, se, task, opt)
}

// matchMemories returns the live durable entries that match a task, best
// first, with nothing to weigh them against (no code answered: memory
// holds only saved entries so far); paths are the files a caller points
// at.
func (s *Server) matchMemories(snap *snapshot, task string, paths []string, limit int) []MemoryHit {
	m := s.matcher(snap)
	if m == nil {
		return []MemoryHit{}
	}
	return m.Match(task, paths, limit)
}
