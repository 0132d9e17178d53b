package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
)

// Instructions tell the agent what the server is and when to use which
// tool; clients put them in the model's context.
const Instructions = `git konteks is this repository's memory, kept in git under refs/konteks: every committed file split into sections (functions, types, headings, config keys) with summaries, directory overviews, an import graph, and durable memories (decisions, constraints, preferences, a diary) that people and agents saved. Memory describes one commit; every answer ends with a "memory:" line saying which, and how far HEAD has moved.

When to use which tool:
- Starting a task: context with the task in your own words (a token-budgeted pack of the code that matters and the saved memories that bear on it), or recall for a ranked list of places (path:lines, name, summary). Prefer these over grepping blind.
- Orienting: overview (a directory's summary; no path for the whole repository), then skeleton (a code file's signatures), then show (a file's sections, or one section's text by anchor or symbol name).
- Dependencies: graph with a file path or symbol name: what it imports and defines, and which files import it.
- Before changing code: memories (filter by words; kind constraint or decision) for rules that apply; skills for saved instructions on recurring tasks.
- After work: remember each decision, constraint, preference or non-obvious finding a future session needs and cannot read from the code (a sentence or two with the why, naming paths and ` + "`symbols`" + `); diary what you did, found and left open; forget (or remember with supersedes) what no longer holds. Never save secrets.
- Evidence: recall and context label their answer strong, partial or weak. Trust strong; read partial hits as leads; on weak, or "no good match in memory", search the code yourself (or rephrase with the words the code would use) instead of reading the hits.
- Freshness: memory covers committed code only. When an answer says HEAD moved past memory and the changed files matter, call refresh (a changed extraction: cost follows the change), or read those files directly. status says where memory stands.

Memory points you to the right place; read the file itself before editing it. Prompts: warm-up (orientation for a new task), recall-before-change, save-after-work. Resources: konteks://project, konteks://dir/PATH, konteks://file/PATH, konteks://skill/NAME.`

// Prompt names.
const (
	PromptWarmUp             = "warm-up"
	PromptRecallBeforeChange = "recall-before-change"
	PromptSaveAfterWork      = "save-after-work"
)

// Prompts lists the prompt names.
var Prompts = []string{PromptWarmUp, PromptRecallBeforeChange, PromptSaveAfterWork}

func (s *Server) addPrompts() {
	s.srv.AddPrompt(&sdk.Prompt{
		Name:        PromptWarmUp,
		Title:       "Warm up on this repository",
		Description: "Orientation for a new task: the project in brief, its areas (or the ones relevant to the task), saved constraints and decisions, the recent diary, and how current memory is.",
		Arguments:   []*sdk.PromptArgument{{Name: "task", Description: "the task you are about to start (optional)"}},
	}, s.guardPrompt(s.warmUp))
	s.srv.AddPrompt(&sdk.Prompt{
		Name:        PromptRecallBeforeChange,
		Title:       "Recall before a change",
		Description: "Before editing: the places memory points to for a change, the saved memories that bear on it, and what to check.",
		Arguments:   []*sdk.PromptArgument{{Name: "change", Description: "the change you are about to make", Required: true}},
	}, s.guardPrompt(s.recallBeforeChange))
	s.srv.AddPrompt(&sdk.Prompt{
		Name:        PromptSaveAfterWork,
		Title:       "Save after work",
		Description: "After a piece of work: what to save as durable memories and diary, what to forget, and the memories already saved (so none is repeated).",
		Arguments:   []*sdk.PromptArgument{{Name: "summary", Description: "what was done (optional)"}},
	}, s.guardPrompt(s.saveAfterWork))
}

func (s *Server) guardPrompt(h func(context.Context, map[string]string) (string, string, error)) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (res *sdk.GetPromptResult, err error) {
		defer guard("prompt", &err)
		args := map[string]string{}
		if req != nil && req.Params != nil && req.Params.Arguments != nil {
			args = req.Params.Arguments
		}
		desc, text, err := h(ctx, args)
		if err != nil {
			return nil, err
		}
		return &sdk.GetPromptResult{
			Description: desc,
			Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}},
		}, nil
	}
}

