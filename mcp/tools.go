package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
)

// Tool names.
const (
	ToolRecall    = "recall"
	ToolContext   = "context"
	ToolOverview  = "overview"
	ToolSkeleton  = "skeleton"
	ToolShow      = "show"
	ToolGraph     = "graph"
	ToolRemember  = "remember"
	ToolDiary     = "diary"
	ToolForget    = "forget"
	ToolMemories  = "memories"
	ToolSkills    = "skills"
	ToolStatus    = "status"
	ToolRefresh   = "refresh"
	maxLimit      = 50
	maxBudget     = 32000
	minBudget     = 100
	maxMemoryHits = 5
)

// Tools lists the tool names, in the order the server offers them.
var Tools = []string{ToolRecall, ToolContext, ToolOverview, ToolSkeleton, ToolShow, ToolGraph,
	ToolRemember, ToolDiary, ToolForget, ToolMemories, ToolSkills, ToolStatus, ToolRefresh, ToolWhy, ToolHistory}

// addTool registers a typed tool: its arguments are checked against the
// inferred input schema adjusted by tweak (see checkArgs: errors in
// words), its handler is guarded against panics, and its answer carries
// both the text for the model and the structured output.
func addTool[In, Out any](s *Server, t *sdk.Tool, tweak func(*jsonschema.Schema), h sdk.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", t.Name, err))
	}
	if tweak != nil {
		tweak(in)
	}
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %s: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema = in, out
	s.srv.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer guard(t.Name, &err)
		defer func() {
			if err != nil {
				// A failure is a tool error the model reads, never a
				// protocol error.
				res, err = toolError(err), nil
			}
		}()
		raw, err := checkArgs(t.Name, in, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		var arg In
		if err := json.Unmarshal(raw, &arg); err != nil {
			return nil, fmt.Errorf("arguments of %s: %v", t.Name, err)
		}
		res, o, err := h(ctx, req, arg)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s cancelled: %w", t.Name, ctx.Err())
			}
			return nil, err
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("%s: encode the answer: %w", t.Name, err)
		}
		res.StructuredContent = json.RawMessage(b)
		if res.Content == nil {
			res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
		}
		return res, nil
	})
}

// toolError is the tool result of a failed call.
func toolError(err error) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
}

func prop(s *jsonschema.Schema, name string, f func(p *jsonschema.Schema)) {
	if p, ok := s.Properties[name]; ok && p != nil {
		f(p)
	}
}

func bounds(lo, hi float64) func(p *jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.Minimum, p.Maximum = &lo, &hi }
}

func enum(vals ...string) func(p *jsonschema.Schema) {
	return func(p *jsonschema.Schema) {
		for _, v := range vals {
			p.Enum = append(p.Enum, v)
		}
	}
}

func readOnly(title string) *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &f}
}

func writes(title string, destructive, idempotent bool) *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &f}
}

func (s *Server) addTools() {
	addTool(s, &sdk.Tool{
		Name: ToolRecall,
		Description: "Find where in this repository something is handled: ranked sections (functions, types, headings, config keys) " +
			"with path:lines, name, summary and snippet, plus saved memories (decisions, constraints, notes) that match. " +
			"A hit placed by the project's history (a file past commits like this task changed, or one that usually changes " +
			"with a better hit) says so in via: read it even when its text does not mention the task. " +
			"Use it first for any question about the code, phrased as the task or question in your own words.",
		Annotations: readOnly("Recall"),
	}, func(in *jsonschema.Schema) {
		in.Required = []string{"task"}
		prop(in, "limit", bounds(1, maxLimit))
		prop(in, "mode", enum(recall.Hybrid, recall.Lexical, recall.Vector))
		prop(in, "tests", enum(recall.TestsInclude, recall.TestsExclude, recall.TestsOnly))
	}, s.recall)
	addTool(s, &sdk.Tool{
		Name: ToolContext,
		Description: "A Markdown context pack for a task, fitted to a token budget: the project in brief, the relevant areas, " +
			"then the best sections with their code and path:line references, plus saved memories that matter. " +
			"Use it when starting a task, instead of several recall and show calls.",
		Annotations: readOnly("Context pack"),
	}, func(in *jsonschema.Schema) {
		in.Required = []string{"task"}
		prop(in, "budget", bounds(minBudget, maxBudget))
	}, s.context)
	addTool(s, &sdk.Tool{
		Name: ToolOverview,
		Description: "Summary of a directory: one sentence (l0), an overview of its children (l1), and each child's abstract. " +
			"No path (or \".\") gives the whole repository. Use it to orient in an unfamiliar area.",
		Annotations: readOnly("Directory overview"),
	}, nil, s.overview)
	addTool(s, &sdk.Tool{
		Name:        ToolSkeleton,
		Description: "A code file at a glance: its imports, then every symbol's signature and first doc sentence, in order. Cheaper than reading the file.",
		Annotations: readOnly("File skeleton"),
	}, func(in *jsonschema.Schema) { in.Required = []string{"path"} }, s.skeleton)
	addTool(s, &sdk.Tool{
		Name: ToolShow,
		Description: "A file's memory record: its sections with anchors, kinds and line ranges (no anchor), " +
			"or one section's full text (anchor, or a symbol or heading name such as Store.Get). Says why a path is not in memory.",
		Annotations: readOnly("Show record"),
	}, func(in *jsonschema.Schema) { in.Required = []string{"path"} }, s.show)
	addTool(s, &sdk.Tool{
		Name: ToolGraph,
		Description: "An entity and its neighbours in the project graph: a file path, symbol name (Store.Get), package or directory; " +
			"what it defines and imports, and what imports it; for a symbol, the symbols it calls and those that call it (by name). Use it to find callers and dependencies before a change.",
		Annotations: readOnly("Graph"),
	}, func(in *jsonschema.Schema) {
		in.Required = []string{"name"}
		prop(in, "limit", bounds(1, maxLimit))
	}, s.graph)
	addTool(s, &sdk.Tool{
		Name: ToolRemember,
		Description: "Save a durable memory for every future session and every clone (it travels with git): a decision, constraint, " +
			"preference, insight, fact or note that cannot be read from the code itself. Say what and why in a sentence or two; " +
			"name the paths and `symbols` it is about. Never save secrets. To correct a memory, pass supersedes with its id.",
		Annotations: writes("Remember", false, true),
	}, func(in *jsonschema.Schema) {
		in.Required = []string{"text"}
		prop(in, "kind", enum(durable.Kinds...))
	}, s.remember)
	addTool(s, &sdk.Tool{
		Name:        ToolDiary,
		Description: "Add a diary entry: what was done, found or left open in this session, for whoever works here next.",
		Annotations: writes("Diary", false, true),
	}, func(in *jsonschema.Schema) { in.Required = []string{"entry"} }, s.diary)
	addTool(s, &sdk.Tool{
		Name: ToolForget,
		Description: "Forget a durable memory or diary entry that no longer holds (by id, at least 4 characters of it). " +
			"Writes a tombstone with the reason, which reaches every clone; nothing is erased from history.",
		Annotations: writes("Forget", true, true),
	}, func(in *jsonschema.Schema) { in.Required = []string{"id", "reason"} }, s.forget)
	addTool(s, &sdk.Tool{
		Name: ToolMemories,
		Description: "List saved durable memories and diary entries, newest first, optionally filtered by words (all must occur in " +
			"the text, tags, paths or symbols), kind, or type. Check constraints and decisions before changing code.",
		Annotations: readOnly("Memories"),
	}, func(in *jsonschema.Schema) {
		prop(in, "kind", enum(durable.Kinds...))
		prop(in, "type", enum("memory", "diary", "all"))
		prop(in, "limit", bounds(1, 200))
	}, s.memories)
	addTool(s, &sdk.Tool{
		Name:        ToolSkills,
		Description: "Skills saved for this repository (SKILL.md instructions for recurring tasks): without a name, the list with descriptions; with a name, the whole skill.",
		Annotations: readOnly("Skills"),
	}, nil, s.skills)
	addTool(s, &sdk.Tool{
		Name:        ToolStatus,
		Description: "Which commit memory describes, how far HEAD has moved past it, what memory holds, and whether the search index is open.",
		Annotations: readOnly("Status"),
	}, nil, s.status)
	addTool(s, &sdk.Tool{
		Name: ToolRefresh,
		Description: "Bring memory up to HEAD: runs a `changed` extraction (a full one when there is no memory yet) and reports what changed. " +
			"Cost follows the change: a few files take well under a second. Committed code only: uncommitted edits are never in memory.",
		Annotations: writes("Refresh memory", false, true),
	}, nil, s.refresh)
	s.addHistoryTools()
}

