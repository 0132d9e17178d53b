package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
	"github.com/konteks/git-konteks/share"
)

// pendingFile records that memory was asked to catch up; the runner
// removes it before each pass, so a request that arrives during a pass
// causes exactly one more pass (requests are coalesced).
const pendingFile = "pending"

// LogFile is the runner's log in the state dir; it is rotated at 1 MiB.
const LogFile = "log"

// Request records a request for memory to catch up with HEAD. It is all a
// hook does synchronously, besides starting the runner.
func Request(repo *gitstore.Repo, hook string) error {
	dir, err := repo.StateDir()
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), hook)
	return os.WriteFile(filepath.Join(dir, pendingFile), []byte(line), 0o644)
}

// Wanted reports whether a hook invocation should trigger a run:
// post-checkout only for branch switches (third argument "1").
func Wanted(hook string, args []string) bool {
	if hook == "post-checkout" {
		return len(args) >= 3 && args[2] == "1"
	}
	return true
}

// Serve runs passes while requests are pending, unless another runner
// holds the runner lock (then that runner will see the request). Each pass
// merges remote memory brought by a plain `git fetch`, then extracts the
// changes since memory's source commit. Errors are logged, never returned
// to git.
func Serve(repo *gitstore.Repo, toolVersion string) {
	dir, err := repo.StateDir()
	if err != nil {
		return
	}
	logw := openLog(dir)
	defer logw.Close()
	pending := filepath.Join(dir, pendingFile)
	for {
		lock, _, err := repo.TryLock("runner")
		if errors.Is(err, gitstore.ErrLocked) {
			return // the running runner will pick the request up
		}
		if err != nil {
			fmt.Fprintf(logw, "%s runner: %v\n", stamp(), err)
			return
		}
		for passes := 0; passes < 100; passes++ {
			if _, err := os.Stat(pending); err != nil {
				break
			}
			os.Remove(pending)
			fresh := pass(repo, toolVersion, logw)
			continueHistory(repo, pending, logw)
			// The first question after a commit should not pay for the
			// caches. They are warmed once the older history is recorded
			// (or a new request interrupted it), not before: each history
			// commit would otherwise have its signals decoded again. The
			// records the pass made are indexed as they are, not read back
			// (a blob's record is the same whatever memory did since).
			warm(repo, logw, fresh)
		}
		lock.Unlock()
		// A request may have landed between the last check and the unlock.
		if _, err := os.Stat(pending); err != nil {
			return
		}
	}
}

// pass merges remote memory and extracts; it returns the records the
// extraction made (extract.Result.Fresh), for the index update.
func pass(repo *gitstore.Repo, toolVersion string, logw io.Writer) map[gitstore.Hash]*memory.File {
	t0 := time.Now()
	outs, err := share.MergeTracking(repo)
	if err != nil {
		fmt.Fprintf(logw, "%s merge remote memory: %v\n", stamp(), err)
	}
	for _, o := range outs {
		if o.Result != share.UpToDate {
			fmt.Fprintf(logw, "%s merged memory from %s: %s\n", stamp(), o.Remote, o.Result)
		}
		for _, n := range o.Notes {
			fmt.Fprintf(logw, "%s note: %s\n", stamp(), n)
		}
	}
	if _, err := repo.Resolve("HEAD"); err != nil {
		return nil // nothing committed yet
	}
	if repo.GitDir != repo.CommonDir {
		// A linked worktree: memory (one per repository) follows the main
		// worktree's HEAD, so a commit on another branch here does not
		// move it under the other worktrees; `git konteks extract` run
		// here moves it on purpose.
		fmt.Fprintf(logw, "%s linked worktree %s: memory follows the main worktree; not extracted\n", stamp(), repo.GitDir)
		return nil
	}
	res, err := extract.Run(context.Background(), repo, extract.Options{ToolVersion: toolVersion})
	if err != nil {
		fmt.Fprintf(logw, "%s extract: %v\n", stamp(), err)
		return nil
	}
	if res.UpToDate {
		fmt.Fprintf(logw, "%s memory up to date with %.12s\n", stamp(), res.Manifest.SourceCommit)
	} else {
		m := res.Manifest
		fmt.Fprintf(logw, "%s %s extraction of %.12s: %d extracted, %d reused, %d removed in %s\n",
			stamp(), m.Mode, m.SourceCommit, m.Run.Extracted, m.Run.Reused, m.Run.Removed, time.Since(t0).Round(time.Millisecond))
	}
	return res.Fresh
}

// warm brings the caches recall reads up to date with memory.
func warm(repo *gitstore.Repo, logw io.Writer, fresh map[gitstore.Hash]*memory.File) {
	if w, err := recall.WarmFresh(context.Background(), repo, fresh); errors.Is(err, recall.ErrNoMemory) {
		return
	} else if err != nil {
		fmt.Fprintf(logw, "%s warm caches: %v\n", stamp(), err)
	} else {
		fmt.Fprintf(logw, "%s caches warmed (index %s, %d vectors of %q, history %v, graph %v) in %s\n", stamp(), w.Index, w.Vectors, w.Model, w.History, w.Graph, w.Took.Round(time.Millisecond))
	}
}

// continueHistory records the older history the first extraction left
// for later, one part per memory commit, until it is all recorded or a new
// request arrives (served first; the next pass continues).
func continueHistory(repo *gitstore.Repo, pending string, logw io.Writer) {
	if m, err := memref.Read(repo, memory.Ref); err != nil || !extract.HistoryPending(m) {
		return
	}
	t0 := time.Now()
	defer history.EndBackfill()
	for {
		if _, err := os.Stat(pending); err == nil {
			return
		}
		more, err := extract.ContinueHistory(context.Background(), repo, extract.Options{})
		if err != nil {
			fmt.Fprintf(logw, "%s history: %v\n", stamp(), err)
			return
		}
		if !more {
			break
		}
	}
	if m, err := memref.Read(repo, memory.Ref); err == nil && m != nil && m.Manifest.History != nil {
		fmt.Fprintf(logw, "%s older history recorded: %d commits in all, in %.2fs\n", stamp(), m.Manifest.History.Commits, time.Since(t0).Seconds())
	}
}

func stamp() string { return time.Now().Format("2006-01-02 15:04:05") }

// openLog opens the log for appending, rotating it past 1 MiB.
func openLog(dir string) io.WriteCloser {
	p := filepath.Join(dir, LogFile)
	if fi, err := os.Stat(p); err == nil && fi.Size() > 1<<20 {
		os.Rename(p, p+".1")
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nopCloser{io.Discard}
	}
	return f
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
