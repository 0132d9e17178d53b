package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Tools over the state of memory: status says where it stands, refresh
// brings it up to date.

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
	if res.Fresh != nil {
		// The next search's index update takes the records just made
		// as they are (index.Options.Fresh).
		s.smu.Lock()
		s.made = res.Fresh
		s.smu.Unlock()
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
	return endWithMemory(&b, out.Memory), out, nil
}