// ---- recall

// RecallInput is the input of the recall tool.
type RecallInput struct {
	Task  string   `json:"task" jsonschema:"the task or question, in your own words"`
	Limit int      `json:"limit,omitempty" jsonschema:"number of sections (default 10)"`
	Mode  string   `json:"mode,omitempty" jsonschema:"ranking: hybrid (default), lexical or vector"`
	Files bool     `json:"files,omitempty" jsonschema:"answer with files instead of sections: each ranked by its best section, with its best sections and why it is there (limit counts files)"`
	Path  []string `json:"path,omitempty" jsonschema:"only paths matching these globs (*, **, ?; a glob without a slash matches a name at any depth); a glob starting with ! excludes"`
	Tests string   `json:"tests,omitempty" jsonschema:"test code: include (default), exclude or only"`
}

// RecallOutput is the answer of the recall tool.
type RecallOutput struct {
	Task string `json:"task"`
	// Evidence says how strongly memory supports the hits: strong,
	// partial or weak; a task nothing matches has no hits and says
	// "no good match in memory".
	Evidence recall.Evidence  `json:"evidence"`
	Hits     []recall.Hit     `json:"hits"`
	Files    []recall.FileHit `json:"files,omitempty"` // with files: the files, instead of hits
	Memories []MemoryHit      `json:"memories"`        // saved memories that match the task
	Mode     string           `json:"mode"`
	Notes    []string         `json:"notes,omitempty"`
	Memory   Freshness        `json:"memory"`
}

// MemoryHit is a durable memory or diary entry matching a task.
// MemoryHit is a durable entry that matches a task.
type MemoryHit = recall.MemoryHit

// maxTask bounds a task: a query is a description, not a document.
const maxTask = 4096

func task(t string) (string, error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", errors.New("task is empty: describe the task or question in a few words, e.g. \"where are retries of failed requests handled\"")
	}
	if len(t) > maxTask {
		return "", fmt.Errorf("task is %d bytes: describe it in under %d (what to find or change, not the code itself)", len(t), maxTask)
	}
	return t, nil
}

