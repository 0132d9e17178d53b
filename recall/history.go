package recall

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/index"
)

// HistoryRanking holds the weights of the history signal: what the
// repository's own commits say about the files content ranking found.
//
// A candidate's sections are multiplied by
//
//	1 + History·msg + CoChange·co + Recency·rec
//
// where msg scores the file by past small commits whose messages match the
// task, co by how often it changed together with the best content files,
// and rec by how recently it changed. Then two floors, which may add files
// content ranking did not find, but only on agreement and below the best
// candidate (a naive fusion that injected the files of every matching
// commit lowered recall@10 from 0.83 to 0.75):
//
//   - a file that at least HistoryFloorCommits matching commits changed,
//     with msg at least HistoryFloorMin, scores at least
//     HistoryFloor·msg·(the best candidate's score);
//   - a companion of one of the best files (see companionSignal) scores at
//     least Companion·share·(that file's score).
//
// All weights 0 turn it off (and history is not even read).
type HistoryRanking struct {
	// History weighs files touched by past small commits whose messages
	// match the task.
	History float64 `json:",omitempty"`
	// CoChange weighs co-change with the HistorySeeds best files by
	// content score.
	CoChange float64 `json:",omitempty"`
	// Recency weighs how recently a file changed: exp(-age/HistoryHalfLife)
	// with age in commits.
	Recency float64 `json:",omitempty"`
	// HistoryMaxFiles is the most files a commit may touch to count as
	// evidence (large commits say little about how files relate).
	HistoryMaxFiles int `json:",omitempty"`
	// HistoryCommits is how many matching commits the message signal uses.
	HistoryCommits int `json:",omitempty"`
	// HistorySeeds is how many of the best content files seed co-change.
	HistorySeeds int `json:",omitempty"`
	// HistoryHalfLife is the recency scale, in commits.
	HistoryHalfLife float64 `json:",omitempty"`
	// HistoryMinCommits is how many commits history must hold before the
	// signal counts: a young project's few commits keep touching the same
	// handful of files, so matching messages point at those whatever the
	// task (0: always).
	HistoryMinCommits int `json:",omitempty"`

	// HistoryFloor is the message floor: a file with message score m
	// (at least HistoryFloorMin) that at least HistoryFloorCommits of the
	// matching commits changed scores at least HistoryFloor·m·(the best
	// candidate's score), whether content ranking found it or not. The
	// multiplier above cannot lift a file content ranks far down; past
	// commits that agree on it can. 0 turns it off.
	HistoryFloor        float64 `json:",omitempty"`
	HistoryFloorMin     float64 `json:",omitempty"`
	HistoryFloorCommits int     `json:",omitempty"`

	// Companion lifts the files that usually change together with the
	// best files (see companionSignal): a companion of a file scored s,
	// changed in a share c of its commits, scores at least
	// Companion·c·s. 0 turns it off.
	Companion float64 `json:",omitempty"`
	// CompanionSeeds is how many of the best files bring companions.
	CompanionSeeds int `json:",omitempty"`
	// CompanionShare is the least share of a file's commits a companion
	// must have changed in.
	CompanionShare float64 `json:",omitempty"`
	// CompanionCommits is the least number of commits a companion must
	// share with the file.
	CompanionCommits int `json:",omitempty"`
}

// DefaultHistoryRanking is the history signal recall uses by default:
// the message signal at 2.5, from the 20 best matching commits of at most
// 8 files, with a floor of half the best score for files two or more of
// them changed, and companions at 0.5.
//
// The multiplier: on scripts/eval (150 queries on each of cobra, flask,
// requests, express and urfave/cli, 100 on prometheus, each asked of
// memory at its commit's parent) it raised recall@1, @5, @10 and MRR on
// every repository (README, History); 4.0 did too, with a little more
// recall@10 and a little less recall@1, and 2.5 dominates the candidates
// less. Co-change and recency stay 0: co-change beside the message
// signal moved each number by about 0.01 either way, recency gained
// nothing or cost recall@1.
//
// The floors (560 queries, seven repositories, against the multiplier
// alone): both floors as below raised recall@5 from 0.680 to 0.700 and
// recall@10 from 0.795 to 0.824 at the same recall@1, MRR 0.660 → 0.663
// (flask recall@10 0.632 → 0.722, urfave/cli 0.702 → 0.760), adding only files
// content ranking missed gained about a fifth of that, and 0.4–0.6 or a least
// msg of 0.2–0.3 all landed within 0.005. Companions at 0.8 added 0.001
// overall but cost this repository's own history 0.012 of recall@10; at
// 0.5 they moved no repository's recall@10 by more than 0.006.
//
// On this repository's own history (147 commits of one day, 80 queries)
// the message signal lowered recall@1 and MRR (0.201 and 0.612 without
// it, 0.157 and 0.564 with it; every weight and bound tried did too): a
// young project's commits keep touching the same few files. So the
// message signal and its floor wait until history holds
// HistoryMinCommits (500) commits; every other repository evaluated had
// more than 900 at each query. Companions do not wait: what changes
// together is as true of a young history.
var DefaultHistoryRanking = HistoryRanking{
	History: 2.5, HistoryCommits: 20, HistoryMaxFiles: 8, HistoryMinCommits: 500,
	HistoryFloor: 0.5, HistoryFloorMin: 0.3, HistoryFloorCommits: 2,
	Companion: 0.5, CompanionSeeds: 3, CompanionShare: 0.2, CompanionCommits: 2,
}

