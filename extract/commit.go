package extract

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// maybeCheckpoint writes a checkpoint of a long run to refs/konteks-wip,
// so that `--mode resume` after a crash skips the files already done.
// refs/konteks itself is not touched until the run completes.
func (r *run) maybeCheckpoint() error {
	if r.sinceCk == 0 {
		return nil
	}
	if r.sinceCk < r.opt.CheckpointEvery && r.sinceCkSize < r.opt.CheckpointBytes {
		return nil
	}
	t0 := time.Now()
	defer r.stage("checkpoint", t0)
	root, err := r.editor.Write(r.writer)
	if err != nil {
		return err
	}
	// Flush now: the checkpoint's editor below reads the root back.
	if err := r.writer.Flush(); err != nil {
		return err
	}
	done := make(map[string]string, len(r.done))
	for _, d := range r.done {
		p, blob, _ := strings.Cut(d, "\x00")
		done[p] = blob
	}
	raw, err := json.Marshal(done)
	if err != nil {
		return err
	}
	doneBlob, err := r.writer.Blob(memory.Compress(raw))
	if err != nil {
		return err
	}
	base := ""
	if r.prev != nil {
		base = r.prev.Commit.String()
	}
	m := r.manifest()
	m.Partial = &manifest.Partial{Target: r.target.Hash.String(), Base: base, Mode: r.mode, Done: len(done)}
	mb, err := m.Encode()
	if err != nil {
		return err
	}
	mh, err := r.writer.Blob(mb)
	if err != nil {
		return err
	}
	ed := r.repo.NewTreeEditor(root)
	if err := ed.Set(memory.WIPDonePath, gitstore.ModeRegular, doneBlob); err != nil {
		return err
	}
	if err := ed.Set(memory.ManifestPath, gitstore.ModeRegular, mh); err != nil {
		return err
	}
	tree, err := ed.Write(r.writer)
	if err != nil {
		return err
	}
	var parents []gitstore.Hash
	if r.prev != nil {
		parents = append(parents, r.prev.Commit)
	}
	c, err := r.writer.Commit(gitstore.CommitSpec{
		Tree: tree, Parents: parents, Author: r.repo.Identity(),
		Message: fmt.Sprintf("konteks: checkpoint of %s extraction of %.12s (%d files done)\n", r.mode, r.target.Hash, len(done)),
	})
	if err != nil {
		return err
	}
	if err := r.writer.Flush(); err != nil {
		return err
	}
	old, err := r.repo.ReadRef(memory.WIPRef)
	if err != nil {
		return err
	}
	if err := r.repo.UpdateRef(memory.WIPRef, c, old, "konteks: checkpoint"); err != nil {
		return err
	}
	r.sinceCk, r.sinceCkSize = 0, 0
	r.checkpoints++
	killpoint.AfterCheckpoint(r.checkpoints)
	return nil
}

// dropFinishedCheckpoint deletes refs/konteks-wip when it is a checkpoint
// of the run that wrote the current memory (same start, same target): a
// run killed after moving refs/konteks and before deleting its checkpoint
// leaves one, which status and the MCP server would report as an
// interrupted run for as long as no other extraction completes.
func (r *run) dropFinishedCheckpoint() {
	if r.prev == nil || r.prev.Manifest == nil {
		return
	}
	wip, err := memref.Read(r.repo, memory.WIPRef)
	if err != nil || wip == nil || wip.Manifest == nil || wip.Manifest.Partial == nil {
		return
	}
	if wip.Manifest.Started.Equal(r.prev.Manifest.Started) && wip.Manifest.Partial.Target == r.prev.Manifest.SourceCommit {
		_ = r.repo.UpdateRef(memory.WIPRef, gitstore.ZeroHash, wip.Commit, "konteks: run complete")
	}
}

// manifest builds the manifest of the memory as it stands.
func (r *run) manifest() *manifest.Manifest {
	// A checkpoint's manifest is made while workers still count what
	// they read and redact.
	r.readMu.Lock()
	r.redactMu.Lock()
	stats := r.stats
	r.redactMu.Unlock()
	r.readMu.Unlock()
	m := &manifest.Manifest{
		Schema:         manifest.Schema,
		ToolVersion:    r.opt.ToolVersion,
		RecordVersion:  memory.RecordVersion,
		GateVersion:    GateVersion,
		SummaryVersion: SummaryVersion,
		Summarizer:     r.llm.name(),
		SourceCommit:   r.target.Hash.String(),
		SourceTree:     r.target.TreeHash.String(),
		Mode:           r.mode,
		Reason:         r.reason,
		Started:        r.started.UTC().Truncate(time.Millisecond),
		Finished:       time.Now().UTC().Truncate(time.Millisecond),
		Totals:         r.totals,
		Run:            stats,
		Timings:        r.timings,
		EmbedModel:     r.embedModel,
		History:        r.history,
	}
	if r.requested != "" && r.requested != r.mode {
		m.Requested = r.requested
	}
	if m.ToolVersion == "" {
		m.ToolVersion = "dev"
	}
	return m
}

