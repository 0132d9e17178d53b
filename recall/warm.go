package recall

import (
	"context"
	"fmt"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// WarmReport says what Warm brought up to date and what it cost.
type WarmReport struct {
	Index   string        // how the index was had: current, update, build
	Model   string        // the embedding model the index was built for ("" for none)
	Vectors int           // vectors the index holds
	History bool          // history signals are ready
	Graph   bool          // the file graph is ready
	Took    time.Duration // wall time
}

// Warm brings the local caches that recall reads up to date with the
// memory ref: the search index, the history signals and the file graph.
// The post-commit hook's background runner calls it after each extraction,
// so the first question after a commit (or a merge of fetched memory) does
// not pay for building them. It never writes memory.
//
// The index is built for the configured embedder, as recall opens it: a
// generation built without vectors would not serve recall's queries (see
// index.Options.Model), and recall would build again. Nothing is
// embedded for that but the built-in model's vectors, which the index
// computes; a provider's come from memory.
func Warm(ctx context.Context, repo *gitstore.Repo) (*WarmReport, error) {
	return WarmFresh(ctx, repo, nil)
}

// WarmFresh is Warm after an extraction in this process: the index update
// takes the records it made from fresh (extract.Result.Fresh) instead of
// reading them back.
func WarmFresh(ctx context.Context, repo *gitstore.Repo, fresh map[gitstore.Hash]*memory.File) (*WarmReport, error) {
	t0 := time.Now()
	s, err := Open(ctx, repo, OpenOptions{Fresh: fresh})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rep := &WarmReport{Index: s.ix.How, Model: s.ix.Model(), Vectors: s.ix.Vectors()}
	if s.mem != nil {
		h, err := history.LoadSignals(s.repo, s.mem.Tree)
		if err != nil {
			return rep, fmt.Errorf("history signals: %w", err)
		}
		rep.History = h != nil
	}
	g, release := s.fileGraph(ctx)
	if g != nil {
		release()
		rep.Graph = true
	}
	rep.Took = time.Since(t0)
	return rep, nil
}

// UpdateIndex brings the search index up to date with the memory that
// refs/konteks names, for the configured embedder (as recall opens it),
// waiting for another process updating it (see index.Refresh), and says
// how: "current", "update" or "build". The commands that move
// refs/konteks call it before they return, so memory is searchable when
// they do. opt.Model, when empty, is the configured embedder's.
func UpdateIndex(ctx context.Context, repo *gitstore.Repo, opt index.Options) (string, error) {
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil {
		return "", err
	}
	if mem == nil {
		return "", ErrNoMemory
	}
	return IndexMemory(ctx, repo, mem, opt)
}

// IndexMemory is UpdateIndex for the memory commit mem, which need not be
// what refs/konteks names: a fetch indexes a peer's memory before it
// adopts it (opt.Budget set; see share.Indexer), so that one decoding of
// their records checks them and indexes them, and the first recall after
// the adoption finds the generation current.
func IndexMemory(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, opt index.Options) (string, error) {
	if opt.Model == "" {
		if emb, err := embed.Configured(repo.ConfigValues("konteks.embed.")); err == nil && emb != nil {
			opt.Model = emb.Model()
		}
	}
	return index.Refresh(ctx, repo, mem, opt)
}
