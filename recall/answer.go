package recall

import (
	"context"
	"strings"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
)

// AnswerOptions control Answer.
type AnswerOptions struct {
	Options
	// Files answers with files (SearchFiles) instead of section hits.
	Files bool
	// Memories bounds the saved memories, diary entries and skills in
	// the answer (default DefaultMemoryHits; <0: none).
	Memories int
	// Matcher matches the saved entries; nil reads them from the memory
	// the searcher answers from. A caller that holds a newer memory
	// commit with the same sections (a memory was just saved) passes its
	// own, so the new entry is found.
	Matcher *DurableMatcher
}

// DefaultMemoryHits is how many saved entries an answer holds at most.
const DefaultMemoryHits = 5

// Response is what recall answers, for the command line and the MCP
// server alike: section hits or files, how strongly memory supports them,
// the saved entries that match about as well, and which commit memory
// describes.
type Response struct {
	Task string `json:"task"`
	Mode string `json:"mode"`
	// Hits are the sections (empty with Files).
	Hits []Hit `json:"hits"`
	// Files are the files, with Files set.
	Files []FileHit `json:"files,omitempty"`
	// Evidence says how strongly memory supports the hits or files; a
	// task nothing matches has none and says NoGoodMatch.
	Evidence Evidence `json:"evidence"`
	// Memories are the saved memories, diary entries and skills that
	// match the task about as well as the code does, best first.
	Memories []MemoryHit `json:"memories"`
	Notes    []string    `json:"notes,omitempty"`
	Memory   MemoryState `json:"memory"`
}

// memoryParity is the share of the code's coverage of the task a saved
// entry must reach to be shown beside it: an entry that shares one rare
// word with a long bug report would otherwise be printed above the code
// that matches most of it.
const memoryParity = 0.5

// Answer answers task from s: it searches (sections, or files with
// opt.Files), judges the evidence, drops the hits when nothing matches
// (the least bad hits would only mislead), and adds the saved entries
// that match the task about as well as the code does or are linked to a
// file of the answer.
func Answer(ctx context.Context, s *Searcher, task string, opt AnswerOptions) (*Response, error) {
	r := &Response{Task: task}
	var paths []string
	// The evidence reads the first evidenceDepth hits or files whatever
	// the limit, so the label does not change with --limit; the answer is
	// cut to the limit after.
	limit := opt.Limit
	if limit <= 0 {
		limit = 10
	}
	wide := opt.Options
	wide.Limit = max(limit, evidenceDepth)
	if opt.Files {
		res, err := s.SearchFiles(ctx, task, wide)
		if err != nil {
			return nil, err
		}
		r.Mode, r.Notes, r.Memory = res.Mode, res.Notes, res.Memory
		r.Evidence = s.Judge(task, FileSections(res.Files), res.Confidence, opt.Ranking)
		r.Files = answered(res.Files, limit, r.Evidence, &paths, func(f FileHit) string { return f.Path })
		if r.Files == nil {
			r.Files = []FileHit{}
		}
	} else {
		res, err := s.Search(ctx, task, wide)
		if err != nil {
			return nil, err
		}
		r.Mode, r.Notes, r.Memory = res.Mode, res.Notes, res.Memory
		r.Evidence = s.Judge(task, res.Hits, res.Confidence, opt.Ranking)
		r.Hits = answered(res.Hits, limit, r.Evidence, &paths, func(h Hit) string { return h.Path })
	}
	if r.Hits == nil {
		r.Hits = []Hit{}
	}
	var err error
	if r.Memories, err = s.MatchMemories(task, r.Evidence, paths, opt.Memories, opt.Matcher); err != nil {
		return nil, err
	}
	return r, nil
}

// answered is what an answer shows of the hits or files found: the first
// limit, none when the evidence says nothing matches (the least bad hits
// would only mislead). Their paths are added to paths.
func answered[T any](found []T, limit int, ev Evidence, paths *[]string, path func(T) string) []T {
	if ev.NoMatch {
		return nil
	}
	found = found[:min(len(found), limit)]
	for _, x := range found {
		*paths = append(*paths, path(x))
	}
	return found
}

