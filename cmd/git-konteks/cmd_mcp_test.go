package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/agent"
	"github.com/konteks/git-konteks/mcp"
)

// mcpClient starts `git-konteks mcp` in dir as a subprocess and connects
// the SDK's own client to it over stdio.
func mcpClient(t *testing.T, dir string) *sdk.ClientSession {
	t.Helper()
	return startMCP(t, dir, []string{"mcp"}, nil)
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// callMCP calls a tool and returns its text; out, when not nil, receives
// the structured output. A tool error fails the test.
func callMCP(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	text, isErr := tryMCP(t, cs, name, args, out)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", name, args, text)
	}
	return text
}

// tryMCP calls a tool and returns its text and whether it is a tool error.
func tryMCP(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) (string, bool) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError && out != nil {
		if res.StructuredContent == nil {
			t.Fatalf("%s: no structured content", name)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode structured content: %v\n%s", name, err, b)
		}
	}
	return text.String(), res.IsError
}

// TestMCPServer drives the real binary as an agent would: handshake, tool
// and prompt lists, every tool before and after memory exists, saving and
// finding memories, bad arguments, concurrent calls, and a refresh after a
// commit.
func TestMCPServer(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	head := r.Git("rev-parse", "HEAD")
	cs := mcpClient(t, r.Dir)
	ctx := context.Background()

	// Handshake: name, version, instructions, capabilities.
	init := cs.InitializeResult()
	if init.ServerInfo.Name != mcp.Name || init.ServerInfo.Version == "" {
		t.Fatalf("server info %+v", init.ServerInfo)
	}
	if !strings.Contains(init.Instructions, "recall") || !strings.Contains(init.Instructions, "refresh") {
		t.Fatalf("instructions do not say when to use the tools:\n%s", init.Instructions)
	}
	if init.Capabilities.Tools == nil || init.Capabilities.Prompts == nil {
		t.Fatalf("capabilities %+v", init.Capabilities)
	}

	// Every tool, with input and output schemas.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("tool %s lacks a description or a schema", tl.Name)
		}
	}
	slices.Sort(names)
	want := slices.Clone(mcp.Tools)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pnames []string
	for _, p := range prompts.Prompts {
		pnames = append(pnames, p.Name)
	}
	slices.Sort(pnames)
	if !slices.Equal(pnames, []string{"recall-before-change", "save-after-work", "warm-up"}) {
		t.Fatalf("prompts %v", pnames)
	}

	// No memory yet: tools say how to create it.
	for tool, args := range map[string]map[string]any{
		mcp.ToolRecall: {"task": "store"}, mcp.ToolContext: {"task": "store"}, mcp.ToolOverview: {},
		mcp.ToolShow: {"path": "internal/store/store.go"}, mcp.ToolSkeleton: {"path": "internal/store/store.go"}, mcp.ToolGraph: {"name": "Store"},
	} {
		text, isErr := tryMCP(t, cs, tool, args, nil)
		if !isErr || !strings.Contains(text, "refresh") || !strings.Contains(text, "git konteks extract") {
			t.Errorf("%s without memory: error %v, %q", tool, isErr, text)
		}
	}
	var st mcp.StatusOutput
	text := callMCP(t, cs, mcp.ToolStatus, nil, &st)
	if st.Memory.Exists || !strings.Contains(st.Memory.Hint, "refresh") || !strings.Contains(text, "none yet") {
		t.Fatalf("status without memory: %+v\n%s", st, text)
	}
	wp := getPrompt(t, cs, "warm-up", nil)
	if !strings.Contains(wp, "no extracted memory yet") {
		t.Fatalf("warm-up without memory:\n%s", wp)
	}

	// A memory saved before the first extraction survives it.
	var early mcp.SaveOutput
	callMCP(t, cs, mcp.ToolRemember, map[string]any{
		"text": "Values stay in process memory on purpose: the store is a cache, `Store.Get` must never touch disk.",
		"kind": "constraint", "tags": []string{"store"},
	}, &early)
	if !early.Saved || early.Entry.Kind != "constraint" || !slices.Contains(early.Entry.Symbols, "Store.Get") {
		t.Fatalf("remember before memory: %+v", early)
	}

	// refresh creates memory.
	var rf mcp.RefreshOutput
	text = callMCP(t, cs, mcp.ToolRefresh, nil, &rf)
	if rf.Mode != "full" || rf.SourceCommit != head || rf.Files < 8 || rf.ChangedFiles != rf.Files || !rf.Memory.UpToDate {
		t.Fatalf("first refresh: %+v\n%s", rf, text)
	}

	// recall: the store's Get, with freshness, and the saved constraint.
	var rc mcp.RecallOutput
	text = callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "get the value stored for a key", "limit": 5}, &rc)
	if len(rc.Hits) == 0 || len(rc.Hits) > 5 || rc.Hits[0].Path != "internal/store/store.go" {
		t.Fatalf("recall hits %+v\n%s", rc.Hits, text)
	}
	if !rc.Memory.UpToDate || rc.Memory.SourceCommit != head || rc.Memory.Index == "" {
		t.Fatalf("recall freshness %+v", rc.Memory)
	}
	if !strings.Contains(text, "internal/store/store.go:") || !strings.Contains(text, "memory: describes commit "+head[:12]+" (HEAD)") {
		t.Fatalf("recall text:\n%s", text)
	}
	if len(rc.Memories) == 0 || rc.Memories[0].ID != early.Entry.ID {
		t.Fatalf("recall does not bring the saved constraint: %+v", rc.Memories)
	}

	// context: a pack within budget.
	var cx mcp.ContextOutput
	text = callMCP(t, cs, mcp.ToolContext, map[string]any{"task": "add a Delete method to the store", "budget": 800}, &cx)
	if cx.Budget != 800 || cx.Tokens > 900 || !strings.Contains(cx.Markdown, "internal/store/store.go") || len(cx.Sections) == 0 {
		t.Fatalf("context %+v\n%s", cx, text)
	}
	if !strings.Contains(text, "Saved memories") || !strings.Contains(text, "memory: describes commit") {
		t.Fatalf("context text:\n%s", text)
	}

	// overview: root and a directory; a file and a missing directory are errors that say what to do.
	var ov mcp.OverviewOutput
	callMCP(t, cs, mcp.ToolOverview, nil, &ov)
	if ov.Path != "" || ov.L1 == "" || len(ov.Children) == 0 {
		t.Fatalf("root overview %+v", ov)
	}
	callMCP(t, cs, mcp.ToolOverview, map[string]any{"path": "internal/store/"}, &ov)
	if ov.Path != "internal/store" || ov.L0 == "" {
		t.Fatalf("overview internal/store %+v", ov)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolOverview, map[string]any{"path": "internal/store/store.go"}, nil); !isErr || !strings.Contains(text, "is a file") {
		t.Fatalf("overview of a file: %v %q", isErr, text)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolOverview, map[string]any{"path": "no/such/dir"}, nil); !isErr || !strings.Contains(text, "no summary") {
		t.Fatalf("overview of a missing dir: %v %q", isErr, text)
	}

	// skeleton.
	var sk mcp.SkeletonOutput
	callMCP(t, cs, mcp.ToolSkeleton, map[string]any{"path": "internal/store/store.go"}, &sk)
	if sk.Language != "Go" || !strings.Contains(sk.Skeleton, "Get(key string)") {
		t.Fatalf("skeleton %+v", sk)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolSkeleton, map[string]any{"path": "docs/guide.md"}, nil); !isErr || !strings.Contains(text, "show") {
		t.Fatalf("skeleton of markdown: %v %q", isErr, text)
	}

	// show: the section list, one section by anchor and by name, bad anchors and paths.
	var sh mcp.ShowOutput
	callMCP(t, cs, mcp.ToolShow, map[string]any{"path": "internal/store/store.go"}, &sh)
	if sh.Kind != "code" || len(sh.Sections) < 4 || sh.Content != "" {
		t.Fatalf("show %+v", sh)
	}
	var getAnchor string
	for _, s := range sh.Sections {
		if s.Name == "Store.Get" {
			getAnchor = s.Anchor
		}
	}
	if getAnchor == "" {
		t.Fatalf("no Store.Get section in %+v", sh.Sections)
	}
	for _, a := range []string{getAnchor, "Store.Get"} {
		var one mcp.ShowOutput
		text := callMCP(t, cs, mcp.ToolShow, map[string]any{"path": "internal/store/store.go", "anchor": a}, &one)
		if one.Section == nil || one.Section.Anchor != getAnchor || !strings.Contains(one.Content, "s.data[key]") || !strings.Contains(text, "```go") {
			t.Fatalf("show anchor %q: %+v\n%s", a, one, text)
		}
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolShow, map[string]any{"path": "internal/store/store.go", "anchor": "Nope"}, nil); !isErr || !strings.Contains(text, getAnchor) {
		t.Fatalf("show bad anchor: %v %q", isErr, text)
	}
	for _, p := range []string{"../../etc/passwd", "missing.go", "internal/store"} {
		if text, isErr := tryMCP(t, cs, mcp.ToolShow, map[string]any{"path": p}, nil); !isErr || text == "" {
			t.Fatalf("show %s: %v %q", p, isErr, text)
		}
	}

	// graph.
	var gr mcp.GraphOutput
	callMCP(t, cs, mcp.ToolGraph, map[string]any{"name": "internal/store/store.go"}, &gr)
	if len(gr.Nodes) == 0 || gr.Nodes[0].Entity.ID != "file:internal/store/store.go" {
		t.Fatalf("graph %+v", gr)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolGraph, map[string]any{"name": "NoSuchThing"}, nil); !isErr || !strings.Contains(text, "no entity") {
		t.Fatalf("graph of nothing: %v %q", isErr, text)
	}

	// remember, then find it with recall; a duplicate writes nothing.
	var saved mcp.SaveOutput
	note := "Deploys go through scripts/deploy.sh only: it tags the release before uploading the quokka artefact."
	callMCP(t, cs, mcp.ToolRemember, map[string]any{"text": note, "kind": "decision", "tags": []string{"release"}}, &saved)
	if !saved.Saved || !slices.Contains(saved.Entry.Paths, "scripts/deploy.sh") || saved.Memory.SourceCommit != head {
		t.Fatalf("remember: %+v", saved)
	}
	var dup mcp.SaveOutput
	callMCP(t, cs, mcp.ToolRemember, map[string]any{"text": note, "kind": "decision"}, &dup)
	if dup.Saved || !dup.Duplicate || dup.Entry.ID != saved.Entry.ID {
		t.Fatalf("duplicate remember: %+v", dup)
	}
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "how is a release deployed"}, &rc)
	if len(rc.Memories) == 0 || rc.Memories[0].ID != saved.Entry.ID {
		t.Fatalf("recall does not find the new memory: %+v", rc.Memories)
	}
	// Saving moved refs/konteks; recall reopened on the new memory commit.
	if rc.Memory.MemoryCommit != r.Git("rev-parse", "refs/konteks") {
		t.Fatalf("recall answers from %s, refs/konteks is %s", rc.Memory.MemoryCommit, r.Git("rev-parse", "refs/konteks"))
	}

	// diary and memories.
	var di mcp.SaveOutput
	callMCP(t, cs, mcp.ToolDiary, map[string]any{"entry": "Mapped the store and the deploy script; the YAML config is not validated yet.", "subject": "session 1"}, &di)
	if !di.Saved || di.Entry.Type != "diary" {
		t.Fatalf("diary %+v", di)
	}
	var ms mcp.MemoriesOutput
	callMCP(t, cs, mcp.ToolMemories, nil, &ms)
	if ms.Total != 2 {
		t.Fatalf("memories: %+v", ms)
	}
	callMCP(t, cs, mcp.ToolMemories, map[string]any{"filter": "quokka tags"}, &ms)
	if ms.Total != 1 || ms.Entries[0].ID != saved.Entry.ID {
		t.Fatalf("memories filter: %+v", ms)
	}
	callMCP(t, cs, mcp.ToolMemories, map[string]any{"type": "diary"}, &ms)
	if ms.Total != 1 || ms.Entries[0].ID != di.Entry.ID {
		t.Fatalf("memories diary: %+v", ms)
	}
	if _, isErr := tryMCP(t, cs, mcp.ToolMemories, map[string]any{"kind": "gossip"}, nil); !isErr {
		t.Fatal("memories with an unknown kind is not an error")
	}

	// forget: gone from the live list, kept with --all.
	var fg mcp.ForgetOutput
	callMCP(t, cs, mcp.ToolForget, map[string]any{"id": saved.Entry.ID[:8], "reason": "deploys moved to CI"}, &fg)
	if fg.Forgotten != saved.Entry.ID || fg.Tombstone == "" {
		t.Fatalf("forget %+v", fg)
	}
	callMCP(t, cs, mcp.ToolMemories, map[string]any{"filter": "quokka"}, &ms)
	if ms.Total != 0 {
		t.Fatalf("forgotten memory still listed: %+v", ms)
	}
	callMCP(t, cs, mcp.ToolMemories, map[string]any{"filter": "quokka", "all": true}, &ms)
	if ms.Total != 1 || ms.Entries[0].Status != "forgotten" {
		t.Fatalf("memories --all: %+v", ms)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolForget, map[string]any{"id": "12", "reason": "x"}, nil); !isErr || !strings.Contains(text, "too short") {
		t.Fatalf("forget with a short id: %v %q", isErr, text)
	}

	// skills: none, then one added from the command line.
	var sk2 mcp.SkillsOutput
	callMCP(t, cs, mcp.ToolSkills, nil, &sk2)
	if len(sk2.Skills) != 0 {
		t.Fatalf("skills: %+v", sk2)
	}
	skill := filepath.Join(t.TempDir(), "SKILL.md")
	os.WriteFile(skill, []byte("---\nname: deploy\ndescription: Release the app with scripts/deploy.sh\n---\n\n# Deploy\n\nRun scripts/deploy.sh from a clean tree.\n"), 0o644)
	run(t, r.Dir, "skill", "add", skill)
	callMCP(t, cs, mcp.ToolSkills, nil, &sk2)
	if len(sk2.Skills) != 1 || sk2.Skills[0].Name != "deploy" {
		t.Fatalf("skills after add: %+v", sk2)
	}
	text = callMCP(t, cs, mcp.ToolSkills, map[string]any{"name": "deploy"}, &sk2)
	if sk2.Skill == nil || !strings.Contains(sk2.Document, "Run scripts/deploy.sh") || !strings.Contains(text, "name: deploy") {
		t.Fatalf("skill deploy: %+v\n%s", sk2, text)
	}
	if text, isErr := tryMCP(t, cs, mcp.ToolSkills, map[string]any{"name": "nope"}, nil); !isErr || !strings.Contains(text, "no skill") {
		t.Fatalf("missing skill: %v %q", isErr, text)
	}

	// Prompts.
	wp = getPrompt(t, cs, "warm-up", map[string]string{"task": "make the store persistent"})
	for _, w := range []string{"## Project", "## Areas", "internal/store/store.go", "Store.Get` must never touch disk", "session 1", "memory: describes commit"} {
		if !strings.Contains(wp, w) {
			t.Errorf("warm-up lacks %q:\n%s", w, wp)
		}
	}
	rb := getPrompt(t, cs, "recall-before-change", map[string]string{"change": "let Get read values from disk"})
	if !strings.Contains(rb, "internal/store/store.go") || !strings.Contains(rb, "must never touch disk") {
		t.Errorf("recall-before-change:\n%s", rb)
	}
	sa := getPrompt(t, cs, "save-after-work", map[string]string{"summary": "added Delete"})
	if !strings.Contains(sa, "remember") || !strings.Contains(sa, "diary") || !strings.Contains(sa, "must never touch disk") {
		t.Errorf("save-after-work:\n%s", sa)
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "recall-before-change"}); err == nil {
		t.Error("recall-before-change without its argument is not an error")
	}

	// Bad arguments are tool errors; the server keeps serving.
	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolRecall, map[string]any{"task": "   "}},
		{mcp.ToolRecall, map[string]any{}},
		{mcp.ToolRecall, map[string]any{"task": "x", "limit": -3}},
		{mcp.ToolRecall, map[string]any{"task": 42}},
		{mcp.ToolRecall, map[string]any{"task": strings.Repeat("find the thing ", 400)}},
		{mcp.ToolContext, map[string]any{"task": "x", "budget": 5}},
		{mcp.ToolRemember, map[string]any{"text": "ok", "kind": "decision"}},
		{mcp.ToolRemember, map[string]any{"text": "a perfectly fine sentence here", "kind": "gossip"}},
		{mcp.ToolRemember, map[string]any{"text": "the key is AKIAZ7XQ4PLMNB2WS3ED for the bucket", "kind": "fact"}},
		{mcp.ToolRemember, map[string]any{"text": "a perfectly fine sentence about paths", "paths": []string{"../x"}}},
		{mcp.ToolDiary, map[string]any{"entry": ""}},
		{mcp.ToolForget, map[string]any{"id": "99999999", "reason": "nope"}},
		{mcp.ToolShow, map[string]any{"path": ""}},
		{mcp.ToolShow, map[string]any{"path": "a\x00b"}},
		{mcp.ToolSkills, map[string]any{"name": "Not A Name"}},
	} {
		if text, isErr := tryMCP(t, cs, bad.tool, bad.args, nil); !isErr || text == "" {
			t.Errorf("%s %v: error %v, %q", bad.tool, bad.args, isErr, text)
		}
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no-such-tool"}); err == nil {
		t.Error("an unknown tool is not an error")
	}

	// Concurrent calls are safe and all answered.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calls := []struct {
				tool string
				args map[string]any
			}{
				{mcp.ToolRecall, map[string]any{"task": fmt.Sprintf("store value %d", i)}},
				{mcp.ToolShow, map[string]any{"path": "internal/store/store.go"}},
				{mcp.ToolStatus, nil},
				{mcp.ToolContext, map[string]any{"task": "configure the app", "budget": 400}},
			}
			c := calls[i%len(calls)]
			args := c.args
			if args == nil {
				args = map[string]any{}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: args})
			switch {
			case err != nil:
				errs <- fmt.Errorf("%s: %v", c.tool, err)
			case res.IsError:
				errs <- fmt.Errorf("%s: tool error %v", c.tool, res.Content)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// A commit moves HEAD past memory: answers say so; refresh catches up.
	r.Write("internal/store/evict.go", "package store\n\n// EvictQuokka drops the least recently used quokka entry.\nfunc (s *Store) EvictQuokka() {}\n")
	head2 := r.Commit("evict quokkas")
	text = callMCP(t, cs, mcp.ToolStatus, nil, &st)
	if st.Memory.UpToDate || !st.Memory.HeadAhead || st.Memory.CommitsAhead != 1 || st.Memory.ChangedFiles != 1 ||
		!slices.Equal(st.Memory.Changed, []string{"internal/store/evict.go"}) || !strings.Contains(st.Memory.Hint, "refresh") {
		t.Fatalf("status after a commit: %+v", st.Memory)
	}
	if !strings.Contains(text, "1 commit ahead") || !strings.Contains(text, "call refresh") {
		t.Fatalf("status text after a commit:\n%s", text)
	}
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "evict entries"}, &rc)
	if rc.Memory.UpToDate || rc.Memory.CommitsAhead != 1 {
		t.Fatalf("recall freshness after a commit: %+v", rc.Memory)
	}
	text = callMCP(t, cs, mcp.ToolRefresh, nil, &rf)
	if rf.Mode != "changed" || rf.SourceCommit != head2 || rf.Extracted != 1 || !slices.Contains(rf.Changed, "internal/store/evict.go") || !rf.Memory.UpToDate {
		t.Fatalf("refresh after a commit: %+v\n%s", rf, text)
	}
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "evict the least recently used quokka"}, &rc)
	if len(rc.Hits) == 0 || rc.Hits[0].Path != "internal/store/evict.go" || !rc.Memory.UpToDate || rc.Memory.SourceCommit != head2 {
		t.Fatalf("recall after refresh: %+v %+v", rc.Hits, rc.Memory)
	}
	callMCP(t, cs, mcp.ToolRefresh, nil, &rf)
	if !rf.UpToDate {
		t.Fatalf("second refresh did something: %+v", rf)
	}

	// Memory moved by another process (the CLI) is picked up too.
	run(t, r.Dir, "remember", "--kind", "fact", "The quokka cache is sized for ten thousand entries.")
	callMCP(t, cs, mcp.ToolRecall, map[string]any{"task": "quokka cache size"}, &rc)
	if len(rc.Memories) == 0 || !strings.Contains(rc.Memories[0].Text, "ten thousand") {
		t.Fatalf("memory saved by the CLI not recalled: %+v", rc.Memories)
	}
}

