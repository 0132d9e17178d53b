// Package mcp serves a repository's memory to coding agents over the Model
// Context Protocol: tools to recall, orient, read records and the graph,
// save and forget durable memories, and refresh memory; prompts for the
// moments an agent should use them; and server instructions saying when to
// use which tool.
//
// The server is long-lived. It keeps the repository, the search index and
// the embedder open, so a call costs what recall costs in-process, and it
// follows refs/konteks: when memory moves (an extraction, a saved memory,
// a merge from a peer) the next call answers from the new memory commit.
// Every answer carries its freshness — which source commit memory
// describes and how far HEAD has moved — and tools say how to create
// memory when there is none.
//
// Concurrency: the SDK runs calls concurrently. Reads share one
// gitstore.Repo (reopened when refs or HEAD move, so objects written by
// other processes are visible); one recall.Searcher serves recall and
// context under a mutex (it is not safe for concurrent use); writes
// (remember, diary, forget) and refresh each open their own Repo, so
// go-git's object storage is never written and read from two goroutines;
// extractions are serialised by extract's own lock.
//
// Files by role: server.go holds the server and its shared state;
// era.go, http.go and roots.go the transports and protocol eras;
// tools.go the registration of tools with argument checking, and the
// recall family (recall, context) with its renderers; browse.go
// (overview, skeleton, show, graph), saved.go (remember, diary, forget,
// memories, skills), state.go (status, refresh) and history.go (why,
// history) the other families; resources.go, prompts.go, fresh.go and
// progress.go what their names say. Agents' configuration files are
// written by package agent, not here.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
	"github.com/konteks/git-konteks/share"
)

// Name is the server's name in the MCP handshake and in client
// configurations.
const Name = "git-konteks"

// Options configure a Server.
type Options struct {
	// Dir is a directory inside the repository ("" for the current one).
	// A Dir given explicitly (--repo, -C) is served whatever roots the
	// client announces; without one the server follows the client's roots
	// and falls back to the current directory.
	Dir string
	// DirErr, when set, is why Dir could not be entered (-C at a missing
	// directory): every tool answers with it instead of the server
	// exiting.
	DirErr error
	// ToolVersion is the git-konteks version: reported to clients and
	// recorded by refresh in the manifest.
	ToolVersion string
	// Embedder embeds queries; nil uses the one configured for the
	// repository (git config konteks.embed.*).
	Embedder embed.Embedder
	// NoEmbedder turns vector search off (lexical recall only).
	NoEmbedder bool
}

// Server is an MCP server over one repository's memory.
type Server struct {
	version string
	srv     *sdk.Server
	// explicit is set when the repository was named (--repo, -C): the
	// client's roots are then not followed.
	explicit bool

	// rmu guards dir, dirErr and rootsWait.
	rmu    sync.Mutex
	dir    string // absolute directory the repository is looked for in
	dirErr error
	// rootsWait is closed once the client's roots have been asked for
	// (nil when there is nothing to wait for).
	rootsWait chan struct{}

	// The query embedder: given (optEmb, optNoEmb) or configured for the
	// repository (embFor is the git directory it was configured for).
	optEmb   embed.Embedder
	optNoEmb bool
	emb      embed.Embedder
	noEmb    bool
	embNote  string
	embFor   string

	// bg is the context of background work (warming, watching the ref).
	bg     context.Context
	stopBG context.CancelFunc

	// build is the cold index build under way (guarded by bmu).
	bmu   sync.Mutex
	build buildState

	// syncmu serialises syncResources.
	syncmu sync.Mutex
	// submu guards subs, the number of subscriptions to each resource URI,
	// and listed, the resource URIs registered with the SDK.
	submu  sync.Mutex
	subs   map[string]int
	listed map[string]bool
	// watched is the memory commit resources were last synced to.
	watched gitstore.Hash

	// mu guards the shared read repository (nil until a repository is
	// found) and the snapshot of refs.
	mu   sync.Mutex
	repo *gitstore.Repo
	snap *snapshot

	// smu guards the searcher and every use of it.
	smu       sync.Mutex
	searcher  *recall.Searcher
	retryOpen time.Time // when a searcher that lags memory may be reopened
	// served is the memory commit the searcher answers for: the one it
	// was opened on, or a later one that differs only in durable entries;
	// servedTree is its tree (zero while the index lags memory).
	served     string
	servedTree gitstore.Hash
	closed     bool
	// made are the records the last refresh made (extract.Result.Fresh),
	// for the next index update; taken by it.
	made map[gitstore.Hash]*memory.File

	// cmu guards the caches below, keyed by the commits they describe.
	cmu   sync.Mutex
	fresh map[[2]gitstore.Hash]distance
	dur   durableCache
}

