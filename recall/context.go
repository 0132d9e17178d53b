package recall

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/graph"
)

// Pack is a context pack: Markdown for an agent, fitted to a token budget.
type Pack struct {
	Task     string        `json:"task"`
	Budget   int           `json:"budget"`
	Tokens   int           `json:"tokens"` // estimated tokens of Markdown
	Markdown string        `json:"markdown"`
	Sections []PackSection `json:"sections"`
	Memory   MemoryState   `json:"memory"`
	Mode     string        `json:"mode"`
	Notes    []string      `json:"notes,omitempty"`
	// Evidence says how strongly memory supports the pack (see Assess).
	Evidence Evidence `json:"evidence"`
	// Memories are the saved entries that match the task as recall would
	// show them (see MatchMemories), each with its freshness; the pack's
	// Markdown ends with them.
	Memories []MemoryHit `json:"memories"`
}

// PackSection is a section as the pack shows it.
type PackSection struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Name      string  `json:"name"`
	Score     float64 `json:"score"`
	// Shown is how much of the section the pack holds: "full" (its
	// text), "summary" (its first lines and summary) or "reference" (only
	// path:line and name).
	Shown string `json:"shown"`
}

// DefaultBudget is the token budget of a context pack.
const DefaultBudget = 2000

// Tokens estimates the tokens of a text the way most tokenizers land on
// source code and English: about four bytes per token.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// PackOptions control a context pack.
type PackOptions struct {
	Budget int // tokens (default DefaultBudget)
	Mode   string
	// Memories is how many saved entries the pack may show
	// (DefaultMemoryHits when 0, none when <0); Matcher matches them (nil
	// reads them from the memory the searcher answers from).
	Memories int
	Matcher  *DurableMatcher
}

// Context builds a context pack for a task: the project in two lines, the
// areas the relevant sections are in, then the best sections with their
// text and path:line references, stepping down from full text to summary
// to a bare reference as the budget runs out.
func (s *Searcher) Context(ctx context.Context, task string, opt PackOptions) (*Pack, error) {
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	res, err := s.Search(ctx, task, Options{Limit: 24, PerFile: 3, Mode: opt.Mode})
	if err != nil {
		return nil, err
	}
	p := &Pack{Task: task, Budget: budget, Memory: res.Memory, Mode: res.Mode, Notes: res.Notes, Evidence: s.Judge(task, res.Hits, res.Confidence, nil)}
	if p.Evidence.NoMatch {
		res.Hits = nil // the least bad hits would only mislead
	}
	var paths []string
	for _, h := range res.Hits {
		paths = append(paths, h.Path)
	}
	if p.Memories, err = s.MatchMemories(task, p.Evidence, paths, opt.Memories, opt.Matcher); err != nil {
		return nil, err
	}
	// Saved memories close the pack, after the connected files; like
	// them, they keep their room first (at most a fifth of the budget,
	// dropping the weakest entries past it).
	mems := MemoriesMarkdown(p.Memories)
	for len(p.Memories) > 0 && Tokens(mems) > budget/5 {
		p.Memories = p.Memories[:len(p.Memories)-1]
		mems = MemoriesMarkdown(p.Memories)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Context: %s\n\n", OneLine(task, 200))
	fmt.Fprintf(&b, "Evidence: %s.\n\n", p.Evidence.Label())
	st := res.Memory
	fmt.Fprintf(&b, "Memory describes commit %.12s", st.SourceCommit)
	switch {
	case st.HeadAhead:
		fmt.Fprintf(&b, "; HEAD (%.12s) has moved past it", st.Head)
	case st.HeadMoved:
		fmt.Fprintf(&b, "; HEAD (%.12s) is elsewhere", st.Head)
	}
	b.WriteString(".\n\n")
	if proj := s.project(); proj != "" {
		b.WriteString("## Project\n\n")
		b.WriteString(proj)
		b.WriteString("\n\n")
	}
	if areas := areasOf(res.Hits); areas != "" {
		b.WriteString("## Relevant areas\n\n")
		b.WriteString(areas)
		b.WriteString("\n")
	}
	b.WriteString("## Sections\n\n")
	// The connected files close the pack; their room is kept first (at
	// most a tenth of the budget).
	conn := s.connected(res.Hits)
	if Tokens(conn) > budget/10 {
		conn = ""
	}
	used := Tokens(b.String()) + Tokens(conn) + Tokens(mems)
	for i, h := range res.Hits {
		ref := fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine)
		title := fmt.Sprintf("### %s — %s\n", ref, displayName(h))
		if h.Via != "" {
			title += "_Why here: " + h.Via + "._\n\n"
		}
		full := title + fence(h.Language, h.Content)
		sum := title + summaryBlock(h)
		bare := fmt.Sprintf("- %s %s\n", ref, displayName(h))
		if h.Via != "" {
			bare = fmt.Sprintf("- %s %s — %s\n", ref, displayName(h), h.Via)
		}
		left := budget - used
		// Keep room to at least name the next few hits.
		reserve := 0
		if i+1 < len(res.Hits) {
			reserve = Tokens(bare) * min(3, len(res.Hits)-i-1)
		}
		var text, shown string
		switch {
		case Tokens(full) <= left-reserve:
			text, shown = full, "full"
		case Tokens(sum) <= left-reserve:
			text, shown = sum, "summary"
		case Tokens(bare) <= left:
			text, shown = bare, "reference"
		}
		if text == "" {
			break
		}
		b.WriteString(text)
		if shown != "reference" {
			b.WriteString("\n")
		}
		used = Tokens(b.String()) + Tokens(conn) + Tokens(mems)
		p.Sections = append(p.Sections, PackSection{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Name: h.Name, Score: h.Score, Shown: shown})
	}
	if len(res.Hits) == 0 {
		b.WriteString("No section of memory matches this task (" + NoGoodMatch + "): try other words, or browse the areas above.\n")
	}
	if conn != "" {
		b.WriteString(conn)
	}
	b.WriteString(mems)
	p.Markdown = b.String()
	p.Tokens = Tokens(p.Markdown)
	return p, nil
}

