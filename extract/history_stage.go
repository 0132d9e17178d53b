package extract

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// historyStage brings the history memory (history/ in the memory tree) up
// to the run's source commit: it records the commits the source reaches
// that no earlier run recorded (history.Update). A first walk records
// recent history only; ContinueHistory records the rest. A rebuild starts
// from an empty tree, so it rewalks the whole history: that is what
// recovers a corrupt or hostile history.
func (r *run) historyStage(ctx context.Context) error {
	cfg, err := history.ReadConfig(r.repo)
	if err != nil {
		return err
	}
	var prog history.Progress
	if r.opt.Progress != nil {
		prog = func(done, total int) { r.progress("history", done, total) }
	}
	res, err := history.Update(ctx, r.repo, r.editor, r.writer, r.target.Hash, cfg, prog)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if res.Enabled {
		r.history = historyCounts(res)
	}
	return nil
}

func historyCounts(res *history.Result) *manifest.History {
	return &manifest.History{Commits: res.Total, New: res.New, Segments: res.Segments, Pending: res.Pending, Oldest: res.Oldest}
}

// HistoryPending reports whether the memory a ref points at has older
// history still to record (ContinueHistory records it).
func HistoryPending(m *Memory) bool {
	return m != nil && m.Manifest != nil && m.Manifest.History != nil && m.Manifest.History.Pending
}

// ContinueHistory records the next part of the old history the first
// extraction left for later (history.Backfill: a few segments), as one
// more memory commit, and reports whether more remains. It is what the
// background runner does between extractions; an interrupted call leaves
// memory as it was, and the next call does the same part again.
func ContinueHistory(ctx context.Context, repo *gitstore.Repo, opt Options) (more bool, err error) {
	lock, holder, err := repo.TryLock("extract")
	if err != nil {
		if errors.Is(err, gitstore.ErrLocked) {
			return true, fmt.Errorf("another extraction is running (%s)", holder)
		}
		return true, err
	}
	defer lock.Unlock()
	prev, err := memref.Read(repo, memory.Ref)
	if err != nil {
		return false, err
	}
	if !HistoryPending(prev) {
		return false, nil
	}
	cfg, err := history.ReadConfig(repo)
	if err != nil {
		return false, err
	}
	t0 := time.Now()
	ed := repo.NewTreeEditor(prev.Tree)
	w := repo.NewWriter()
	var prog history.Progress
	if opt.Progress != nil {
		prog = func(done, total int) { opt.Progress(Progress{Stage: "history", Done: done, Total: total}) }
	}
	res, err := history.Backfill(ctx, repo, ed, w, cfg, prog)
	if err != nil {
		return true, fmt.Errorf("history: %w", err)
	}
	m := *prev.Manifest
	m.History = historyCounts(res)
	m.History.New = res.New
	m.Timings = map[string]float64{"history": float64(time.Since(t0).Microseconds()) / 1000}
	m.Started = t0.UTC().Truncate(time.Millisecond)
	m.Finished = time.Now().UTC().Truncate(time.Millisecond)
	mb, err := m.Encode()
	if err != nil {
		return true, err
	}
	mh, err := w.Blob(mb)
	if err != nil {
		return true, err
	}
	if err := ed.Set(memory.ManifestPath, gitstore.ModeRegular, mh); err != nil {
		return true, err
	}
	tree, err := ed.Write(w)
	if err != nil {
		return true, err
	}
	msg := fmt.Sprintf("konteks: history of %.12s recorded back to %s (%d commits)", m.SourceCommit, time.Unix(res.Oldest, 0).UTC().Format("2006-01-02"), res.Total)
	c, err := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{prev.Commit}, Author: repo.Identity(), Message: msg})
	if err != nil {
		return true, err
	}
	if err := w.Flush(); err != nil {
		return true, err
	}
	// Compare-and-swap: if the ref moved meanwhile (a remember, a merge),
	// this part is recorded again on top of it by the next call.
	if err := repo.UpdateRef(memory.Ref, c, prev.Commit, "konteks: history"); err != nil {
		if errors.Is(err, gitstore.ErrRefMoved) {
			return true, nil
		}
		return true, err
	}
	return res.Pending, nil
}