// MatchMemories returns the saved entries that match task about as well
// as the code of an answer does (ev is that answer's evidence) or are
// linked to one of its paths, best first: at most limit
// (DefaultMemoryHits when 0, none when <0). m nil reads the entries from
// the memory s answers from. Answer and every context pack match
// memories with it, so a pack shows the same entries recall would.
func (s *Searcher) MatchMemories(task string, ev Evidence, paths []string, limit int, m *DurableMatcher) ([]MemoryHit, error) {
	out := []MemoryHit{}
	if limit == 0 {
		limit = DefaultMemoryHits
	}
	if limit < 0 {
		return out, nil
	}
	if m == nil {
		var err error
		if m, err = s.durableMatcher(); err != nil {
			return nil, err
		}
	}
	for _, mh := range m.Match(task, paths, 0) {
		if len(out) == limit {
			break
		}
		if s.aboutAsWell(task, mh, ev, paths) {
			out = append(out, mh)
		}
	}
	return out, nil
}

// durableMatcher reads the saved entries and skills of the memory s
// answers from. A skill that does not decode is reported by `skill list`;
// recall goes on without it.
func (s *Searcher) durableMatcher() (*DurableMatcher, error) {
	if s.mem == nil {
		return NewDurableMatcher(nil), nil
	}
	items, _, err := durable.Load(s.repo, s.mem.Tree)
	if err != nil {
		return nil, err
	}
	skills, _, err := durable.LoadSkills(s.repo, s.mem.Tree, false)
	if err != nil {
		return nil, err
	}
	return NewDurableMatcher(items, skills...).Verify(s.repo, s.mem), nil
}

// aboutAsWell reports whether a saved entry belongs in an answer whose
// code gives evidence ev: it is linked to a file of the answer, the code
// matches nothing (the entry is then all memory has), or the entry holds
// at least memoryParity of the share of the task the best code hit holds,
// every word weighted by its rarity as in Evidence.
func (s *Searcher) aboutAsWell(task string, m MemoryHit, ev Evidence, paths []string) bool {
	for _, p := range m.Paths {
		for _, q := range paths {
			if p == q {
				return true
			}
		}
	}
	for _, q := range paths {
		if taggedWith(q, m.Tags) {
			return true
		}
	}
	if ev.NoMatch || ev.Coverage == 0 {
		return true
	}
	as := Hit{Path: strings.Join(m.Paths, " "), Name: m.Subject, Summary: m.Kind + " " + strings.Join(m.Tags, " "), Content: m.Text}
	return s.Evidence(task, []Hit{as}).Coverage >= memoryParity*ev.Coverage
}

// taggedWith reports whether one of an entry's tags names a path: a
// directory of it or its file name without extension ("store" for
// internal/store/store.go). Tags are how people say what an entry is
// about; one that names a file of the answer links the entry to it.
func taggedWith(p string, tags []string) bool {
	if len(tags) == 0 {
		return false
	}
	parts := strings.Split(strings.ToLower(p), "/")
	last := parts[len(parts)-1]
	if i := strings.IndexByte(last, '.'); i > 0 {
		parts[len(parts)-1] = last[:i]
	}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		for _, c := range parts {
			if c == t {
				return true
			}
		}
	}
	return false
}

// relate fills the state's HEAD fields: whether HEAD moved past the source
// commit memory describes, descends from it, and by how many commits.
func (st *MemoryState) relate(repo *gitstore.Repo, head gitstore.Hash) {
	st.Head = head.String()
	if st.SourceCommit == "" || st.Head == st.SourceCommit {
		return
	}
	st.HeadMoved = true
	d, err := repo.Distance(gitstore.ParseHash(st.SourceCommit), head, 0)
	if err != nil {
		return
	}
	st.HeadAhead = d.Ancestor
	st.CommitsAhead, st.CommitsBehind, st.Approximate = d.Ahead, d.Behind, d.Approximate
}
