package recall

import (
	"context"
	"math"
	"sort"
	"sync"

	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/memref"
)

// GraphRanking holds the weights of the graph signal: neighbours of the
// matched sections and central definitions. The file graph (imports and
// references, see package graph) comes from a cache per memory commit.
type GraphRanking struct {
	// Neighbors adds to a file a share of the scores of the best-matching
	// files it is linked to (it uses them or they use it), in proportion
	// to the edge's weight against the seed's strongest edge; a file no
	// ranking found can enter the candidates this way.
	Neighbors float64
	// PPR adds a personalised PageRank on the best-matching files (aider's
	// repository map ranks with it), scaled to the best score.
	PPR float64
	// Linked multiplies a candidate's score by 1 + Linked·v, v its file's
	// personalised PageRank on the best-matching files scaled to [0, 1]:
	// like PPR, but it only reorders what the rankings found.
	Linked float64
	// Central multiplies a section's score by 1 + Central·tanh(ln r),
	// where r is its file's global PageRank (mean 1): central files up,
	// leaves down, bounded either way.
	Central float64
	// Reach brings in linked files no ranking found, at Reach times the
	// best score times their scaled personalised PageRank; the
	// candidates' own scores are left alone.
	Reach float64
	// GraphNorm divides the personalised PageRank of a file by its degree
	// (total edge weight) to this power before scaling: 0 leaves hubs
	// (files everything uses) their advantage, 1 removes it.
	GraphNorm float64
	// GraphSeeds is how many of the best files seed the expansion (default 10).
	GraphSeeds int
}

// graphEpsilon is the residual bound of the personalised PageRank push.
const graphEpsilon = 1e-4

// maxGraphAdded bounds the files the graph brings into the candidates.
const maxGraphAdded = 20

// graphSignal rescores (and may add to) the ranked candidates with the
// code graph.
func (s *Searcher) graphSignal(ctx context.Context, hs []index.Hit, rk *Ranking) []index.Hit {
	gr := rk.GraphRanking
	if len(hs) == 0 || gr.Neighbors == 0 && gr.PPR == 0 && gr.Linked == 0 && gr.Reach == 0 && gr.Central == 0 {
		return hs
	}
	g, release := s.fileGraph(ctx)
	if g == nil {
		return hs
	}
	defer release()
	// Each file's best candidate.
	type fileBest struct {
		id    int
		score float64
	}
	best := map[int]*fileBest{}
	docFile := make([]int, len(hs))
	top := 0.0
	for i, h := range hs {
		f := g.File(s.ix.Doc(h.Doc).Path)
		docFile[i] = f
		if f < 0 {
			continue
		}
		if b := best[f]; b == nil || h.Score > b.score {
			best[f] = &fileBest{f, h.Score}
		}
		top = max(top, h.Score)
	}
	if top <= 0 {
		return hs
	}
	files := make([]*fileBest, 0, len(best))
	for _, b := range best {
		files = append(files, b)
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].score != files[j].score {
			return files[i].score > files[j].score
		}
		return files[i].id < files[j].id
	})
	nSeeds := gr.GraphSeeds
	if nSeeds <= 0 {
		nSeeds = 10
	}
	seeds := map[int]float64{}
	for _, b := range files[:min(nSeeds, len(files))] {
		if b.score > 0 {
			seeds[b.id] = b.score / top
		}
	}
	bonus := map[int]float64{}
	if gr.Neighbors != 0 {
		for s, w := range seeds {
			ns := g.Neighbors(s)
			maxW := 0.0
			for _, n := range ns {
				maxW = max(maxW, n.Weight)
			}
			if maxW <= 0 {
				continue
			}
			for _, n := range ns {
				if n.File != s {
					bonus[n.File] += gr.Neighbors * top * w * n.Weight / maxW
				}
			}
		}
	}
	var linked map[int]float64
	if (gr.PPR != 0 || gr.Linked != 0 || gr.Reach != 0) && len(seeds) > 0 {
		ppr := g.Personalized(seeds, graphEpsilon)
		// A seed keeps its own restart mass; what it receives from the
		// other seeds is what says it belongs with them.
		total := 0.0
		for _, w := range seeds {
			total += w
		}
		hi := 0.0
		for f, v := range ppr {
			if w, seed := seeds[f]; seed {
				v = max(v-(1-graph.Damping)*w/total, 0)
			}
			if gr.GraphNorm != 0 {
				v /= math.Pow(max(g.Degree(f), 1), gr.GraphNorm)
			}
			ppr[f] = v
			hi = max(hi, v)
		}
		if hi > 0 {
			linked = map[int]float64{}
			for f, v := range ppr {
				linked[f] = min(v/hi, 1)
				if gr.PPR != 0 {
					bonus[f] += gr.PPR * top * linked[f]
				}
				if _, found := best[f]; !found && gr.Reach != 0 {
					bonus[f] += gr.Reach * top * linked[f]
				}
			}
		}
	}
	for i := range hs {
		f := docFile[i]
		if f < 0 {
			continue
		}
		if gr.Central != 0 {
			hs[i].Score *= 1 + gr.Central*math.Tanh(math.Log(max(g.Rank(f), 1e-9)))
		}
		if gr.Linked != 0 {
			hs[i].Score *= 1 + gr.Linked*linked[f]
		}
		hs[i].Score += bonus[f]
	}
	// Linked files no ranking found enter with their first section.
	type add struct {
		f int
		b float64
	}
	var added []add
	for f, b := range bonus {
		if _, ok := best[f]; !ok && b > 0 {
			added = append(added, add{f, b})
		}
	}
	sort.Slice(added, func(i, j int) bool {
		if added[i].b != added[j].b {
			return added[i].b > added[j].b
		}
		return added[i].f < added[j].f
	})
	for _, a := range added[:min(len(added), maxGraphAdded)] {
		docs := s.ix.PathDocs(g.Path(a.f))
		if len(docs) == 0 {
			continue
		}
		// The earliest of its first few sections (a file's sections are
		// many; reading them all costs more than the rest of the signal).
		d, line := docs[0], 0
		for _, x := range docs[:min(len(docs), 8)] {
			if l := s.ix.StartLine(x); line == 0 || l < line {
				d, line = x, l
			}
		}
		sc := a.b
		if gr.Central != 0 {
			sc *= 1 + gr.Central*math.Tanh(math.Log(max(g.Rank(a.f), 1e-9)))
		}
		hs = append(hs, index.Hit{Doc: d, Score: sc})
	}
	return hs
}