func (s *Server) recall(ctx context.Context, req *sdk.CallToolRequest, in RecallInput) (*sdk.CallToolResult, RecallOutput, error) {
	var out RecallOutput
	q, err := task(in.Task)
	if err != nil {
		return nil, out, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	err = s.withSearcher(ctx, req, func(se *recall.Searcher, sn *snapshot, st recall.MemoryState) error {
		a, err := s.answer(ctx, se, sn, q, recall.AnswerOptions{Options: recall.Options{Limit: min(limit, maxLimit), Mode: in.Mode, Paths: in.Path, Tests: in.Tests},
			Files: in.Files, Memories: maxMemoryHits})
		if err != nil {
			return err
		}
		out = RecallOutput{Task: q, Evidence: a.Evidence, Hits: a.Hits, Files: a.Files, Memories: a.Memories, Mode: a.Mode, Notes: notes(a.Notes, s.embNote)}
		out.Memory = s.freshness(sn, st.Commit, st.SourceCommit)
		out.Memory.Index = st.Index
		return nil
	})
	if err != nil {
		return nil, out, err
	}
	return textResult(renderRecall(out)), out, nil
}

func notes(ns []string, extra string) []string {
	if extra != "" {
		ns = append(ns, extra)
	}
	return ns
}

func renderRecall(out RecallOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Evidence: %s.\n", out.Evidence.Label())
	for _, f := range out.Files {
		fmt.Fprintf(&b, "%s  (%s)\n", f.Path, f.Why)
		for _, h := range f.Sections {
			fmt.Fprintf(&b, "    %d-%d  %s", h.StartLine, h.EndLine, h.Name)
			if sum := oneLine(h.Summary, 160); sum != "" && sum != h.Name {
				fmt.Fprintf(&b, ": %s", sum)
			}
			b.WriteString("\n")
		}
	}
	for _, h := range out.Hits {
		name := h.Name
		if name == "" {
			name = h.Anchor
		}
		fmt.Fprintf(&b, "%s:%d-%d  %s", h.Path, h.StartLine, h.EndLine, name)
		if h.Symbol != "" && h.Symbol != name {
			fmt.Fprintf(&b, " (%s)", h.Symbol)
		}
		b.WriteString("\n")
		if sum := oneLine(h.Summary, 200); sum != "" {
			fmt.Fprintf(&b, "    %s\n", sum)
		}
		if h.Via != "" {
			fmt.Fprintf(&b, "    why here: %s\n", h.Via)
		}
	}
	if len(out.Hits) == 0 && len(out.Files) == 0 {
		b.WriteString("No section of memory matches this task (" + recall.NoGoodMatch + "); try other words, or overview to browse.\n")
	}
	writeMemoryHits(&b, out.Memories)
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	return b.String()
}

func writeMemoryHits(b *strings.Builder, hits []MemoryHit) {
	if len(hits) == 0 {
		return
	}
	b.WriteString("\nSaved memories that match:\n")
	for _, m := range hits {
		if m.Type == durable.TypeSkill {
			fmt.Fprintf(b, "- [skill %s] %s (call skills with name %q to read it)\n", m.Subject, oneLine(m.Text, 400), m.Subject)
			continue
		}
		label := m.Kind
		if m.Type == durable.TypeDiary {
			label = "diary"
		}
		fmt.Fprintf(b, "- [%s %s] %s\n", label, shortID(m.ID), oneLine(m.Text, 400))
	}
}

// ---- context

// ContextInput is the input of the context tool.
type ContextInput struct {
	Task   string `json:"task" jsonschema:"the task, in your own words"`
	Budget int    `json:"budget,omitempty" jsonschema:"token budget of the pack (default 2000)"`
}

// ContextOutput is the answer of the context tool.
type ContextOutput struct {
	Task string `json:"task"`
	// Evidence says how strongly memory supports the pack (see
	// RecallOutput.Evidence).
	Evidence recall.Evidence      `json:"evidence"`
	Budget   int                  `json:"budget"`
	Tokens   int                  `json:"tokens"`
	Markdown string               `json:"markdown"`
	Sections []recall.PackSection `json:"sections"`
	Memories []MemoryHit          `json:"memories"`
	Notes    []string             `json:"notes,omitempty"`
	Memory   Freshness            `json:"memory"`
}

func (s *Server) context(ctx context.Context, req *sdk.CallToolRequest, in ContextInput) (*sdk.CallToolResult, ContextOutput, error) {
	var out ContextOutput
	q, err := task(in.Task)
	if err != nil {
		return nil, out, err
	}
	budget := in.Budget
	if budget <= 0 {
		budget = recall.DefaultBudget
	}
	budget = max(minBudget, min(budget, maxBudget))
	err = s.withSearcher(ctx, req, func(se *recall.Searcher, sn *snapshot, st recall.MemoryState) error {
		p, err := se.Context(ctx, q, recall.PackOptions{Budget: budget})
		if err != nil {
			return err
		}
		out = ContextOutput{Task: q, Evidence: p.Evidence, Budget: p.Budget, Tokens: p.Tokens, Markdown: p.Markdown, Sections: p.Sections, Notes: notes(p.Notes, s.embNote)}
		if out.Sections == nil {
			out.Sections = []recall.PackSection{}
		}
		var paths []string
		for _, p := range out.Sections {
			paths = append(paths, p.Path)
		}
		// The entries recall would show: those matching the task about
		// as well as the pack's code does, or linked to its files.
		if out.Memories, err = se.MatchMemories(q, p.Evidence, paths, maxMemoryHits, s.matcher(sn)); err != nil {
			return err
		}
		out.Memory = s.freshness(sn, st.Commit, st.SourceCommit)
		out.Memory.Index = st.Index
		return nil
	})
	if err != nil {
		return nil, out, err
	}
	var b strings.Builder
	b.WriteString(out.Markdown)
	if len(out.Memories) > 0 {
		b.WriteString("\n## Saved memories\n\n")
		for _, m := range out.Memories {
			if m.Type == durable.TypeSkill {
				fmt.Fprintf(&b, "- **skill %s**: %s (call skills with name %q to read it)\n", m.Subject, oneLine(m.Text, 600), m.Subject)
				continue
			}
			label := m.Kind
			if m.Type == durable.TypeDiary {
				label = "diary"
			}
			fmt.Fprintf(&b, "- **%s** (%s): %s\n", label, shortID(m.ID), oneLine(m.Text, 600))
		}
	}
	b.WriteString("\n")
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	return textResult(b.String()), out, nil
}

// ---- overview

// OverviewInput is the input of the overview tool.
type OverviewInput struct {
	Path string `json:"path,omitempty" jsonschema:"directory from the repository root; empty or . for the whole repository"`
}

// OverviewOutput is a directory summary.
type OverviewOutput struct {
	Path      string            `json:"path"`
	L0        string            `json:"l0"`
	L1        string            `json:"l1"`
	Children  []memory.DirChild `json:"children"`
	Freshness memory.Freshness  `json:"summary_freshness"`
	Memory    Freshness         `json:"memory"`
}

func (s *Server) overview(_ context.Context, _ *sdk.CallToolRequest, in OverviewInput) (*sdk.CallToolResult, OverviewOutput, error) {
	var out OverviewOutput
	snap, err := s.derived()
	if err != nil {
		return nil, out, err
	}
	dir := strings.Trim(strings.TrimPrefix(strings.TrimSpace(in.Path), "./"), "/")
	if dir == "." {
		dir = ""
	}
	if dir != "" {
		if err := memory.ValidSourcePath(dir); err != nil {
			return nil, out, fmt.Errorf("path %q: %v (give a directory relative to the repository root)", in.Path, err)
		}
	}
	repo, mem := snap.repo, snap.mem
	h, _, ok, err := repo.Lookup(mem.Tree, memory.DirSummaryPath(dir))
	if err != nil {
		return nil, out, err
	}
	if !ok {
		if _, isRec, err := memref.Record(repo, mem.Tree, dir); err == nil && isRec {
			return nil, out, fmt.Errorf("%s is a file, not a directory: call skeleton or show with it", dir)
		}
		return nil, out, fmt.Errorf("no summary for %q: not a directory with remembered files (call overview without a path to see the top level)", dir)
	}
	sum, err := memref.DirSummary(repo, h)
	if err != nil {
		return nil, out, err
	}
	out = OverviewOutput{Path: sum.Path, L0: sum.L0, L1: sum.L1, Children: sum.Children, Freshness: sum.Freshness}
	if out.Children == nil {
		out.Children = []memory.DirChild{}
	}
	out.Memory = s.freshness(snap, mem.Commit.String(), mem.Manifest.SourceCommit)
	var b strings.Builder
	name := sum.Path
	if name == "" {
		name = "(repository root)"
	}
	fmt.Fprintf(&b, "%s\n\n%s\n", name, strings.TrimSpace(sum.L1))
	if sum.Freshness.Pending > 0 {
		fmt.Fprintf(&b, "\n(%d changes below this directory since this summary was written)\n", sum.Freshness.Pending)
	}
	b.WriteString("\n")
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	return textResult(b.String()), out, nil
}

// ---- skeleton

// PathInput names one source path.
type PathInput struct {
	Path string `json:"path" jsonschema:"file path from the repository root, e.g. internal/store/store.go"`
}

// SkeletonOutput is a code file at a glance.
type SkeletonOutput struct {
	Path     string    `json:"path"`
	Language string    `json:"language,omitempty"`
	Parser   string    `json:"parser"`
	Lines    int       `json:"lines"`
	Skeleton string    `json:"skeleton"`
	Memory   Freshness `json:"memory"`
}

// record reads the record of a path, or explains why there is none.
func (s *Server) record(snap *snapshot, arg string) (string, *memory.File, error) {
	p := strings.Trim(strings.TrimPrefix(strings.TrimSpace(arg), "./"), "/")
	if p == "" {
		return "", nil, errors.New("path is empty: give a file path from the repository root")
	}
	if err := memory.ValidSourcePath(p); err != nil {
		return "", nil, fmt.Errorf("path %q: %v (give a file path relative to the repository root)", arg, err)
	}
	f, ok, err := memref.Record(snap.repo, snap.mem.Tree, p)
	if err != nil {
		return "", nil, fmt.Errorf("%w; `git konteks extract --mode rebuild` rebuilds memory", err)
	}
	if ok {
		return p, f, nil
	}
	skipped, err := memref.Skipped(snap.repo, snap.mem.Tree)
	if err != nil {
		return "", nil, err
	}
	if reason, ok := skipped[p]; ok {
		return "", nil, fmt.Errorf("%s is not in memory: skipped by the gate (%s); read the file itself", p, reason)
	}
	if _, isTree, ok, _ := snap.repo.Lookup(snap.mem.Tree, memory.DirSummaryPath(p)); ok && !isTree {
		return "", nil, fmt.Errorf("%s is a directory: call overview with it", p)
	}
	return "", nil, fmt.Errorf("%s is not in memory: no such file in commit %s (if it is new, commit it and call refresh; recall finds files by what they do)", p, short(snap.mem.Manifest.SourceCommit))
}

func (s *Server) skeleton(_ context.Context, _ *sdk.CallToolRequest, in PathInput) (*sdk.CallToolResult, SkeletonOutput, error) {
	var out SkeletonOutput
	snap, err := s.derived()
	if err != nil {
		return nil, out, err
	}
	p, f, err := s.record(snap, in.Path)
	if err != nil {
		return nil, out, err
	}
	if f.Skeleton == "" {
		return nil, out, fmt.Errorf("%s has no skeleton (kind %s, parser %s: skeletons are made for parser-backed code); call show with it to list its sections", p, f.Kind, f.Parser)
	}
	out = SkeletonOutput{Path: p, Language: f.Language, Parser: f.Parser, Lines: f.Lines, Skeleton: f.Skeleton}
	out.Memory = s.freshness(snap, snap.mem.Commit.String(), snap.mem.Manifest.SourceCommit)
	return textResult(fmt.Sprintf("%s (%s, %d lines)\n\n%s\n\n%s\n", p, f.Language, f.Lines, strings.TrimRight(f.Skeleton, "\n"), out.Memory.Line())), out, nil
}

// ---- show

// ShowInput is the input of the show tool.
type ShowInput struct {
	Path   string `json:"path" jsonschema:"file path from the repository root"`
	Anchor string `json:"anchor,omitempty" jsonschema:"a section's anchor (as show lists them) or its symbol or heading name; empty lists the sections"`
}

// SectionInfo is one section as show lists it.
type SectionInfo struct {
	Anchor    string `json:"anchor"`
	Symbol    string `json:"symbol"`
	Name      string `json:"name,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Signature string `json:"signature,omitempty"`
	Summary   string `json:"summary,omitempty"`
}

// ShowOutput is a file's record, or one section of it.
type ShowOutput struct {
	Path     string        `json:"path"`
	Kind     string        `json:"kind"`
	Language string        `json:"language,omitempty"`
	Parser   string        `json:"parser"`
	Fallback string        `json:"fallback,omitempty"`
	Lines    int           `json:"lines"`
	Blob     string        `json:"blob"`
	Abstract string        `json:"abstract,omitempty"`
	Sections []SectionInfo `json:"sections"`
	// Section and Content are set when an anchor was asked for.
	Section *SectionInfo `json:"section,omitempty"`
	Content string       `json:"content,omitempty"`
	Memory  Freshness    `json:"memory"`
}

func sectionInfo(sec memory.Section) SectionInfo {
	name := sec.QName
	if name == "" {
		name = sec.Name
	}
	return SectionInfo{Anchor: sec.Anchor, Symbol: sec.Symbol, Name: name, StartLine: sec.StartLine, EndLine: sec.EndLine,
		Signature: sec.Signature, Summary: sec.Summary}
}

func (s *Server) show(_ context.Context, _ *sdk.CallToolRequest, in ShowInput) (*sdk.CallToolResult, ShowOutput, error) {
	var out ShowOutput
	snap, err := s.derived()
	if err != nil {
		return nil, out, err
	}
	p, f, err := s.record(snap, in.Path)
	if err != nil {
		return nil, out, err
	}
	out = ShowOutput{Path: p, Kind: f.Kind, Language: f.Language, Parser: f.Parser, Fallback: f.Fallback, Lines: f.Lines, Blob: f.Blob, Abstract: f.Abstract}
	out.Sections = make([]SectionInfo, len(f.Sections))
	for i, sec := range f.Sections {
		out.Sections[i] = sectionInfo(sec)
	}
	out.Memory = s.freshness(snap, snap.mem.Commit.String(), snap.mem.Manifest.SourceCommit)
	var b strings.Builder
	if in.Anchor != "" {
		i, ok := f.FindSection(in.Anchor)
		if !ok {
			return nil, out, f.NoSection(p, in.Anchor)
		}
		sec := f.Sections[i]
		info := sectionInfo(sec)
		content := sec.Content
		if len(content) > maxSectionText {
			cut := strings.LastIndexByte(content[:maxSectionText], '\n')
			if cut <= 0 {
				cut = maxSectionText
			}
			shown := strings.Count(content[:cut], "\n") + 1
			content = content[:cut] + fmt.Sprintf("\n… (section truncated after %d of its lines: read %s from line %d on)", shown, p, sec.StartLine+shown)
		}
		sec.Content = content
		out.Section, out.Content = &info, content
		out.Sections = []SectionInfo{} // the one asked for is enough
		fmt.Fprintf(&b, "%s:%d-%d  %s  [%s]\n\n", p, sec.StartLine, sec.EndLine, info.Name, sec.Anchor)
		fence := "```"
		for strings.Contains(sec.Content, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%s%s\n%s\n%s\n\n", fence, strings.ToLower(sec.Language), strings.TrimRight(sec.Content, "\n"), fence)
	} else {
		lang := f.Language
		if lang == "" {
			lang = "-"
		}
		fmt.Fprintf(&b, "%s  %s  %s  parser=%s  %d lines\n", p, f.Kind, lang, f.Parser, f.Lines)
		if f.Abstract != "" {
			fmt.Fprintf(&b, "%s\n", oneLine(f.Abstract, 300))
		}
		for _, sec := range out.Sections {
			fmt.Fprintf(&b, "  %5d-%-5d %-10s %s  [%s]\n", sec.StartLine, sec.EndLine, sec.Symbol, sec.Name, sec.Anchor)
		}
		b.WriteString("(pass an anchor to read one section)\n\n")
	}
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	return textResult(b.String()), out, nil
}

// ---- graph

// GraphInput is the input of the graph tool.
type GraphInput struct {
	Name  string `json:"name" jsonschema:"a file path, symbol name (Store.Get or Get), package, directory, or an entity id (sym:..., file:...)"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many matching entities (default 10)"`
}

// GraphOutput lists matching entities with their neighbours.
type GraphOutput struct {
	Name   string      `json:"name"`
	Nodes  []GraphNode `json:"nodes"`
	Memory Freshness   `json:"memory"`
}

// GraphNode is an entity with its neighbours, at most maxLinks each way
// (a file that defines hundreds of symbols or that hundreds of files
// import would otherwise flood the agent's context); the totals count
// them all.
type GraphNode struct {
	Entity   memory.Entity `json:"entity"`
	Path     string        `json:"path,omitempty"` // the file that owns it
	Out      []graph.Link  `json:"out"`            // edges from it: contains, defines, imports
	In       []graph.Link  `json:"in"`             // edges to it: imported-by, defined-in
	OutTotal int           `json:"out_total"`
	InTotal  int           `json:"in_total"`
}

const maxLinks = 60

// maxSectionText bounds the text show returns for one section (a large
// generated table, a long document section).
const maxSectionText = 48 << 10

func (s *Server) graph(_ context.Context, _ *sdk.CallToolRequest, in GraphInput) (*sdk.CallToolResult, GraphOutput, error) {
	var out GraphOutput
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, out, errors.New("name is empty: give a file path, a symbol name or a directory")
	}
	snap, err := s.derived()
	if err != nil {
		return nil, out, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	nodes, err := graph.Find(snap.repo, snap.mem, name, min(limit, maxLimit))
	if err != nil {
		return nil, out, err
	}
	if len(nodes) == 0 {
		return nil, out, fmt.Errorf("no entity named %q in memory: try a file path, a qualified symbol name (Type.Method), or recall to find it", name)
	}
	out = GraphOutput{Name: name}
	out.Memory = s.freshness(snap, snap.mem.Commit.String(), snap.mem.Manifest.SourceCommit)
	var b strings.Builder
	for i, n := range nodes {
		gn := GraphNode{Entity: n.Entity, Path: n.Path, Out: first(n.Out, maxLinks), In: first(n.In, maxLinks), OutTotal: len(n.Out), InTotal: len(n.In)}
		if gn.Out == nil {
			gn.Out = []graph.Link{}
		}
		if gn.In == nil {
			gn.In = []graph.Link{}
		}
		out.Nodes = append(out.Nodes, gn)
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  (%s)\n", n.Entity.ID, n.Entity.Kind)
		for _, l := range gn.Out {
			fmt.Fprintf(&b, "  %-12s %s", l.Kind, l.ID)
			if l.Raw != "" && !strings.HasSuffix(l.ID, l.Raw) {
				fmt.Fprintf(&b, "  (%s)", l.Raw)
			}
			b.WriteString("\n")
		}
		if gn.OutTotal > len(gn.Out) {
			fmt.Fprintf(&b, "  … and %d more outgoing edges\n", gn.OutTotal-len(gn.Out))
		}
		for _, l := range gn.In {
			fmt.Fprintf(&b, "  %-12s %s\n", l.Kind, l.ID)
		}
		if gn.InTotal > len(gn.In) {
			fmt.Fprintf(&b, "  … and %d more incoming edges\n", gn.InTotal-len(gn.In))
		}
	}
	b.WriteString("\n")
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	return textResult(b.String()), out, nil
}

// ---- remember, diary, forget

// RememberInput is the input of the remember tool.
type RememberInput struct {
	Text       string   `json:"text" jsonschema:"what to remember and why, in a sentence or two; name paths and symbols in backticks"`
	Kind       string   `json:"kind,omitempty" jsonschema:"decision, constraint, preference, insight, fact or note (default note)"`
	Tags       []string `json:"tags,omitempty" jsonschema:"short tags"`
	Paths      []string `json:"paths,omitempty" jsonschema:"source paths it is about (also found in the text automatically)"`
	Supersedes string   `json:"supersedes,omitempty" jsonschema:"id of a memory this one replaces"`
}

// DiaryInput is the input of the diary tool.
type DiaryInput struct {
	Entry   string `json:"entry" jsonschema:"what was done, found or left open"`
	Subject string `json:"subject,omitempty" jsonschema:"what the entry is about (a task, a session)"`
}

// SaveOutput is the answer of remember and diary.
type SaveOutput struct {
	Saved     bool         `json:"saved"`
	Duplicate bool         `json:"duplicate,omitempty"` // an identical live entry exists: nothing was written
	Entry     durable.Item `json:"entry"`
	Memory    Freshness    `json:"memory"`
}

func (s *Server) remember(_ context.Context, _ *sdk.CallToolRequest, in RememberInput) (*sdk.CallToolResult, SaveOutput, error) {
	kind := in.Kind
	if kind == "" {
		kind = "note"
	}
	return s.save(durable.Entry{Type: durable.TypeMemory, Kind: kind, Text: in.Text, Tags: in.Tags, Paths: in.Paths, Supersedes: strings.TrimSpace(in.Supersedes)})
}

func (s *Server) diary(_ context.Context, _ *sdk.CallToolRequest, in DiaryInput) (*sdk.CallToolResult, SaveOutput, error) {
	return s.save(durable.Entry{Type: durable.TypeDiary, Subject: in.Subject, Text: in.Entry})
}

func (s *Server) save(e durable.Entry) (*sdk.CallToolResult, SaveOutput, error) {
	var out SaveOutput
	if strings.TrimSpace(e.Text) == "" {
		return nil, out, errors.New("nothing to save: the text is empty")
	}
	for i, p := range e.Paths {
		e.Paths[i] = strings.Trim(strings.TrimPrefix(strings.TrimSpace(p), "./"), "/")
	}
	repo, err := s.writeRepo()
	if err != nil {
		return nil, out, err
	}
	durable.LinkMentions(repo, &e)
	it, isNew, err := durable.Save(repo, e)
	if err != nil {
		return nil, out, err
	}
	out = SaveOutput{Saved: isNew, Duplicate: !isNew, Entry: it}
	snap, err := s.current()
	if err != nil {
		return nil, out, err
	}
	out.Memory = s.snapFreshness(snap)
	var b strings.Builder
	if isNew {
		fmt.Fprintf(&b, "saved %s %s", e.Type, it.ID)
		if len(it.Paths) > 0 {
			fmt.Fprintf(&b, " (linked to %s)", strings.Join(it.Paths, ", "))
		}
		b.WriteString(": it travels with `git konteks push` and is recalled by future sessions\n")
	} else {
		fmt.Fprintf(&b, "already remembered as %s: nothing written\n", it.ID)
	}
	return textResult(b.String()), out, nil
}

// snapFreshness describes the snapshot's memory (none when there is none).
func (s *Server) snapFreshness(snap *snapshot) Freshness {
	if snap.mem == nil || !snap.mem.Derived() {
		return s.freshness(snap, "", "")
	}
	return s.freshness(snap, snap.mem.Commit.String(), snap.mem.Manifest.SourceCommit)
}

// ForgetInput is the input of the forget tool.
type ForgetInput struct {
	ID     string `json:"id" jsonschema:"the entry's id (at least 4 characters of it)"`
	Reason string `json:"reason" jsonschema:"why it no longer holds"`
}

// ForgetOutput is the answer of the forget tool.
type ForgetOutput struct {
	Forgotten string    `json:"forgotten"` // id of the entry forgotten
	Tombstone string    `json:"tombstone"` // id of the tombstone written
	Memory    Freshness `json:"memory"`
}

func (s *Server) forget(_ context.Context, _ *sdk.CallToolRequest, in ForgetInput) (*sdk.CallToolResult, ForgetOutput, error) {
	var out ForgetOutput
	if strings.TrimSpace(in.Reason) == "" {
		return nil, out, errors.New("reason is empty: say why the entry no longer holds (it is kept with the tombstone)")
	}
	repo, err := s.writeRepo()
	if err != nil {
		return nil, out, err
	}
	t, err := durable.Forget(repo, in.ID, in.Reason)
	if err != nil {
		return nil, out, err
	}
	out = ForgetOutput{Forgotten: t.Forgets, Tombstone: t.ID}
	if snap, err := s.current(); err == nil {
		out.Memory = s.snapFreshness(snap)
	}
	return textResult(fmt.Sprintf("forgot %s (tombstone %s)\n", t.Forgets, t.ID)), out, nil
}

// ---- memories

// MemoriesInput is the input of the memories tool.
type MemoriesInput struct {
	Filter string `json:"filter,omitempty" jsonschema:"words that must all occur in the entry (text, subject, tags, paths, symbols) or an id prefix"`
	Kind   string `json:"kind,omitempty" jsonschema:"only memories of this kind"`
	Type   string `json:"type,omitempty" jsonschema:"memory (default), diary, or all"`
	All    bool   `json:"all,omitempty" jsonschema:"include forgotten and superseded entries"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many entries, newest first (default 50)"`
}

// MemoriesOutput lists durable entries.
type MemoriesOutput struct {
	Entries []durable.Item `json:"entries"`
	Total   int            `json:"total"` // entries that matched, before the limit
	Broken  []string       `json:"broken,omitempty"`
	Memory  Freshness      `json:"memory"`
}

func searchable(it durable.Item) string { return recall.Searchable(it) }

func (s *Server) memories(_ context.Context, _ *sdk.CallToolRequest, in MemoriesInput) (*sdk.CallToolResult, MemoriesOutput, error) {
	out := MemoriesOutput{Entries: []durable.Item{}}
	snap, err := s.current()
	if err != nil {
		return nil, out, err
	}
	items, bad, err := s.durableItems(snap)
	if err != nil {
		return nil, out, err
	}
	out.Broken = bad
	words := strings.Fields(strings.ToLower(in.Filter))
	typ := in.Type
	if typ == "" {
		typ = durable.TypeMemory
	}
	var match []durable.Item
	for _, it := range items {
		if it.Type == durable.TypeTombstone || typ != "all" && it.Type != typ {
			continue
		}
		if !in.All && it.Status != durable.StatusLive {
			continue
		}
		if in.Kind != "" && it.Kind != in.Kind {
			continue
		}
		text := searchable(it)
		ok := true
		for _, w := range words {
			if !strings.Contains(text, w) {
				ok = false
				break
			}
		}
		if ok {
			match = append(match, it)
		}
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].Created.After(match[j].Created) })
	out.Total = len(match)
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	if len(match) > limit {
		match = match[:limit]
	}
	out.Entries = append(out.Entries, match...)
	out.Memory = s.snapFreshness(snap)
	var b strings.Builder
	for _, it := range out.Entries {
		label := it.Kind
		if it.Type == durable.TypeDiary {
			label = "diary"
			if it.Subject != "" {
				label += " (" + it.Subject + ")"
			}
		}
		status := ""
		if it.Status != durable.StatusLive {
			status = " [" + it.Status + "]"
		}
		fmt.Fprintf(&b, "%s  %s  %s%s: %s\n", shortID(it.ID), it.Created.UTC().Format("2006-01-02"), label, status, oneLine(it.Text, 500))
		if len(it.Paths) > 0 {
			fmt.Fprintf(&b, "    paths: %s\n", strings.Join(it.Paths, ", "))
		}
	}
	switch {
	case out.Total == 0 && len(items) == 0:
		b.WriteString("No durable memories yet: save decisions, constraints and findings with remember, and a session summary with diary.\n")
	case out.Total == 0:
		b.WriteString("No entry matches.\n")
	case out.Total > len(out.Entries):
		fmt.Fprintf(&b, "(%d of %d shown)\n", len(out.Entries), out.Total)
	}
	return textResult(b.String()), out, nil
}

