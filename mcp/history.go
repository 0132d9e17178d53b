package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/history"
)

// Tools over the history memory (history/): why and history.
const (
	ToolWhy     = "why"
	ToolHistory = "history"
)

func (s *Server) addHistoryTools() {
	addTool(s, &sdk.Tool{
		Name: ToolWhy,
		Description: "The commits that shaped a file, a symbol or lines, most relevant first, with their messages: blame made semantic " +
			"(follows renames, skips formatting-only commits). target is PATH, PATH:LINE, PATH:START-END or PATH#ANCHOR (an anchor " +
			"or symbol name from show). Use it before changing code whose reason is not obvious.",
		Annotations: readOnly("Why"),
	}, func(in *jsonschema.Schema) {
		in.Required = []string{"target"}
		prop(in, "limit", bounds(1, maxLimit))
	}, s.why)
	addTool(s, &sdk.Tool{
		Name: ToolHistory,
		Description: "Past commits whose messages match a question, with the files each touched: where and how something was changed " +
			"before (a similar fix, when a feature came in, what a past refactor moved).",
		Annotations: readOnly("History"),
	}, func(in *jsonschema.Schema) {
		in.Required = []string{"question"}
		prop(in, "limit", bounds(1, maxLimit))
	}, s.history)
}

// WhyInput is the input of the why tool.
type WhyInput struct {
	Target string `json:"target" jsonschema:"PATH, PATH:LINE, PATH:START-END or PATH#ANCHOR"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most commits (default 10)"`
}

// WhyOutput is the answer of the why tool.
type WhyOutput struct {
	history.WhyResult
	Memory Freshness `json:"memory"`
}

func (s *Server) why(_ context.Context, _ *sdk.CallToolRequest, in WhyInput) (*sdk.CallToolResult, WhyOutput, error) {
	var out WhyOutput
	t, err := history.ParseTarget(strings.TrimSpace(in.Target))
	if err != nil {
		return nil, out, fmt.Errorf("target %q: %v (want PATH, PATH:LINE, PATH:START-END or PATH#ANCHOR)", in.Target, err)
	}
	snap, err := s.derived()
	if err != nil {
		return nil, out, err
	}
	// Blame runs git at most for the call's own lifetime.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := history.Why(ctx, snap.repo, snap.mem, t, min(max(in.Limit, 0), maxLimit))
	if err != nil {
		return nil, out, err
	}
	r, f := s.historyResult(snap, res)
	out.WhyResult, out.Memory = *res, f
	return r, out, nil
}

// HistoryInput is the input of the history tool.
type HistoryInput struct {
	Question string `json:"question" jsonschema:"what was changed, in your own words"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most commits (default 10)"`
}

// HistoryOutput is the answer of the history tool.
type HistoryOutput struct {
	history.SearchResult
	Memory Freshness `json:"memory"`
}

func (s *Server) history(_ context.Context, _ *sdk.CallToolRequest, in HistoryInput) (*sdk.CallToolResult, HistoryOutput, error) {
	var out HistoryOutput
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return nil, out, fmt.Errorf("question is empty: say what was changed, e.g. \"retry on timeout\"")
	}
	snap, err := s.derived()
	if err != nil {
		return nil, out, err
	}
	res, err := history.Ask(snap.repo, snap.mem, q, min(max(in.Limit, 0), maxLimit), 20)
	if err != nil {
		return nil, out, err
	}
	r, f := s.historyResult(snap, res)
	out.SearchResult, out.Memory = *res, f
	return r, out, nil
}

// historyResult ends an answer of why or history: its commits linked to
// the agent sessions that made them, so the tools name the task behind a
// change as the command line's do, and its text followed by memory's
// freshness.
func (s *Server) historyResult(snap *snapshot, a history.Answer) (*sdk.CallToolResult, Freshness) {
	if items, _, err := s.durableItems(snap); err == nil {
		history.LinkSessions(durable.SessionLinks(items), a)
	}
	f := s.freshness(snap, snap.mem.Commit.String(), snap.mem.Manifest.SourceCommit)
	return textResult(a.Text() + "\n" + f.Line() + "\n"), f
}