func getPrompt(t *testing.T, cs *sdk.ClientSession, name string, args map[string]string) string {
	t.Helper()
	res, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("prompt %s: %v", name, err)
	}
	var b strings.Builder
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPConfig prints and writes each client's configuration, keeping
// what the files already hold.
func TestMCPConfig(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	codexHome := t.TempDir()
	home := t.TempDir()
	env := []string{"CODEX_HOME=" + codexHome, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	for _, client := range agent.Names() {
		out, _, err := tryRun(r.Dir, env, "mcp", "config", "--client", client)
		if err != nil {
			t.Fatalf("config %s: %v", client, err)
		}
		var entry struct {
			Type    string   `json:"type" toml:"type"`
			Command string   `json:"command" toml:"command"`
			Args    []string `json:"args" toml:"args"`
		}
		switch client {
		case "codex":
			var doc struct {
				Servers map[string]*struct {
					Command string   `toml:"command"`
					Args    []string `toml:"args"`
				} `toml:"mcp_servers"`
			}
			if err := toml.Unmarshal([]byte(out), &doc); err != nil || doc.Servers[mcp.Name] == nil {
				t.Fatalf("codex snippet: %v\n%s", err, out)
			}
			entry.Command, entry.Args = doc.Servers[mcp.Name].Command, doc.Servers[mcp.Name].Args
		default:
			var doc map[string]map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%s snippet: %v\n%s", client, err, out)
			}
			key := map[string]string{"vscode": "servers", "zed": "context_servers", "opencode": "mcp"}[client]
			if key == "" {
				key = "mcpServers"
			}
			if client == "opencode" {
				// OpenCode takes the command and its arguments as one array.
				var oc struct{ Command []string }
				if err := json.Unmarshal(doc[key][mcp.Name], &oc); err != nil || len(oc.Command) == 0 {
					t.Fatalf("%s snippet: %v\n%s", client, err, out)
				}
				entry.Command, entry.Args = oc.Command[0], oc.Command[1:]
			} else if err := json.Unmarshal(doc[key][mcp.Name], &entry); err != nil {
				t.Fatalf("%s snippet: %v\n%s", client, err, out)
			}
		}
		if !filepath.IsAbs(entry.Command) || !slices.Equal(entry.Args, []string{"-C", r.Dir, "mcp"}) {
			t.Fatalf("%s entry: %+v", client, entry)
		}
		if client == "jetbrains" {
			// Its MCP servers live in its settings dialog: printed only.
			if _, _, err := tryRun(r.Dir, env, "mcp", "config", "--client", client, "--write"); err == nil {
				t.Fatal("jetbrains --write succeeded without a file to write")
			}
			continue
		}
		// --json says where, what, and whether it wrote.
		out, _, err = tryRun(r.Dir, env, "mcp", "config", "--client", client, "--write", "--json")
		var rep struct {
			Client, File, Snippet, Command string
			Args                           []string
			Written, Changed, Project      bool
		}
		if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.Client != client || !rep.Written || !rep.Changed ||
			!strings.Contains(rep.Snippet, mcp.Name) || rep.Command != entry.Command {
			t.Fatalf("%s --json: %v\n%s", client, err, out)
		}
		if b, err := os.ReadFile(rep.File); err != nil || !strings.Contains(string(b), mcp.Name) {
			t.Fatalf("%s: %s not written: %v", client, rep.File, err)
		}
		if rep.Project != strings.HasPrefix(rep.File, r.Dir) {
			t.Fatalf("%s: project %v for %s", client, rep.Project, rep.File)
		}
	}
	for _, f := range []string{".mcp.json", ".cursor", ".vscode", ".gemini", ".kiro", "opencode.json"} {
		os.RemoveAll(filepath.Join(r.Dir, f))
	}

	// --write merges into existing files.
	r.Write(".mcp.json", `{"mcpServers": {"other": {"command": "other-server"}}, "note": "kept"}`)
	out := run(t, r.Dir, "mcp", "config", "--client", "claude", "--write")
	if !strings.Contains(out, "wrote") {
		t.Fatalf("claude --write: %s", out)
	}
	var doc map[string]any
	b, _ := os.ReadFile(filepath.Join(r.Dir, ".mcp.json"))
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	servers := doc["mcpServers"].(map[string]any)
	if servers["other"] == nil || servers[mcp.Name] == nil || doc["note"] != "kept" {
		t.Fatalf(".mcp.json after --write:\n%s", b)
	}
	if out := run(t, r.Dir, "mcp", "config", "--client", "claude", "--write"); !strings.Contains(out, "already") {
		t.Fatalf("second --write: %s", out)
	}
	for client, file := range map[string]string{"cursor": ".cursor/mcp.json", "vscode": ".vscode/mcp.json"} {
		run(t, r.Dir, "mcp", "config", "--client", client, "--write")
		if b, err := os.ReadFile(filepath.Join(r.Dir, file)); err != nil || !strings.Contains(string(b), mcp.Name) {
			t.Fatalf("%s: %v %s", file, err, b)
		}
	}
	// VS Code's file is JSONC: comments and trailing commas are kept.
	r.Write(".vscode/mcp.json", "{\n  // my servers\n  \"servers\": {\n    \"a\": {\"command\": \"a\"}, /* first */\n  },\n}\n")
	run(t, r.Dir, "mcp", "config", "--client", "vscode", "--write")
	if b, _ := os.ReadFile(filepath.Join(r.Dir, ".vscode/mcp.json")); !strings.Contains(string(b), "// my servers") ||
		!strings.Contains(string(b), "/* first */") || !strings.Contains(string(b), `"type": "stdio"`) {
		t.Fatalf("JSONC --write:\n%s", b)
	}
	r.Write(".vscode/mcp.json", "{not json")
	if _, errOut, err := tryRun(r.Dir, nil, "mcp", "config", "--client", "vscode", "--write"); err == nil || !strings.Contains(errOut, "not valid JSON") {
		t.Fatalf("--write over broken JSON: %v %s", err, errOut)
	}

	// Codex: the user's config.toml keeps its other tables and keys.
	cfg := filepath.Join(codexHome, "config.toml")
	os.WriteFile(cfg, []byte("model = \"o3\"\n\n[mcp_servers.git-konteks]\ncommand = \"old\"\nargs = [\n  \"x\",\n]\nstartup_timeout_sec = 20\n\n[mcp_servers.git-konteks.env]\nFOO = \"bar\"\n\n[other]\nx = 1\n"), 0o644)
	if _, errOut, err := tryRun(r.Dir, env, "mcp", "config", "--client", "codex", "--write"); err != nil {
		t.Fatalf("codex --write: %v %s", err, errOut)
	}
	b, _ = os.ReadFile(cfg)
	var cd struct {
		Model   string `toml:"model"`
		Servers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			Timeout int               `toml:"startup_timeout_sec"`
			Env     map[string]string `toml:"env"`
		} `toml:"mcp_servers"`
		Other map[string]int `toml:"other"`
	}
	if err := toml.Unmarshal(b, &cd); err != nil {
		t.Fatalf("config.toml after --write: %v\n%s", err, b)
	}
	g := cd.Servers[mcp.Name]
	if cd.Model != "o3" || g.Command == "old" || len(g.Args) != 3 || g.Timeout != 20 || g.Env["FOO"] != "bar" || cd.Other["x"] != 1 {
		t.Fatalf("config.toml after --write:\n%s", b)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "mcp", "config", "--client", "emacs"); err == nil || !strings.Contains(errOut, "unknown client") {
		t.Fatalf("unknown client: %v %s", err, errOut)
	}
}