func (h HistoryRanking) on() bool { return h.History > 0 || h.CoChange > 0 || h.Recency > 0 }

// companionSignal lifts the companions of the best files: the files that
// changed in most of the small commits that changed them (a test file and
// its subject, a generated file and its source, a pair of requirement
// files). A task that changes one of them usually changes the other, and
// the commit message rarely names both. Unlike the message signal it may
// add files content ranking did not find, but only behind the file that
// brings them: Companion·share·(that file's score).
func (s *Searcher) companionSignal(hs []index.Hit, rk *Ranking, via map[int]string) []index.Hit {
	hr := rk.HistoryRanking
	if hr.Companion <= 0 || len(hs) == 0 || s.mem == nil {
		return hs
	}
	h, err := history.LoadSignals(s.repo, s.mem.Tree)
	if err != nil || h == nil || h.N == 0 {
		return hs
	}
	maxFiles := hr.HistoryMaxFiles
	if maxFiles <= 0 {
		maxFiles = 8
	}
	seeds := hr.CompanionSeeds
	if seeds <= 0 {
		seeds = 3
	}
	best := s.bestSections(hs)
	order := make([]int, 0, len(best))
	for _, i := range best {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := hs[order[a]], hs[order[b]]
		if x.Score != y.Score {
			return x.Score > y.Score
		}
		return x.Doc < y.Doc
	})
	if len(order) > seeds {
		order = order[:seeds]
	}
	for _, i := range order {
		top := hs[i].Score
		if top <= 0 {
			continue
		}
		anchor := s.ix.Doc(hs[i].Doc).Path
		for _, c := range h.Companions(anchor, maxFiles, hr.CompanionCommits) {
			if c.Share < hr.CompanionShare {
				break
			}
			v := hr.Companion * c.Share * top
			why := fmt.Sprintf("changes with %s (%d of its commits)", anchor, c.Commits)
			if j, ok := best[c.Path]; ok {
				if v > hs[j].Score {
					hs[j].Score = v
					via[hs[j].Doc] = why
				}
				continue
			}
			first, ok := s.firstDoc(c.Path)
			if !ok {
				continue
			}
			best[c.Path] = len(hs)
			hs = append(hs, index.Hit{Doc: first, Score: v})
			via[first] = why
		}
	}
	return hs
}