// ---- skills

// SkillsInput is the input of the skills tool.
type SkillsInput struct {
	Name string `json:"name,omitempty" jsonschema:"a skill's name to read it whole; empty lists the skills"`
}

// SkillInfo is a skill as listed.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Versions    int    `json:"versions"`
	Updated     string `json:"updated"`
}

// SkillsOutput is the list of skills, or one skill.
type SkillsOutput struct {
	Skills   []SkillInfo `json:"skills"`
	Skill    *SkillInfo  `json:"skill,omitempty"`
	Document string      `json:"document,omitempty"` // the SKILL.md of the skill asked for
}

func (s *Server) skills(_ context.Context, _ *sdk.CallToolRequest, in SkillsInput) (*sdk.CallToolResult, SkillsOutput, error) {
	out := SkillsOutput{Skills: []SkillInfo{}}
	snap, err := s.current()
	if err != nil {
		return nil, out, err
	}
	info := func(k durable.Skill) SkillInfo {
		return SkillInfo{Name: k.Name, Description: k.Description, Versions: k.Versions, Updated: k.Created.UTC().Format(time.RFC3339)}
	}
	if name := strings.TrimSpace(in.Name); name != "" {
		if err := durable.ValidSkillName(name); err != nil {
			return nil, out, err
		}
		k, err := durable.GetSkill(snap.repo, name)
		if errors.Is(err, durable.ErrNoSkill) {
			return nil, out, fmt.Errorf("no skill named %q: call skills without a name to list them", name)
		}
		if err != nil {
			return nil, out, err
		}
		si := info(k)
		out.Skill, out.Document = &si, k.Document()
		return textResult(out.Document), out, nil
	}
	list, err := durable.ListSkills(snap.repo)
	if err != nil {
		return nil, out, err
	}
	var b strings.Builder
	for _, k := range list {
		out.Skills = append(out.Skills, info(k))
		fmt.Fprintf(&b, "%s: %s\n", k.Name, oneLine(k.Description, 300))
	}
	if len(list) == 0 {
		b.WriteString("No skills saved for this repository (people add them with `git konteks skill add`).\n")
	} else {
		b.WriteString("(call skills with a name to read one)\n")
	}
	return textResult(b.String()), out, nil
}