func (s *Server) warmUp(ctx context.Context, args map[string]string) (string, string, error) {
	taskText := strings.TrimSpace(args["task"])
	snap, err := s.current()
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString("Warm up on this repository before starting")
	if taskText != "" {
		fmt.Fprintf(&b, " the task: %s", taskText)
	}
	b.WriteString(".\n\n")
	derived := snap.mem != nil && snap.mem.Derived()
	if !derived {
		b.WriteString("This repository has no extracted memory yet. Call the refresh tool to create it (seconds on a small repository), then call this prompt again or use context with the task.\n")
	} else {
		writeProject(&b, snap)
		if taskText != "" {
			var a *recall.Response
			err := s.withSearcher(ctx, nil, func(se *recall.Searcher, sn *snapshot, _ recall.MemoryState) error {
				var err error
				a, err = s.answer(ctx, se, sn, taskText, recall.AnswerOptions{Options: recall.Options{Limit: 8}, Memories: maxMemoryHits})
				return err
			})
			if err == nil && len(a.Hits) > 0 {
				b.WriteString("## Where the task probably lives\n\n")
				for _, h := range a.Hits {
					fmt.Fprintf(&b, "- %s:%d-%d %s — %s\n", h.Path, h.StartLine, h.EndLine, h.Name, recall.OneLine(h.Summary, 160))
				}
				b.WriteString("\n")
			}
			if err == nil && len(a.Memories) > 0 {
				writeMemoryHits(&b, a.Memories)
				b.WriteString("\n")
			}
		}
	}
	items, _, _ := s.durableItems(snap)
	writeRules(&b, items, 8)
	writeDiary(&b, items, 5)
	if list, err := durable.ListSkills(snap.repo); err == nil && len(list) > 0 && snap.mem != nil {
		b.WriteString("## Skills\n\n")
		for _, k := range list {
			fmt.Fprintf(&b, "- %s: %s\n", k.Name, recall.OneLine(k.Description, 200))
		}
		b.WriteString("\n")
	}
	f := s.snapFreshness(snap)
	b.WriteString(f.Line())
	b.WriteString("\n\n")
	b.WriteString("Next: ")
	if taskText != "" {
		b.WriteString("call context with the task for the code that matters, ")
	} else {
		b.WriteString("once you know the task, call context with it; ")
	}
	b.WriteString("use overview, skeleton and show to look closer, and check memories for constraints before changing code. When done, use the save-after-work prompt.\n")
	return "Orientation for a new task", b.String(), nil
}

// writeProject writes the project in brief and its areas.
func writeProject(b *strings.Builder, snap *snapshot) {
	if pr, err := memref.Project(snap.repo, snap.mem.Tree); err == nil {
		fmt.Fprintf(b, "## Project: %s\n\n", pr.Name)
		if pr.Description != "" {
			fmt.Fprintf(b, "%s\n\n", recall.OneLine(pr.Description, 400))
		}
		var langs []string
		for i, l := range pr.Languages {
			if i == 6 {
				break
			}
			langs = append(langs, fmt.Sprintf("%s %d%%", l.Language, l.Percent))
		}
		if len(langs) > 0 {
			fmt.Fprintf(b, "- languages: %s\n", strings.Join(langs, ", "))
		}
		if len(pr.Tech) > 0 {
			fmt.Fprintf(b, "- tech: %s\n", strings.Join(first(pr.Tech, 12), ", "))
		}
		if len(pr.EntryPoints) > 0 {
			fmt.Fprintf(b, "- entry points: %s\n", strings.Join(first(pr.EntryPoints, 10), ", "))
		}
		if len(pr.Scripts) > 0 {
			var names []string
			for _, sc := range pr.Scripts {
				names = append(names, sc.Name)
			}
			fmt.Fprintf(b, "- scripts: %s\n", strings.Join(first(names, 15), ", "))
		}
		b.WriteString("\n")
	}
	mods, err := memref.Modules(snap.repo, snap.mem.Tree)
	if err == nil && len(mods) > 0 {
		b.WriteString("## Areas\n\n")
		for i, m := range mods {
			if i == 15 {
				fmt.Fprintf(b, "- … and %d more (overview lists them)\n", len(mods)-i)
				break
			}
			name := m.Path
			if name == "" {
				name = "(root files)"
			}
			fmt.Fprintf(b, "- %s (%d files): %s\n", name, m.Files, recall.OneLine(m.Abstract, 200))
		}
		b.WriteString("\n")
	}
}

func first[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// writeRules lists the live constraints, decisions and preferences.
func writeRules(b *strings.Builder, items []durable.Item, n int) {
	var rules []durable.Item
	for _, it := range items {
		if it.Type == durable.TypeMemory && it.Status == durable.StatusLive &&
			(it.Kind == "constraint" || it.Kind == "decision" || it.Kind == "preference") {
			rules = append(rules, it)
		}
	}
	if len(rules) == 0 {
		return
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].Created.After(rules[j].Created) })
	b.WriteString("## Saved constraints and decisions\n\n")
	for i, it := range rules {
		if i == n {
			fmt.Fprintf(b, "- … %d more (memories lists them)\n", len(rules)-n)
			break
		}
		fmt.Fprintf(b, "- [%s %s] %s\n", it.Kind, recall.ShortID(it.ID), recall.OneLine(it.Text, 400))
	}
	b.WriteString("\n")
}

// writeDiary lists the latest diary entries.
func writeDiary(b *strings.Builder, items []durable.Item, n int) {
	var diary []durable.Item
	for _, it := range items {
		if it.Type == durable.TypeDiary && it.Status == durable.StatusLive {
			diary = append(diary, it)
		}
	}
	if len(diary) == 0 {
		return
	}
	sort.SliceStable(diary, func(i, j int) bool { return diary[i].Created.After(diary[j].Created) })
	b.WriteString("## Recent diary\n\n")
	for i, it := range diary {
		if i == n {
			break
		}
		subj := ""
		if it.Subject != "" {
			subj = " (" + it.Subject + ")"
		}
		fmt.Fprintf(b, "- %s%s: %s\n", it.Created.UTC().Format("2006-01-02"), subj, recall.OneLine(it.Text, 400))
	}
	b.WriteString("\n")
}