// MemoriesMarkdown renders saved entries as a pack's closing section: a
// line each with its kind, short id, text and, for a cited entry whose
// code has changed, why it is stale. "" when there are none.
func MemoriesMarkdown(hits []MemoryHit) string {
	if len(hits) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Saved memories\n\n")
	for _, m := range hits {
		if m.Type == durable.TypeSkill {
			fmt.Fprintf(&b, "- **skill %s**: %s (its steps: the skills tool with name %q, or `git konteks skill show %s`)\n", m.Subject, OneLine(m.Text, 600), m.Subject, m.Subject)
			continue
		}
		label := m.Kind
		if m.Type == durable.TypeDiary {
			label = "diary"
		}
		fmt.Fprintf(&b, "- **%s** (%s): %s", label, ShortID(m.ID), OneLine(m.Text, 600))
		if n := m.Note(); n != "" {
			b.WriteString(" " + n)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ShortID is the first ten characters of a saved entry's id, enough to
// name it to forget or show.
func ShortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

func displayName(h Hit) string {
	n := h.Name
	if n == "" {
		n = h.Anchor
	}
	if h.Symbol != "" && h.Symbol != n {
		return n + " (" + h.Symbol + ")"
	}
	return n
}

func summaryBlock(h Hit) string {
	var b strings.Builder
	if h.Summary != "" {
		b.WriteString(OneLine(h.Summary, 300))
		b.WriteString("\n")
	}
	if sn := snippet(h.Content, 3, 240); sn != "" && !strings.Contains(h.Summary, strings.TrimSpace(sn)) {
		b.WriteString(fence(h.Language, sn+"\n…"))
	}
	return b.String()
}

// fence wraps text in a Markdown code fence longer than any backtick run
// inside it.
func fence(lang, text string) string {
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	return ticks + strings.ToLower(strings.ReplaceAll(lang, " ", "")) + "\n" + strings.TrimRight(text, "\n") + "\n" + ticks + "\n"
}

// OneLine is s on one line (runs of white space made one space), cut to
// at most max bytes at a character boundary with "…" after a cut: how
// recall's answers quote a text in a list, in the CLI and the MCP server.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// areasOf groups hits by directory: each area with its hit count and the
// names found there.
func areasOf(hits []Hit) string {
	type area struct {
		dir   string
		n     int
		score float64
		names []string
	}
	m := map[string]*area{}
	for _, h := range hits {
		d := path.Dir(h.Path)
		a := m[d]
		if a == nil {
			a = &area{dir: d}
			m[d] = a
		}
		a.n++
		a.score += h.Score
		if len(a.names) < 4 && h.Name != "" {
			a.names = append(a.names, h.Name)
		}
	}
	list := make([]*area, 0, len(m))
	for _, a := range m {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].dir < list[j].dir
	})
	var b strings.Builder
	for i, a := range list {
		if i == 5 {
			break
		}
		dir := a.dir
		if dir == "." {
			dir = "(root)"
		} else {
			dir += "/"
		}
		fmt.Fprintf(&b, "- `%s` — %d section(s): %s\n", dir, a.n, strings.Join(a.names, ", "))
	}
	return b.String()
}

// project describes the project in (at most) two lines: what its README
// says it is, and what it is made of.
func (s *Searcher) project() string {
	var lines []string
	for _, name := range []string{"README.md", "README", "README.rst", "README.txt", "readme.md", "Readme.md"} {
		f, err := s.record(name)
		if err != nil || f == nil {
			continue
		}
		for _, sec := range f.Sections {
			if t := readmeLine(sec.Content); t != "" {
				lines = append(lines, OneLine(t, 300))
				break
			}
		}
		break
	}
	if s.mem != nil && s.mem.Manifest != nil {
		t := s.mem.Manifest.Totals
		langs := s.languages(3)
		l := fmt.Sprintf("%d files, %d sections in memory", t.Included, t.Sections)
		if langs != "" {
			l += "; mostly " + langs
		}
		lines = append(lines, l+".")
	}
	return strings.Join(lines, "\n")
}

// readmeLine finds the first prose paragraph of a README section.
func readmeLine(content string) string {
	for _, para := range strings.Split(content, "\n\n") {
		p := strings.TrimSpace(para)
		if p == "" || strings.HasPrefix(p, "#") || strings.HasPrefix(p, "!") || strings.HasPrefix(p, "[!") ||
			strings.HasPrefix(p, "<") || strings.HasPrefix(p, "```") || strings.HasPrefix(p, "|") || strings.HasPrefix(p, "[![") {
			continue
		}
		return p
	}
	return ""
}

// languages names the most common languages of the memory's sections
// (counted when the index was built, not per call).
func (s *Searcher) languages(n int) string {
	langs := s.ix.Languages()
	return strings.Join(langs[:min(n, len(langs))], ", ")
}

// Bounds of the connected-files block of a context pack.
const (
	connectedFrom = 3 // best hit files whose neighbours are listed
	connectedEach = 3 // neighbours listed per file
)

// connected lists, for the best few files of a pack, the files they are
// most strongly linked to in the file graph (imports and references by
// name) that the pack does not show already: where a change to those
// files is likely to reach. It reads the graph only when its cache is
// there (the background runner builds it); a pack never waits for it.
func (s *Searcher) connected(hits []Hit) string {
	if s.mem == nil || s.mem.Commit != s.ix.Memory {
		return ""
	}
	g, err := graph.OpenCached(s.repo, s.mem)
	if err != nil || g == nil {
		return ""
	}
	defer g.Close()
	shown := map[string]bool{}
	for _, h := range hits {
		shown[h.Path] = true
	}
	var b strings.Builder
	seen := map[string]bool{}
	files := 0
	for _, h := range hits {
		if files == connectedFrom {
			break
		}
		if seen[h.Path] {
			continue
		}
		seen[h.Path] = true
		files++
		i := g.File(h.Path)
		if i < 0 {
			continue
		}
		nbs := g.Neighbors(i)
		sort.SliceStable(nbs, func(a, c int) bool { return nbs[a].Weight > nbs[c].Weight })
		var parts []string
		for _, nb := range nbs {
			if len(parts) == connectedEach {
				break
			}
			p := g.Path(nb.File)
			if shown[p] {
				continue
			}
			if nb.Out {
				parts = append(parts, "uses "+p)
			} else {
				parts = append(parts, "used by "+p)
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "- %s: %s\n", h.Path, strings.Join(parts, "; "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "## Connected files\n\n" + b.String()
}