// Graphs stay open across queries (the MCP server, the evaluation): one
// per memory commit, the latest few, each closed when its last user is
// done after it was dropped.
var graphs struct {
	sync.Mutex
	open []*openGraph
}

type openGraph struct {
	dir, memory string
	g           *graph.Graph
	users       int
	dropped     bool
}

const keepGraphs = 2

// fileGraph returns the file graph of the memory the index reflects
// (building its cache when missing) and a release function; nil when it
// cannot be had (the signal is then left out).
func (s *Searcher) fileGraph(ctx context.Context) (*graph.Graph, func()) {
	key := s.ix.Memory.String()
	graphs.Lock()
	for _, o := range graphs.open {
		if o.memory == key && o.dir == s.repo.CommonDir {
			o.users++
			graphs.Unlock()
			return o.g, func() { releaseGraph(o) }
		}
	}
	graphs.Unlock()
	mem := s.mem
	if mem == nil || mem.Commit != s.ix.Memory {
		m, err := memref.ReadCommit(s.repo, s.ix.Memory)
		if err != nil {
			return nil, nil
		}
		mem = m
	}
	g, err := graph.Open(ctx, s.repo, mem)
	if err != nil {
		return nil, nil
	}
	o := &openGraph{dir: s.repo.CommonDir, memory: key, g: g, users: 1}
	graphs.Lock()
	graphs.open = append(graphs.open, o)
	if len(graphs.open) > keepGraphs {
		old := graphs.open[0]
		graphs.open = graphs.open[1:]
		old.dropped = true
		if old.users == 0 {
			old.g.Close()
		}
	}
	graphs.Unlock()
	return g, func() { releaseGraph(o) }
}

func releaseGraph(o *openGraph) {
	graphs.Lock()
	defer graphs.Unlock()
	o.users--
	if o.users == 0 && o.dropped {
		o.g.Close()
	}
}