// commit writes the final tree and commit and moves refs/konteks to it by
// compare-and-swap. Only after every object is written does the ref move,
// so a crash at any point leaves the previous memory intact.
func (r *run) commit() (*Result, error) {
	for _, st := range []struct {
		name string
		run  func() error
	}{
		{"media", r.mediaStage},
		{"summaries", r.summarizeDirs},
		{"map", func() error {
			if err := r.portrait(); err != nil {
				return err
			}
			return r.modules()
		}},
		{"embed", r.embedStage},
		{"history", func() error { return r.historyStage(r.ctx) }},
	} {
		t0 := r.begin(st.name)
		if err := st.run(); err != nil {
			return nil, err
		}
		r.stage(st.name, t0)
	}
	t0 := r.begin("write")
	if len(r.skipped) == 0 {
		if err := r.editor.Delete(memory.SkippedPath); err != nil {
			return nil, err
		}
	} else {
		raw, err := json.Marshal(r.skipped) // map keys are sorted: deterministic
		if err != nil {
			return nil, err
		}
		h, err := r.writer.Blob(memory.Compress(raw))
		if err != nil {
			return nil, err
		}
		if err := r.editor.Set(memory.SkippedPath, gitstore.ModeRegular, h); err != nil {
			return nil, err
		}
	}
	// The manifest is written last, with the write stage's time so far.
	r.stage("write", t0)
	m := r.manifest()
	mb, err := m.Encode()
	if err != nil {
		return nil, err
	}
	mh, err := r.writer.Blob(mb)
	if err != nil {
		return nil, err
	}
	if err := r.editor.Set(memory.ManifestPath, gitstore.ModeRegular, mh); err != nil {
		return nil, err
	}
	tree, err := r.editor.Write(r.writer)
	if err != nil {
		return nil, err
	}
	msg := commitMessage(m)
	// parent is the memory this run expects to replace (compare-and-swap);
	// the new commit's parents follow memref.Parents, so memory no remote
	// holds yet is replaced rather than stacked on.
	parent := gitstore.ZeroHash
	if r.prev != nil {
		parent = r.prev.Commit
	}
	var newCommit gitstore.Hash
	for attempt := 0; ; attempt++ {
		parents, err := memref.Parents(r.repo, parent)
		if err != nil {
			return nil, err
		}
		newCommit, err = r.writer.Commit(gitstore.CommitSpec{Tree: tree, Parents: parents, Author: r.repo.Identity(), Message: msg})
		if err != nil {
			return nil, err
		}
		if err := r.writer.Flush(); err != nil {
			return nil, err
		}
		killpoint.At("extract-written")
		err = r.repo.UpdateRef(memory.Ref, newCommit, parent, "konteks: "+m.Mode+" extraction")
		if err == nil {
			break
		}
		if !errors.Is(err, gitstore.ErrRefMoved) || attempt >= 4 {
			return nil, err
		}
		// Someone else (a `remember`, a merge) moved the ref while we ran.
		// Derived memory is ours; durable memory is theirs: take their
		// durable/ and commit on top of their commit.
		tip, rerr := r.repo.ReadRef(memory.Ref)
		if rerr != nil {
			return nil, rerr
		}
		if tree, err = r.graftDurable(tree, tip); err != nil {
			return nil, err
		}
		parent = tip
	}
	killpoint.At("extract-moved")
	if wip, _ := r.repo.ReadRef(memory.WIPRef); !wip.IsZero() {
		_ = r.repo.UpdateRef(memory.WIPRef, gitstore.ZeroHash, wip, "konteks: run complete")
	}
	r.stage("write", t0)
	prev := gitstore.ZeroHash
	if r.prev != nil {
		prev = r.prev.Commit
	}
	return &Result{Manifest: m, Commit: newCommit, Previous: prev, Fresh: r.fresh}, nil
}

// graftDurable returns tree with its durable/ replaced by the one in the
// memory commit tip.
func (r *run) graftDurable(tree, tip gitstore.Hash) (gitstore.Hash, error) {
	ed := r.repo.NewTreeEditor(tree)
	if err := ed.Delete(memory.DurableDir); err != nil {
		return gitstore.ZeroHash, err
	}
	if !tip.IsZero() {
		c, err := r.repo.Commit(tip)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		if h, isTree, ok, err := r.repo.Lookup(c.TreeHash, memory.DurableDir); err != nil {
			return gitstore.ZeroHash, err
		} else if ok && isTree {
			if err := ed.Set(memory.DurableDir, gitstore.ModeDir, h); err != nil {
				return gitstore.ZeroHash, err
			}
		}
	}
	return ed.Write(r.writer)
}

func commitMessage(m *manifest.Manifest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "konteks: %s extraction of %.12s\n\n", m.Mode, m.SourceCommit)
	fmt.Fprintf(&b, "Mode: %s\n", m.Mode)
	if m.Reason != "" {
		fmt.Fprintf(&b, "Reason: %s\n", m.Reason)
	}
	fmt.Fprintf(&b, "Source-Commit: %s\n", m.SourceCommit)
	fmt.Fprintf(&b, "Files: %d included, %d extracted, %d reused, %d removed\n",
		m.Totals.Included, m.Run.Extracted, m.Run.Reused, m.Run.Removed)
	fmt.Fprintf(&b, "Sections: %d\n", m.Totals.Sections)
	if len(m.Totals.Skipped) > 0 {
		keys := make([]string, 0, len(m.Totals.Skipped))
		for k := range m.Totals.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, m.Totals.Skipped[k])
		}
		fmt.Fprintf(&b, "Skipped: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "Tool: git-konteks %s\n", m.ToolVersion)
	return b.String()
}