// snapshot is what one call reads: a repository that sees the objects
// refs/konteks and HEAD name, and the memory commit.
type snapshot struct {
	repo   *gitstore.Repo
	ref    gitstore.Hash  // refs/konteks as read (zero: no memory)
	mem    *memref.Memory // nil when there is no memory
	memErr error          // memory exists but cannot be read
	head   gitstore.Hash  // HEAD commit (zero: unborn)
}

// New builds the server for the repository containing opt.Dir. It never
// fails on its environment: outside a repository, or in one without
// memory, it serves, and each tool says what to do. The search index is
// opened in the background, so the first recall is fast.
func New(ctx context.Context, opt Options) (*Server, error) {
	dir := opt.Dir
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	version := opt.ToolVersion
	if version == "" {
		version = "dev"
	}
	s := &Server{dir: dir, dirErr: opt.DirErr, explicit: opt.Dir != "", version: version, optNoEmb: opt.NoEmbedder, optEmb: opt.Embedder,
		fresh: map[[2]gitstore.Hash]distance{}, subs: map[string]int{}}
	s.srv = sdk.NewServer(&sdk.Implementation{
		Name:    Name,
		Title:   "git konteks — repository memory",
		Version: version,
	}, &sdk.ServerOptions{
		Instructions: Instructions,
		// No logging capability: the server logs nothing to the client.
		Capabilities:            &sdk.ServerCapabilities{Resources: &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true}},
		InitializedHandler:      s.initialized,
		RootsListChangedHandler: s.rootsChanged,
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      s.unsubscribe,
	})
	s.srv.AddReceivingMiddleware(s.rootsMiddleware, s.listMiddleware)
	s.addTools()
	s.addPrompts()
	s.addResources()
	s.bg, s.stopBG = context.WithCancel(context.WithoutCancel(ctx))
	go s.warm(s.bg)
	go s.watch(s.bg)
	return s, nil
}

// warm opens the index for the repository found now, rather than on the
// first recall; failing (no repository, no memory yet) is not an error,
// the tools say so.
func (s *Server) warm(ctx context.Context) {
	s.waitRoots()
	_ = s.withSearcher(ctx, nil, func(*recall.Searcher, *snapshot, recall.MemoryState) error { return nil })
	s.syncResources(ctx)
}

// MCP is the SDK server, to connect to any transport.
func (s *Server) MCP() *sdk.Server { return s.srv }