// ---- status

// StatusOutput describes memory.
type StatusOutput struct {
	Repository  string         `json:"repository"`
	Memory      Freshness      `json:"memory"`
	Mode        string         `json:"mode,omitempty"` // mode of the last extraction
	Finished    string         `json:"finished,omitempty"`
	ToolVersion string         `json:"tool_version,omitempty"` // of the last extraction
	Files       int            `json:"files"`
	Sections    int            `json:"sections"`
	Skipped     map[string]int `json:"skipped,omitempty"`
	Memories    int            `json:"memories"` // live durable memories
	Diary       int            `json:"diary"`    // live diary entries
	Skills      int            `json:"skills"`
	Interrupted string         `json:"interrupted,omitempty"` // source commit of an extraction that did not finish
	Index       string         `json:"index"`                 // how the search index was opened, or "not open"
	Embedder    string         `json:"embedder"`              // query embedding model, or "none"
	Server      string         `json:"server_version"`
}

func (s *Server) status(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, StatusOutput, error) {
	out := StatusOutput{Server: s.version, Index: "not open", Embedder: "none"}
	snap, err := s.current()
	if err != nil {
		return nil, out, err
	}
	out.Repository = snap.repo.WorkTree
	if out.Repository == "" {
		out.Repository = snap.repo.GitDir
	}
	if snap.memErr != nil {
		return nil, out, fmt.Errorf("memory is unreadable: %v; run `git konteks extract --mode rebuild`, which recovers it", snap.memErr)
	}
	out.Memory = s.snapFreshness(snap)
	if m := snap.mem; m != nil && m.Derived() {
		mf := m.Manifest
		out.Mode, out.Finished, out.ToolVersion = mf.Mode, mf.Finished.UTC().Format(time.RFC3339), mf.ToolVersion
		out.Files, out.Sections, out.Skipped = mf.Totals.Included, mf.Totals.Sections, mf.Totals.Skipped
	}
	if items, _, err := s.durableItems(snap); err == nil {
		for _, it := range items {
			if it.Status != durable.StatusLive {
				continue
			}
			switch it.Type {
			case durable.TypeMemory:
				out.Memories++
			case durable.TypeDiary:
				out.Diary++
			}
		}
	}
	if snap.mem != nil {
		if list, err := durable.ListSkills(snap.repo); err == nil {
			out.Skills = len(list)
		}
	}
	if wip, _ := memref.Read(snap.repo, memory.WIPRef); wip != nil && wip.Manifest != nil && wip.Manifest.Partial != nil {
		out.Interrupted = wip.Manifest.Partial.Target
		out.Memory.Hint = "an extraction was interrupted: call refresh (or run `git konteks extract --mode resume`) to finish it"
	}
	s.smu.Lock()
	if s.emb != nil {
		out.Embedder = s.emb.Model()
	}
	if s.searcher != nil {
		out.Index = s.searcher.State().Index
		if s.served != out.Memory.MemoryCommit {
			out.Index += " (opens the new memory on the next recall)"
		}
	}
	s.smu.Unlock()

	var b strings.Builder
	fmt.Fprintf(&b, "repository: %s\n", out.Repository)
	if out.Memory.Exists {
		fmt.Fprintf(&b, "memory:     %s (%s extraction, %s)\n", short(out.Memory.MemoryCommit), out.Mode, out.Finished)
		fmt.Fprintf(&b, "files:      %d remembered, %d sections\n", out.Files, out.Sections)
	}
	fmt.Fprintf(&b, "durable:    %d memories, %d diary entries, %d skills\n", out.Memories, out.Diary, out.Skills)
	fmt.Fprintf(&b, "index:      %s; embedder %s\n", out.Index, out.Embedder)
	if out.Interrupted != "" {
		fmt.Fprintf(&b, "interrupted: an extraction of %s did not finish\n", short(out.Interrupted))
	}
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	if out.Memory.Hint != "" {
		fmt.Fprintf(&b, "hint: %s\n", out.Memory.Hint)
	}
	return textResult(b.String()), out, nil
}

