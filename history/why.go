package history

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memref"
)

// Target is what `why` asks about: PATH, PATH:LINE, PATH:START-END or
// PATH#ANCHOR (an anchor or symbol name of the file's record).
type Target struct {
	Path       string
	Start, End int
	Anchor     string
}

// ParseTarget parses PATH[:LINE[-END]|#ANCHOR].
func ParseTarget(s string) (Target, error) {
	var t Target
	if p, a, ok := strings.Cut(s, "#"); ok {
		t.Path, t.Anchor = p, a
	} else {
		t.Path = s
		if i := strings.LastIndexByte(s, ':'); i > 0 {
			lines := s[i+1:]
			a, b, rng := strings.Cut(lines, "-")
			start, err1 := strconv.Atoi(a)
			end := start
			var err2 error
			if rng {
				end, err2 = strconv.Atoi(b)
			}
			if err1 == nil && err2 == nil {
				if start < 1 || end < start {
					return t, fmt.Errorf("bad line range %q", lines)
				}
				t.Path, t.Start, t.End = s[:i], start, end
			}
		}
	}
	t.Path = strings.TrimPrefix(strings.Trim(t.Path, "/"), "./")
	if !validPath(t.Path) {
		return t, fmt.Errorf("bad path %q", t.Path)
	}
	return t, nil
}

// Brief is a commit as answers show it.
type Brief struct {
	Hash    string   `json:"commit"`
	Subject string   `json:"subject"`
	Body    string   `json:"body,omitempty"`
	Author  string   `json:"author"`
	Time    int64    `json:"time"`
	Flags   []string `json:"flags,omitempty"`
	Files   int      `json:"files"`
	// Session is the agent session that made the commit, when one was
	// ingested (docs/sessions.md).
	Session *SessionLink `json:"session,omitempty"`
}

// SessionLink names the agent session a commit was made in: its record,
// the agent and the task as the person stated it.
type SessionLink struct {
	Record string `json:"record"`
	Agent  string `json:"agent"`
	Task   string `json:"task"`
}

// An Answer is what why and history answer: a text for people and the
// briefs of its commits, which LinkSessions completes.
type Answer interface {
	Text() string
	Briefs() []*Brief
}

// LinkSessions sets the session of each of a's commits that links names.
func LinkSessions(links map[string]SessionLink, a Answer) {
	for _, b := range a.Briefs() {
		if l, ok := links[b.Hash]; ok {
			b.Session = &l
		}
	}
}

// BriefOf makes the brief of a record.
func BriefOf(c *Commit) Brief {
	return Brief{Hash: c.Hash, Subject: c.Subject, Body: c.Body, Author: c.Author, Time: c.Time, Flags: c.Flags, Files: c.Files}
}

// WhyCommit is one commit that shaped the target.
type WhyCommit struct {
	Brief
	Path  string  `json:"path"`            // the file's name in that commit
	Kind  string  `json:"kind,omitempty"`  // how it changed the file
	Added int     `json:"added,omitempty"` // lines added to the file
	Del   int     `json:"deleted,omitempty"`
	Lines int     `json:"lines,omitempty"` // lines of the range it last changed (blame)
	Score float64 `json:"score"`
}

