package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
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
	Task    string   `json:"task" jsonschema:"the task or question, in your own words"`
	Limit   int      `json:"limit,omitempty" jsonschema:"number of sections (default 10)"`
	PerFile int      `json:"per_file,omitempty" jsonschema:"most sections of one file (default 1; with files, sections shown per file, default 3)"`
	Mode    string   `json:"mode,omitempty" jsonschema:"ranking: hybrid (default), lexical or vector"`
	Files   bool     `json:"files,omitempty" jsonschema:"answer with files instead of sections: each ranked by its best section, with its best sections and why it is there (limit counts files)"`
	Path    []string `json:"path,omitempty" jsonschema:"only paths matching these globs (*, **, ?; a glob without a slash matches a name at any depth); a glob starting with ! excludes"`
	Tests   string   `json:"tests,omitempty" jsonschema:"test code: include (default), exclude or only"`
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
		a, err := s.answer(ctx, se, sn, q, recall.AnswerOptions{Options: recall.Options{Limit: min(limit, maxLimit), PerFile: min(max(in.PerFile, 0), maxLimit), Mode: in.Mode, Paths: in.Path, Tests: in.Tests},
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
			if sum := recall.OneLine(h.Summary, 160); sum != "" && sum != h.Name {
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
		if sum := recall.OneLine(h.Summary, 200); sum != "" {
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
			fmt.Fprintf(b, "- [skill %s] %s (call skills with name %q to read it)\n", m.Subject, recall.OneLine(m.Text, 400), m.Subject)
			continue
		}
		label := m.Kind
		if m.Type == durable.TypeDiary {
			label = "diary"
		}
		fmt.Fprintf(b, "- [%s %s] %s", label, recall.ShortID(m.ID), recall.OneLine(m.Text, 400))
		if n := m.Note(); n != "" {
			b.WriteString(" " + n)
		}
		b.WriteByte('\n')
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
		p, err := se.Context(ctx, q, recall.PackOptions{Budget: budget, Memories: maxMemoryHits, Matcher: s.matcher(sn)})
		if err != nil {
			return err
		}
		out = ContextOutput{Task: q, Evidence: p.Evidence, Budget: p.Budget, Tokens: p.Tokens, Markdown: p.Markdown, Sections: p.Sections, Memories: p.Memories, Notes: notes(p.Notes, s.embNote)}
		if out.Sections == nil {
			out.Sections = []recall.PackSection{}
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
	b.WriteString("\n")
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return endWithMemory(&b, out.Memory), out, nil
}