// Run serves one client over t (for `git konteks mcp`, stdio) until the
// client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// Close stops the server's background work and releases the index.
func (s *Server) Close() error {
	if s.stopBG != nil {
		s.stopBG()
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	s.closed = true
	if s.searcher != nil {
		err := s.searcher.Close()
		s.searcher = nil
		return err
	}
	return nil
}

// warm loads go-git's lazily built state (the pack index list, the check
// for an incoming-objects directory) once, before the repository is shared
// by concurrent readers: go-git initialises it without a lock.
func warmRepo(r *gitstore.Repo) {
	r.HasObject(gitstore.ZeroHash)
}

// current returns the snapshot to read from. When refs/konteks or HEAD has
// moved since the last call it opens the repository afresh: the new
// objects may be in packs another process wrote, which an open go-git
// storage does not see (it lists packs once).
func (s *Server) current() (*snapshot, error) {
	s.waitRoots()
	dir, dirErr := s.where()
	if dirErr != nil {
		return nil, dirErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo == nil {
		r, err := openRepo(dir)
		if err != nil {
			return nil, err
		}
		s.repo = r
	}
	share.CatchUp(s.repo) // memory a plain `git fetch` brought; errors leave memory as it was
	ref, err := s.repo.ReadRef(memory.Ref)
	if err != nil {
		return nil, err
	}
	head, _ := s.repo.ReadRef("HEAD") // zero on an unborn branch
	if s.snap != nil && s.snap.ref == ref && s.snap.head == head {
		return s.snap, nil
	}
	repo := s.repo
	if s.snap != nil {
		r, err := openRepo(dir)
		if err != nil {
			return nil, err
		}
		repo = r
	}
	snap := &snapshot{repo: repo, ref: ref, head: head}
	if !ref.IsZero() {
		snap.mem, snap.memErr = memref.Read(repo, memory.Ref)
		if snap.mem != nil {
			snap.ref = snap.mem.Commit
		}
		if snap.memErr != nil {
			snap.mem = nil
		}
	}
	s.repo, s.snap = repo, snap
	return snap, nil
}

// openRepo opens the repository containing dir, or says in words that
// there is none and how to point the server at one.
func openRepo(dir string) (*gitstore.Repo, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("not a git repository: %s does not exist — open a repository in your editor or pass --repo DIR to `git konteks mcp`", dir)
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("not a git repository: %s — open a repository in your editor (the server follows the client's roots) or pass --repo DIR to `git konteks mcp` (%v)", dir, err)
	}
	warmRepo(r)
	return r, nil
}

// where is the directory the repository is looked for in, or why there
// is none.
func (s *Server) where() (string, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.dir, s.dirErr
}

// errNoMemory says how to create memory; tools that need derived memory
// return it when there is none.
var errNoMemory = errors.New("no memory yet — call refresh or run `git konteks extract` to create it; it takes a few seconds on a small repository, minutes on a very large one")

// errEmptyRepo is errNoMemory for a repository without a commit.
var errEmptyRepo = errors.New("no memory yet, and this repository has no commit — commit the files, then call refresh or run `git konteks extract`")

// derived returns the snapshot when it holds extracted memory, or an error
// that says what to do.
func (s *Server) derived() (*snapshot, error) {
	snap, err := s.current()
	if err != nil {
		return nil, err
	}
	if snap.memErr != nil {
		return nil, fmt.Errorf("%w; call refresh after `git konteks extract --mode rebuild`, which recovers it", snap.memErr)
	}
	if snap.mem == nil || !snap.mem.Derived() {
		if snap.head.IsZero() {
			return nil, errEmptyRepo
		}
		return nil, errNoMemory
	}
	return snap, nil
}

// withSearcher runs fn with the searcher for the current memory, opening
// or reopening it when memory has moved, and the state it answers from.
// Searcher calls are serialised: a Searcher is not safe for concurrent
// use. A cold index build is reported to the caller of req (progress
// notifications, when it gave a progress token).
func (s *Server) withSearcher(ctx context.Context, req *sdk.CallToolRequest, fn func(*recall.Searcher, *snapshot, recall.MemoryState) error) error {
	snap, err := s.derived()
	if err != nil {
		return err
	}
	stop := s.reportBuild(ctx, req)
	defer stop()
	if err := lockCtx(ctx, &s.smu); err != nil {
		return err
	}
	defer s.smu.Unlock()
	if s.closed {
		return errors.New("the server is shutting down")
	}
	want := snap.mem.Commit.String()
	if s.searcher != nil && s.served != want && !s.servedTree.IsZero() && sameDerived(snap.repo, s.servedTree, snap.mem.Tree) {
		// Only durable entries changed (a saved memory): the sections,
		// and so the index, are the same; reopening would cost an index
		// generation for nothing.
		s.served, s.servedTree = want, snap.mem.Tree
	}
	if s.searcher == nil || s.served != want && time.Now().After(s.retryOpen) {
		s.noteBuild(0, true)
		ns, err := recall.Open(ctx, snap.repo, recall.OpenOptions{Embedder: s.emb, NoEmbedder: s.noEmb, Memory: snap.mem,
			Fresh: s.made, Building: func(n int) { s.noteBuild(n, false) }})
		s.made = nil
		s.noteBuild(0, true)
		switch {
		case err != nil && s.searcher == nil:
			return fmt.Errorf("open the search index: %w", err)
		case err != nil:
			// Keep answering from the memory already open; freshness
			// says which one that is.
			s.retryOpen = time.Now().Add(2 * time.Second)
		default:
			if s.searcher != nil {
				s.searcher.Close()
			}
			s.searcher = ns
			s.served, s.servedTree = ns.State().Commit, gitstore.Hash{}
			if s.served == want {
				s.servedTree = snap.mem.Tree
			} else {
				// Another process is updating the index: do not reopen
				// on every call while it does.
				s.retryOpen = time.Now().Add(2 * time.Second)
			}
		}
	}
	st := s.searcher.State()
	st.Commit = s.served
	return fn(s.searcher, snap, st)
}

// configureEmbedder sets the query embedder for repo (the one given in
// Options, or the repository's git config konteks.embed.*). Called with
// smu held.
func (s *Server) configureEmbedder(repo *gitstore.Repo) {
	if s.embFor == repo.GitDir {
		return
	}
	s.embFor = repo.GitDir
	s.emb, s.noEmb, s.embNote = s.optEmb, s.optNoEmb, ""
	if s.emb != nil || s.noEmb {
		return
	}
	e, err := embed.Configured(repo.ConfigValues("konteks.embed."))
	switch {
	case err != nil:
		s.embNote = fmt.Sprintf("embedder: %v; lexical search only", err)
		s.noEmb = true
	case e == nil:
		s.noEmb = true
	default:
		s.emb = e
	}
}

// lockCtx locks mu, or gives up when ctx ends first (a cancelled call
// waiting behind a long index build).
func lockCtx(ctx context.Context, mu *sync.Mutex) error {
	if mu.TryLock() {
		return nil
	}
	done := make(chan struct{})
	go func() {
		mu.Lock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		go func() {
			<-done
			mu.Unlock()
		}()
		return ctx.Err()
	}
}

// sameDerived reports whether two memory trees differ only in durable/.
func sameDerived(repo *gitstore.Repo, a, b gitstore.Hash) bool {
	ta, err1 := repo.Tree(a)
	tb, err2 := repo.Tree(b)
	if err1 != nil || err2 != nil {
		return false
	}
	entries := func(es []gitstore.TreeEntry) map[string]gitstore.Hash {
		m := map[string]gitstore.Hash{}
		for _, e := range es {
			if e.Name != memory.DurableDir {
				m[e.Name] = e.Hash
			}
		}
		return m
	}
	return maps.Equal(entries(ta.Entries), entries(tb.Entries))
}

// guard turns a panic in a tool into a tool error: a bad argument or a
// broken record must never take the server down.
func guard(name string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s failed unexpectedly: %v (please report this with the stack below)\n%s", name, r, firstLines(string(debug.Stack()), 12))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// textResult is a tool result whose content is text for the model; the
// structured output is added by the SDK.
//
// Decision: the text content is written for the model to read (Markdown,
// one line per hit, ending with the freshness line) rather than the JSON
// of the structured output the SDK would put there by default: agents read
// the content, and a context pack escaped into JSON costs tokens and
// reads worse. Programs use structuredContent, which holds everything.
// endWithMemory closes a tool's text with the line saying which commit
// memory describes, as every answer ends, and makes it the result.
func endWithMemory(b *strings.Builder, f Freshness) *sdk.CallToolResult {
	b.WriteString(f.Line())
	b.WriteString("\n")
	return textResult(b.String())
}

func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// durableCache holds the durable entries of one memory tree.
type durableCache struct {
	tree  gitstore.Hash
	items []durable.Item
	bad   []string
	// skills are the live skills (recall finds them as it finds memories).
	skills []durable.Skill
	// matcher holds the analysed live entries (see durableMatcher).
	matcher *recall.DurableMatcher
}

// durableItems returns the durable entries of the snapshot's memory
// (cached per memory tree: entries are immutable once written).
func (s *Server) durableItems(snap *snapshot) ([]durable.Item, []string, error) {
	if snap.mem == nil {
		return nil, nil, nil
	}
	s.cmu.Lock()
	if s.dur.tree == snap.mem.Tree && s.dur.items != nil {
		items, bad := s.dur.items, s.dur.bad
		s.cmu.Unlock()
		return items, bad, nil
	}
	s.cmu.Unlock()
	items, bad, err := durable.Load(snap.repo, snap.mem.Tree)
	if err != nil {
		return nil, nil, err
	}
	if items == nil {
		items = []durable.Item{}
	}
	skills, _, _ := durable.LoadSkills(snap.repo, snap.mem.Tree, false)
	s.cmu.Lock()
	s.dur = durableCache{tree: snap.mem.Tree, items: items, bad: bad, skills: skills}
	s.cmu.Unlock()
	return items, bad, nil
}

// writeRepo opens a repository of its own for one write: go-git's object
// storage is not safe to write while other goroutines read it.
func (s *Server) writeRepo() (*gitstore.Repo, error) {
	s.waitRoots()
	dir, err := s.where()
	if err != nil {
		return nil, err
	}
	return openRepo(dir)
}
