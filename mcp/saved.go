package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/recall"
)

// Tools over saved entries: remember, diary and forget write them;
// memories and skills list and read them.

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
	durable.Annotate(repo, &e)
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
		label := it.Label()
		status := ""
		if it.Status != durable.StatusLive {
			status = " [" + it.Status + "]"
		}
		fmt.Fprintf(&b, "%s  %s  %s%s: %s\n", recall.ShortID(it.ID), it.Created.UTC().Format("2006-01-02"), label, status, recall.OneLine(it.Text, 500))
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
		fmt.Fprintf(&b, "%s: %s\n", k.Name, recall.OneLine(k.Description, 300))
	}
	if len(list) == 0 {
		b.WriteString("No skills saved for this repository (people add them with `git konteks skill add`).\n")
	} else {
		b.WriteString("(call skills with a name to read one)\n")
	}
	return textResult(b.String()), out, nil
}
