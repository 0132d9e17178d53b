package history

import (
	"context"
	"sync"

	"github.com/konteks/git-konteks/gitstore"
)

// A backStream is the walk Backfill records the older history from, kept
// open between its calls in one process (the background runner calls it
// chunk after chunk): each call takes its chunk where the previous one
// stopped. A walk started anew for each chunk skips every commit before
// it, and git parses each skipped commit again: on rails (99,429 commits,
// six chunks) that was some 300,000 commits parsed for nothing, a third
// of the runner's git CPU. A stream serves only the walk it was started
// for (the same source commit, bound and shallow boundary) at the
// position it stopped at; anything else, or a chunk that failed, starts
// a walk anew at the position, as before, so the records are the same
// whichever way a chunk was read.
type backStream struct {
	repo    *gitstore.Repo
	from    string
	limit   int
	shallow string
	next    int // position in the walk of the next commit it lists

	commits chan *gitstore.LogCommit
	err     error // the walk's error, set before commits is closed
	cancel  context.CancelFunc
}

// back holds the stream between Backfill calls; one at a time (a process
// backfills one repository).
var back struct {
	mu sync.Mutex
	s  *backStream
}

// backStarts counts the walks backStreams started (for the tests).
var backStarts int

// takeBackStream returns the stream of pd's walk positioned at pd.Next,
// taking it out of back (the caller owns it until putBackStream): the
// one kept there when it matches, else a new walk.
func takeBackStream(repo *gitstore.Repo, pd *BackWalk) *backStream {
	shallow := shallowKey(repo)
	back.mu.Lock()
	s := back.s
	back.s = nil
	back.mu.Unlock()
	if s != nil {
		if s.repo == repo && s.from == pd.From && s.limit == pd.Limit && s.shallow == shallow && s.next == pd.Next {
			return s
		}
		s.close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s = &backStream{repo: repo, from: pd.From, limit: pd.Limit, shallow: shallow, next: pd.Next,
		commits: make(chan *gitstore.LogCommit), cancel: cancel}
	opt := gitstore.LogOptions{Include: []gitstore.Hash{gitstore.ParseHash(pd.From)}, Skip: pd.Next, TreesOnly: true}
	if pd.Limit > 0 {
		opt.MaxCount = pd.Limit
	}
	back.mu.Lock()
	backStarts++
	back.mu.Unlock()
	go func() {
		s.err = repo.Log(ctx, opt, func(c *gitstore.LogCommit) error {
			select {
			case s.commits <- c:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(s.commits)
	}()
	return s
}

// putBackStream keeps s for the next Backfill call (nil: none).
func putBackStream(s *backStream) {
	back.mu.Lock()
	old := back.s
	back.s = s
	back.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// EndBackfill stops the walk Backfill keeps between its calls, if any:
// a caller that stops calling it for now (the runner, yielding to an
// extraction) lets git and what it holds go.
func EndBackfill() { putBackStream(nil) }

// take calls fn with the stream's next n commits (fewer at the walk's
// end) and returns the walk's error, if it ended in one.
func (s *backStream) take(ctx context.Context, n int, fn func(*gitstore.LogCommit) error) error {
	for i := 0; i < n; i++ {
		select {
		case c, ok := <-s.commits:
			if !ok {
				return s.err
			}
			s.next++
			if err := fn(c); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// close stops the walk; git is killed if it is still listing.
func (s *backStream) close() {
	s.cancel()
	for range s.commits { // let the walk's goroutine end
	}
}
