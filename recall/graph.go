package recall

import (
	"context"

	"github.com/konteks/git-konteks/index"
)

// GraphRanking holds the weights of the graph signal: neighbours of the
// matched sections and central definitions.
type GraphRanking struct{}

// graphSignal rescores (and may add to) the ranked candidates with the
// code graph.
func (s *Searcher) graphSignal(ctx context.Context, hs []index.Hit, rk *Ranking) []index.Hit {
	return hs
}