func (s *Server) recallBeforeChange(ctx context.Context, args map[string]string) (string, string, error) {
	change := strings.TrimSpace(args["change"])
	if change == "" {
		return "", "", errors.New("the change argument is required: describe the change you are about to make")
	}
	snap, err := s.current()
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Before making this change, recall what memory knows about it: %s\n\n", change)
	var hits []recall.Hit
	var mh []MemoryHit
	var fresh Freshness
	err = s.withSearcher(ctx, nil, func(se *recall.Searcher, sn *snapshot, st recall.MemoryState) error {
		a, err := s.answer(ctx, se, sn, change, recall.AnswerOptions{Options: recall.Options{Limit: 10}, Memories: 8})
		if err != nil {
			return err
		}
		hits, mh = a.Hits, a.Memories
		fresh = s.freshness(sn, st.Commit, st.SourceCommit)
		return nil
	})
	switch {
	case errors.Is(err, errNoMemory):
		b.WriteString("There is no memory yet: call the refresh tool first, then recall with the change.\n\n")
		fresh = s.snapFreshness(snap)
		mh = s.matchMemories(snap, change, nil, 8) // saved before any extraction
	case err != nil:
		fmt.Fprintf(&b, "Recall failed (%v); use the recall tool directly.\n\n", err)
		fresh = s.snapFreshness(snap)
	case len(hits) == 0:
		b.WriteString("Memory has no section that matches; try recall with other words, or overview.\n\n")
	default:
		b.WriteString("## Places memory points to\n\n")
		for _, h := range hits {
			fmt.Fprintf(&b, "- %s:%d-%d %s [%s] — %s\n", h.Path, h.StartLine, h.EndLine, h.Name, h.Anchor, recall.OneLine(h.Summary, 160))
		}
		b.WriteString("\n")
	}
	if len(mh) > 0 {
		b.WriteString(strings.TrimPrefix(recall.MemoriesMarkdown(mh), "\n"))
		b.WriteString("\n")
	}
	b.WriteString(fresh.Line())
	b.WriteString("\n\n")
	b.WriteString(`Before editing:
1. Read the places above (show with path and anchor, or the files themselves) and find what depends on them (graph with the file or symbol).
2. Follow the saved constraints and decisions. If one is wrong or outdated, say so, and after the change save the correction (remember with supersedes set to its id).
3. Look for an existing helper before writing a new one (recall with what it should do).
`)
	if !fresh.UpToDate && fresh.ChangedFiles > 0 {
		b.WriteString("4. Memory is behind HEAD for the changed files named above: call refresh, or read those files directly.\n")
	}
	return "What memory knows about a change", b.String(), nil
}

func (s *Server) saveAfterWork(_ context.Context, args map[string]string) (string, string, error) {
	summary := strings.TrimSpace(args["summary"])
	snap, err := s.current()
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString("You finished a piece of work")
	if summary != "" {
		fmt.Fprintf(&b, ": %s", summary)
	}
	b.WriteString(`. Save what the next session (yours or a colleague's agent) needs into this repository's memory, which travels with git:

1. For each decision taken (and why), constraint discovered, preference stated by the user, or non-obvious fact learned, call remember with the matching kind (decision, constraint, preference, insight, fact, note): one or two sentences with the reason, naming the paths and ` + "`symbols`" + ` involved. Save what the code and the git log do not already say. Never save credentials.
2. If a saved memory turned out wrong or outdated, call forget with its id and the reason, or remember its replacement with supersedes set to its id.
3. Call diary once: what you did, what you found, what is left open (subject: the task).
4. After committing the work, call refresh so memory describes the new commit.

`)
	items, _, _ := s.durableItems(snap)
	var live []durable.Item
	for _, it := range items {
		if it.Type == durable.TypeMemory && it.Status == durable.StatusLive {
			live = append(live, it)
		}
	}
	sort.SliceStable(live, func(i, j int) bool { return live[i].Created.After(live[j].Created) })
	if len(live) > 0 {
		b.WriteString("Memories already saved (do not repeat them; supersede one that changed):\n")
		for i, it := range live {
			if i == 20 {
				fmt.Fprintf(&b, "- … %d more (memories lists them)\n", len(live)-i)
				break
			}
			fmt.Fprintf(&b, "- [%s %s] %s\n", it.Kind, recall.ShortID(it.ID), recall.OneLine(it.Text, 200))
		}
		b.WriteString("\n")
	}
	b.WriteString(s.snapFreshness(snap).Line())
	b.WriteString("\n")
	return "What to save after a piece of work", b.String(), nil
}