// WhyResult answers `why`.
type WhyResult struct {
	Path    string      `json:"path"`
	Start   int         `json:"start_line,omitempty"`
	End     int         `json:"end_line,omitempty"`
	Anchor  string      `json:"anchor,omitempty"`
	Rev     string      `json:"rev"`
	Method  string      `json:"method"` // history (the file's commits) or blame (the lines')
	Names   []string    `json:"names,omitempty"`
	Commits []WhyCommit `json:"commits"`
	// Skipped counts formatting-only and mass commits left out.
	Skipped int      `json:"skipped,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// ReachNote says how far back the history of a memory reaches while older
// history is still being recorded (the first extraction records recent
// history; the background runner the rest), or "" once it is complete.
func ReachNote(mem *memref.Memory) string {
	if mem == nil || mem.Manifest == nil || mem.Manifest.History == nil || !mem.Manifest.History.Pending {
		return ""
	}
	h := mem.Manifest.History
	return fmt.Sprintf("history covers the newest %d commits, back to %s; older history is still being recorded", h.Commits, day(h.Oldest))
}

// ErrNoHistory is returned when memory holds no history.
var ErrNoHistory = errors.New("memory holds no history yet: run `git konteks extract` (history is on unless konteks.history.enabled is false)")

// Why answers which commits shaped a file, a symbol or lines of it, most
// relevant first. For a whole file it ranks the commits that changed it,
// following renames; for lines (or an anchor, resolved to its lines in the
// file's record) it asks `git blame -w -M` at the commit memory describes,
// with formatting and mass commits ignored, and ranks by lines attributed.
func Why(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, t Target, limit int) (*WhyResult, error) {
	h, err := loadFor(repo, mem)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 10
	}
	rev := mem.Manifest.SourceCommit
	res := &WhyResult{Path: t.Path, Start: t.Start, End: t.End, Anchor: t.Anchor, Rev: rev, Commits: []WhyCommit{}}
	if t.Anchor != "" {
		rec, ok, err := memref.Record(repo, mem.Tree, t.Path)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s has no record in memory, so #%s cannot be found; ask about the file or a line instead", t.Path, t.Anchor)
		}
		found := false
		for _, s := range rec.Sections {
			if s.Anchor == t.Anchor || s.QName == t.Anchor || s.Name == t.Anchor {
				res.Start, res.End, res.Anchor, found = s.StartLine, s.EndLine, s.Anchor, true
				break
			}
		}
		if !found || res.Start <= 0 {
			return nil, fmt.Errorf("%s has no section %q (see `git konteks show %s`)", t.Path, t.Anchor, t.Path)
		}
	}
	if n := ReachNote(mem); n != "" {
		res.Notes = append(res.Notes, n)
	}
	res.Names = h.Names(t.Path)
	if res.Start > 0 && repo.HasCLI() {
		if err := h.whyLines(ctx, repo, res, limit); err != nil {
			return nil, err
		}
		return res, nil
	}
	res.Method = "history"
	touches := h.Touched(t.Path)
	if len(touches) == 0 {
		note := fmt.Sprintf("no recorded commit changed %s", t.Path)
		if repo.IsShallow() {
			// The boundary commit of a shallow clone carries no changes,
			// so a file older than the boundary has none recorded.
			note += ": this clone is shallow and its history stops at the boundary (`git fetch --unshallow`, then `git konteks extract`, records the rest)"
		}
		res.Notes = append(res.Notes, note)
	}
	var ranked []*Commit
	for _, tc := range touches {
		if c := tc.Commit; !c.Has(FlagFormat) && !c.Has(FlagMass) {
			ranked = append(ranked, c)
		}
	}
	counts := lineCounts(ctx, repo, ranked, res.Names)
	n := len(touches)
	for k, tc := range touches {
		c := tc.Commit
		if c.Has(FlagFormat) || c.Has(FlagMass) {
			res.Skipped++
			continue
		}
		tc.Change = withCounts(tc.Change, counts[c.Hash])
		lines := max(tc.Change.Add, 0) + max(tc.Change.Del, 0)
		// Relevance: how much of the file it changed, how focused the
		// commit was, its weight, and recency (the newest count most).
		rec := 1.0 - 0.5*float64(k)/float64(max(n-1, 1))
		s := c.Weight * (1 + math.Log1p(float64(lines))) / math.Sqrt(float64(max(c.Files, 1))) * rec
		if tc.Change.Kind == "A" {
			s *= 1.5 // the commit that created it says what it is for
		}
		res.Commits = append(res.Commits, WhyCommit{Brief: BriefOf(c), Path: tc.Change.Path, Kind: tc.Change.Kind, Added: tc.Change.Add, Del: tc.Change.Del, Score: round(s)})
	}
	sortWhy(res.Commits)
	if len(res.Commits) > limit {
		res.Commits = res.Commits[:limit]
	}
	return res, nil
}

func (h *History) whyLines(ctx context.Context, repo *gitstore.Repo, res *WhyResult, limit int) error {
	res.Method = "blame"
	var ignore []gitstore.Hash
	for i := len(h.Commits) - 1; i >= 0 && len(ignore) < 2000; i-- {
		if c := &h.Commits[i]; c.Has(FlagFormat) || c.Has(FlagMass) {
			ignore = append(ignore, gitstore.ParseHash(c.Hash))
		}
	}
	lines, err := repo.Blame(ctx, gitstore.ParseHash(res.Rev), res.Path, res.Start, res.End, ignore)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s has no lines %d-%d at %.12s", res.Path, res.Start, res.End, res.Rev)
	}
	type agg struct {
		n    int
		path string
	}
	by := map[gitstore.Hash]*agg{}
	for _, l := range lines {
		a := by[l.Commit]
		if a == nil {
			a = &agg{path: l.Path}
			by[l.Commit] = a
		}
		a.n++
	}
	var blamed []*Commit
	paths := slices.Clone(res.Names)
	for hash, a := range by {
		if c, ok := h.ByHash(hash.String()); ok {
			blamed = append(blamed, c)
			for _, ch := range c.Changes {
				if ch.Path == a.path {
					paths = append(paths, ch.Path, ch.Old)
				}
			}
		}
	}
	counts := lineCounts(ctx, repo, blamed, paths)
	missing := 0
	for hash, a := range by {
		c, ok := h.ByHash(hash.String())
		if !ok {
			missing++
			res.Commits = append(res.Commits, WhyCommit{Brief: Brief{Hash: hash.String(), Subject: "(not in history memory)"}, Path: a.path, Lines: a.n, Score: round(float64(a.n) * 0.5)})
			continue
		}
		wc := WhyCommit{Brief: BriefOf(c), Path: a.path, Lines: a.n, Score: round(float64(a.n) * math.Max(c.Weight, 0.1))}
		for _, ch := range c.Changes {
			if ch.Path == a.path {
				ch = withCounts(ch, counts[c.Hash])
				wc.Kind, wc.Added, wc.Del = ch.Kind, ch.Add, ch.Del
			}
		}
		res.Commits = append(res.Commits, wc)
	}
	if missing > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d commit(s) blamed are older than recorded history (konteks.history.depth/max)", missing))
	}
	sortWhy(res.Commits)
	if len(res.Commits) > limit {
		res.Commits = res.Commits[:limit]
	}
	return nil
}

func sortWhy(cs []WhyCommit) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Score != cs[j].Score {
			return cs[i].Score > cs[j].Score
		}
		if cs[i].Time != cs[j].Time {
			return cs[i].Time > cs[j].Time
		}
		return cs[i].Hash < cs[j].Hash
	})
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Hit is a commit matching a question, with the files it touched.
type Hit struct {
	Brief
	Score   float64  `json:"score"`
	Changes []Change `json:"changes"`
}

// SearchResult answers `history`.
type SearchResult struct {
	Query   string `json:"query"`
	Commits int    `json:"commits_recorded"`
	Hits    []Hit  `json:"hits"`
	// Notes are caveats: how far back history reaches while older
	// history is still being recorded.
	Notes []string `json:"notes,omitempty"`
}

// Ask finds the commits whose messages match a question, with the files
// they touched (at most maxFiles each).
func Ask(repo *gitstore.Repo, mem *memref.Memory, q string, limit, maxFiles int) (*SearchResult, error) {
	h, err := loadFor(repo, mem)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 10
	}
	res := &SearchResult{Query: q, Commits: len(h.Commits), Hits: []Hit{}}
	if n := ReachNote(mem); n != "" {
		res.Notes = append(res.Notes, n)
	}
	ms := h.Search(q, limit)
	hits := make([]*Commit, len(ms))
	for i, m := range ms {
		hits[i] = m.Commit
	}
	counts := lineCounts(context.Background(), repo, hits, nil)
	for _, m := range ms {
		chs := m.Commit.Changes
		if maxFiles > 0 && len(chs) > maxFiles {
			chs = chs[:maxFiles]
		}
		shown := make([]Change, len(chs))
		for i, ch := range chs {
			shown[i] = withCounts(ch, counts[m.Commit.Hash])
		}
		res.Hits = append(res.Hits, Hit{Brief: BriefOf(m.Commit), Score: round(m.Score), Changes: shown})
	}
	return res, nil
}

// loadFor loads the history of memory, with the errors Why and Ask give
// when there is none.
func loadFor(repo *gitstore.Repo, mem *memref.Memory) (*History, error) {
	if mem == nil || !mem.Derived() {
		return nil, errors.New("no memory yet: run `git konteks extract`")
	}
	h, err := Load(repo, mem.Tree)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, ErrNoHistory
	}
	return h, nil
}