// historySignal rescores the ranked candidates with the evidence of past
// commits. It leaves them as they are when memory holds no history, or
// when history cannot be read (recall must not fail on it; `why` and
// `history` report the error).
func (s *Searcher) historySignal(ctx context.Context, q string, terms []index.Term, hs []index.Hit, rk *Ranking, via map[int]string, sig *signals) []index.Hit {
	hr := rk.HistoryRanking
	if !hr.on() || len(hs) == 0 || s.mem == nil {
		return hs
	}
	h, err := history.LoadSignals(s.repo, s.mem.Tree)
	if err != nil || h == nil || h.N == 0 || h.N < hr.HistoryMinCommits {
		return hs
	}
	maxFiles := hr.HistoryMaxFiles
	if maxFiles <= 0 {
		maxFiles = 8
	}
	// Each candidate file's best section score.
	best := map[string]float64{}
	paths := make([]string, len(hs))
	top := 0.0
	for i, x := range hs {
		p := s.ix.Doc(x.Doc).Path
		paths[i] = p
		if x.Score > best[p] {
			best[p] = x.Score
		}
		top = max(top, x.Score)
	}
	if top <= 0 {
		return hs
	}
	var co map[string]float64
	var ev map[string]history.Evidence
	if hr.History > 0 {
		n := hr.HistoryCommits
		if n <= 0 {
			n = 20
		}
		ev = h.MessageEvidence(q, maxFiles, n)
	}
	if hr.CoChange > 0 || sig != nil {
		k := hr.HistorySeeds
		if k <= 0 {
			k = 5
		}
		type fs struct {
			p string
			s float64
		}
		var order []fs
		for p, v := range best {
			order = append(order, fs{p, v})
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i].s != order[j].s {
				return order[i].s > order[j].s
			}
			return order[i].p < order[j].p
		})
		seeds := map[string]float64{}
		for i := 0; i < len(order) && i < k; i++ {
			seeds[order[i].p] = order[i].s / top
		}
		co = h.CoChange(seeds, maxFiles)
	}
	half := hr.HistoryHalfLife
	if half <= 0 {
		half = 200
	}
	factor := map[string]float64{}
	for p := range best {
		f := 1.0
		if ev != nil {
			f += hr.History * ev[p].Score
		}
		if co != nil && hr.CoChange > 0 {
			f += hr.CoChange * min(co[p], 1)
		}
		if hr.Recency > 0 || sig != nil {
			if age, ok := h.Age(p); ok {
				r := math.Exp(-float64(age) / half)
				f += hr.Recency * r
				if sig != nil {
					sig.recency[p] = r
				}
			}
		}
		if sig != nil {
			sig.churn[p] = math.Log1p(float64(h.Changes(p)))
			sig.history[p] = ev[p].Score
			sig.cochange[p] = min(co[p], 1)
		}
		factor[p] = f
	}
	newTop := 0.0
	for i := range hs {
		hs[i].Score *= factor[paths[i]]
		newTop = max(newTop, hs[i].Score)
	}
	if hr.HistoryFloor > 0 {
		hs = s.floor(hs, ev, newTop, hr, via)
	}
	return hs
}

// floor lifts the files past commits agree on to their floor (see
// HistoryFloor), adding those content ranking did not find by their first
// section.
func (s *Searcher) floor(hs []index.Hit, ev map[string]history.Evidence, top float64, hr HistoryRanking, via map[int]string) []index.Hit {
	best := s.bestSections(hs)
	var ps []string
	for p, e := range ev {
		if e.Score >= hr.HistoryFloorMin && e.Commits >= hr.HistoryFloorCommits {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	for _, p := range ps {
		v := hr.HistoryFloor * ev[p].Score * top
		why := fmt.Sprintf("history: %d past commits like this task changed this file", ev[p].Commits)
		hs = s.liftFile(hs, best, p, v, why, via)
	}
	return hs
}

// liftFile raises the best section of the file at p (best maps files to
// it, see bestSections) to score v, saying why in via, or adds the file
// by its first section when no candidate is in it. A file that scores v
// already keeps its score and its reason.
func (s *Searcher) liftFile(hs []index.Hit, best map[string]int, p string, v float64, why string, via map[int]string) []index.Hit {
	if i, ok := best[p]; ok {
		if v > hs[i].Score {
			hs[i].Score = v
			via[hs[i].Doc] = why
		}
		return hs
	}
	if d, ok := s.firstDoc(p); ok {
		best[p] = len(hs)
		hs = append(hs, index.Hit{Doc: d, Score: v})
		via[d] = why
	}
	return hs
}

// bestSections maps each file among the candidates to the index in hs of
// its best section (ties to the lower doc, so the choice is
// deterministic whatever the order of hs).
func (s *Searcher) bestSections(hs []index.Hit) map[string]int {
	best := map[string]int{}
	for i, x := range hs {
		p := s.ix.Doc(x.Doc).Path
		if j, ok := best[p]; !ok || x.Score > hs[j].Score || x.Score == hs[j].Score && x.Doc < hs[j].Doc {
			best[p] = i
		}
	}
	return best
}

// firstDoc is the first section of the file at p, by line.
func (s *Searcher) firstDoc(p string) (int, bool) {
	docs := s.ix.PathDocs(p)
	if len(docs) == 0 {
		return 0, false
	}
	first, line := docs[0], 0
	for _, d := range docs {
		if l := s.ix.StartLine(d); line == 0 || l < line {
			first, line = d, l
		}
	}
	return first, true
}