// ---- refresh

// RefreshOutput reports a refresh.
type RefreshOutput struct {
	Commit       string    `json:"commit"`             // memory commit now
	Previous     string    `json:"previous,omitempty"` // memory commit before
	UpToDate     bool      `json:"up_to_date"`         // memory already described HEAD: nothing was written
	Mode         string    `json:"mode"`
	Reason       string    `json:"reason,omitempty"` // why the mode differs from the request
	SourceCommit string    `json:"source_commit"`
	Extracted    int       `json:"extracted"`
	Reused       int       `json:"reused"`
	Removed      int       `json:"removed"`
	Files        int       `json:"files"`
	Sections     int       `json:"sections"`
	ChangedFiles int       `json:"changed_files"` // records added, changed or removed
	Changed      []string  `json:"changed"`       // the first of them
	TookMS       int64     `json:"took_ms"`
	Memory       Freshness `json:"memory"`
}

const maxRefreshShown = 50

func (s *Server) refresh(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, RefreshOutput, error) {
	out := RefreshOutput{Changed: []string{}}
	repo, err := s.writeRepo()
	if err != nil {
		return nil, out, err
	}
	if _, err := repo.Resolve("HEAD"); err != nil {
		return nil, out, fmt.Errorf("HEAD has no commit yet: commit something first (memory describes commits): %v", err)
	}
	opt := extract.Options{ToolVersion: s.version}
	if r := newReporter(ctx, req); r != nil {
		r.send("extracting memory", 0, 0, 0)
		opt.Progress = func(p extract.Progress) { r.send(p.Stage, p.Done, p.Total, 500*time.Millisecond) }
		opt.Wait = func(holder string) { r.send("waiting for another extraction: "+holder, 0, 0, 0) }
	}
	t0 := time.Now()
	res, err := extract.Run(ctx, repo, opt)
	if err != nil {
		return nil, out, fmt.Errorf("refresh: %w", err)
	}
	m := res.Manifest
	out.Commit, out.UpToDate, out.Mode, out.Reason, out.SourceCommit = res.Commit.String(), res.UpToDate, m.Mode, m.Reason, m.SourceCommit
	if !res.Previous.IsZero() {
		out.Previous = res.Previous.String()
	}
	out.Files, out.Sections = m.Totals.Included, m.Totals.Sections
	if !res.UpToDate {
		out.Extracted, out.Reused, out.Removed = m.Run.Extracted, m.Run.Reused, m.Run.Removed
		var from gitstore.Hash
		if !res.Previous.IsZero() {
			if prev, err := memref.ReadCommit(repo, res.Previous); err == nil {
				from = prev.Tree
			}
		}
		if now, err := memref.ReadCommit(repo, res.Commit); err == nil {
			if changes, err := memref.DiffRecords(repo, from, now.Tree); err == nil {
				out.ChangedFiles = len(changes)
				for _, c := range changes {
					if len(out.Changed) == maxRefreshShown {
						break
					}
					out.Changed = append(out.Changed, c.Path)
				}
			}
		}
	}
	out.TookMS = time.Since(t0).Milliseconds()
	if snap, err := s.current(); err == nil {
		out.Memory = s.snapFreshness(snap)
	}
	var b strings.Builder
	switch {
	case res.UpToDate:
		fmt.Fprintf(&b, "memory already describes %s: nothing to do\n", short(m.SourceCommit))
	default:
		fmt.Fprintf(&b, "memory %s: %s extraction of %s in %d ms", short(out.Commit), m.Mode, short(m.SourceCommit), out.TookMS)
		if m.Reason != "" {
			fmt.Fprintf(&b, " (%s)", m.Reason)
		}
		fmt.Fprintf(&b, "\n%d files extracted, %d reused, %d removed; %d files and %d sections in memory\n", out.Extracted, out.Reused, out.Removed, out.Files, out.Sections)
		if out.ChangedFiles > 0 {
			fmt.Fprintf(&b, "changed records (%d): %s", out.ChangedFiles, strings.Join(out.Changed, ", "))
			if out.ChangedFiles > len(out.Changed) {
				b.WriteString(", …")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(out.Memory.Line())
	b.WriteString("\n")
	return textResult(b.String()), out, nil
}

// ---- helpers

func oneLine(s string, max int) string {
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

func shortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}
