package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress of long calls. A call whose client gave a progress token hears
// of the work it waits for: an extraction's stages (refresh), and a cold
// build of the search index (recall, context and the prompts that search)
// whether the call started the build or waits behind one the server
// started in the background. Without a token nothing is sent.

// reporter sends the progress notifications of one call.
type reporter struct {
	ctx  context.Context
	ss   *sdk.ServerSession
	tok  any
	mu   sync.Mutex
	n    float64
	last time.Time
}

// newReporter returns the reporter of a call, or nil when its client
// asked for no progress.
func newReporter(ctx context.Context, req *sdk.CallToolRequest) *reporter {
	if req == nil || req.Session == nil || req.Params == nil || req.Params.GetProgressToken() == nil {
		return nil
	}
	return &reporter{ctx: ctx, ss: req.Session, tok: req.Params.GetProgressToken()}
}

// send sends one notification; done and total, when total > 0, are the
// units of the current stage done and to do, shown in the message.
// Progress counts the notifications (the protocol wants it to increase,
// and a stage's count starts again at zero). Notifications closer than
// every (0: none) to the previous one are dropped.
func (r *reporter) send(msg string, done, total int, every time.Duration) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if every > 0 && time.Since(r.last) < every {
		r.mu.Unlock()
		return
	}
	r.last = time.Now()
	r.n++
	if total > 0 {
		msg = fmt.Sprintf("%s: %d of %d", msg, done, total)
	}
	p := &sdk.ProgressNotificationParams{ProgressToken: r.tok, Message: msg, Progress: r.n}
	r.mu.Unlock()
	_ = r.ss.NotifyProgress(r.ctx, p)
}

// buildState is the cold index build under way, if any.
type buildState struct {
	active    bool
	records   int
	since     time.Time
	reporters map[*reporter]bool
}

// noteBuild records that a cold build of n records started (done false)
// or that opening the index ended (done true), and tells the waiting
// calls.
func (s *Server) noteBuild(n int, done bool) {
	s.bmu.Lock()
	was := s.build.active
	s.build.active = !done
	if !done {
		s.build.records, s.build.since = n, time.Now()
	}
	var rs []*reporter
	for r := range s.build.reporters {
		rs = append(rs, r)
	}
	s.bmu.Unlock()
	for _, r := range rs {
		switch {
		case !done:
			r.send(fmt.Sprintf("building the search index: %d files (the first question after a clone, a fetch or a large change; later ones update it in milliseconds)", n), 0, 0, 0)
		case was:
			r.send("search index ready", 0, 0, 0)
		}
	}
}

// reportBuild makes the call of req hear of a cold index build while it
// waits (until the returned stop is called).
func (s *Server) reportBuild(ctx context.Context, req *sdk.CallToolRequest) (stop func()) {
	r := newReporter(ctx, req)
	if r == nil {
		return func() {}
	}
	s.bmu.Lock()
	if s.build.reporters == nil {
		s.build.reporters = map[*reporter]bool{}
	}
	s.build.reporters[r] = true
	active, n, since := s.build.active, s.build.records, s.build.since
	s.bmu.Unlock()
	if active {
		r.send(fmt.Sprintf("waiting for the search index to be built: %d files, %.0f s so far", n, time.Since(since).Seconds()), 0, 0, 0)
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			s.bmu.Lock()
			active, n, since := s.build.active, s.build.records, s.build.since
			s.bmu.Unlock()
			if active {
				r.send(fmt.Sprintf("building the search index: %d files, %.0f s so far", n, time.Since(since).Seconds()), 0, 0, 0)
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		s.bmu.Lock()
		delete(s.build.reporters, r)
		s.bmu.Unlock()
	}
}
