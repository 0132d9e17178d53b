package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
)

// Tools that browse memory: a directory's overview, a file's signatures
// and sections, the graph of an entity.

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
	return endWithMemory(&b, out.Memory), out, nil
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

// record reads the record of a path from the memory the server
// answers from, or explains why there is none.
func (s *Server) record(arg string) (*snapshot, string, *memory.File, error) {
	snap, err := s.derived()
	if err != nil {
		return nil, "", nil, err
	}
	p, f, err := s.recordIn(snap, arg)
	return snap, p, f, err
}

// recordIn reads the record of a path in snap, or explains why there is
// none.
func (s *Server) recordIn(snap *snapshot, arg string) (string, *memory.File, error) {
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
	if reason, ok := skipped[memref.SkipKey(p)]; ok {
		return "", nil, fmt.Errorf("%s is not in memory: skipped by the gate (%s); read the file itself", p, reason)
	}
	if _, isTree, ok, _ := snap.repo.Lookup(snap.mem.Tree, memory.DirSummaryPath(p)); ok && !isTree {
		return "", nil, fmt.Errorf("%s is a directory: call overview with it", p)
	}
	return "", nil, fmt.Errorf("%s is not in memory: no such file in commit %s (if it is new, commit it and call refresh; recall finds files by what they do)", p, short(snap.mem.Manifest.SourceCommit))
}

func (s *Server) skeleton(_ context.Context, _ *sdk.CallToolRequest, in PathInput) (*sdk.CallToolResult, SkeletonOutput, error) {
	var out SkeletonOutput
	snap, p, f, err := s.record(in.Path)
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
	snap, p, f, err := s.record(in.Path)
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
			fmt.Fprintf(&b, "%s\n", recall.OneLine(f.Abstract, 300))
		}
		for _, sec := range out.Sections {
			fmt.Fprintf(&b, "  %5d-%-5d %-10s %s  [%s]\n", sec.StartLine, sec.EndLine, sec.Symbol, sec.Name, sec.Anchor)
		}
		b.WriteString("(pass an anchor to read one section)\n\n")
	}
	return endWithMemory(&b, out.Memory), out, nil
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
	return endWithMemory(&b, out.Memory), out, nil
}
