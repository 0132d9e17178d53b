package mcp

import (
	"context"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/gitstore"
)

// Which repository the server serves.
//
// Decision: a repository named on the command line (--repo DIR, -C DIR)
// wins; without one the server follows the client's roots (the MCP roots
// capability: the folders open in the editor), taking the first root that
// is inside a git repository, and falls back to the directory it was
// started in. Desktop clients start servers from the home directory, and
// one configuration then serves whichever project is open. The roots are
// asked for once the client has initialised and again when it says they
// changed; a call that arrives meanwhile waits for the answer (at most
// rootsTimeout), so it is not answered from the wrong repository.

//
// Roots come with the initialize handshake (protocol versions up to
// 2025-11-25, what clients speak today); the 2026-07-28 protocol
// deprecates them (SEP-2577), and a client speaking it is served the
// repository of --repo, -C or the current directory.

// rootsTimeout bounds the wait for the client's roots.
const rootsTimeout = 3 * time.Second

// rootsMiddleware notes, as a client initialises, that it announces roots:
// calls then wait for them, even one that the SDK runs before the
// initialized notification's handler.
func (s *Server) rootsMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if ir, ok := req.(*sdk.InitializeRequest); ok && method == "initialize" && !s.explicit &&
			ir.Params != nil && ir.Params.Capabilities != nil && hasRoots(ir.Params.Capabilities) {
			s.rmu.Lock()
			s.rootsWait = make(chan struct{})
			s.rmu.Unlock()
		}
		return next(ctx, method, req)
	}
}

func (s *Server) initialized(ctx context.Context, req *sdk.InitializedRequest) {
	s.askRoots(req.Session)
}

func (s *Server) rootsChanged(ctx context.Context, req *sdk.RootsListChangedRequest) {
	s.askRoots(req.Session)
}

// askRoots asks the client of ss for its roots, in the background (the
// answer arrives on the connection whose handler is calling us), and
// switches to the repository they name.
func (s *Server) askRoots(ss *sdk.ServerSession) {
	if s.explicit || ss == nil {
		return
	}
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || !hasRoots(p.Capabilities) {
		return
	}
	s.rmu.Lock()
	done := s.rootsWait
	if done == nil || isClosed(done) {
		done = make(chan struct{})
		s.rootsWait = done
	}
	s.rmu.Unlock()
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(s.bg, rootsTimeout)
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil || res == nil {
			return
		}
		for _, r := range res.Roots {
			dir, ok := rootDir(r.URI)
			if !ok {
				continue
			}
			if _, err := gitstore.Open(dir); err == nil {
				s.setDir(dir)
				return
			}
		}
	}()
}

func hasRoots(c *sdk.ClientCapabilities) bool { return c.RootsV2 != nil || c.Roots.ListChanged }

// rootDir is the local directory of a file:// root URI.
func rootDir(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	if p == "" {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(p)), true
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// waitRoots waits (a bounded time) for roots being asked for.
func (s *Server) waitRoots() {
	s.rmu.Lock()
	w := s.rootsWait
	s.rmu.Unlock()
	if w == nil {
		return
	}
	select {
	case <-w:
	case <-time.After(rootsTimeout):
	}
}

// setDir makes the server serve the repository containing dir: the open
// repository, the index and the caches of the previous one are dropped.
func (s *Server) setDir(dir string) {
	s.rmu.Lock()
	same := s.dir == dir && s.dirErr == nil
	s.dir, s.dirErr = dir, nil
	s.rmu.Unlock()
	if same {
		return
	}
	s.mu.Lock()
	s.repo, s.snap = nil, nil
	s.mu.Unlock()
	s.smu.Lock()
	if s.searcher != nil {
		s.searcher.Close()
		s.searcher = nil
	}
	s.served, s.servedTree, s.embFor = "", gitstore.Hash{}, ""
	s.smu.Unlock()
	s.cmu.Lock()
	clear(s.fresh)
	s.dur = durableCache{}
	s.cmu.Unlock()
	go s.warm(s.bg)
}
