package recall

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/konteks/git-konteks/index"
)

// Evidence strength: how much an answer can be trusted, so that an agent
// can tell a place memory knows from the least bad guess. Two signals say
// it. How far the best hit leads the others: fused scores are scaled per
// query, so the best hit of any query scores about the same, but a clear
// leader is a place memory knows, and a flat ranking is a guess. And how
// much of the task the best hits hold — the task's content words
// (analysed as the index analyses text: stemmed, identifiers split, stop
// words out; weighted by rarity) found in a hit's path, name, summary and
// text: a task none of whose words occur anywhere near the top gets no
// hit at all, since vectors find a nearest section for anything.
//
// The thresholds come from scripts/eval -strength (commit messages as
// tasks, the files they changed as answers; cobra and flask, 120 queries):
// the best hit's lead over the fifth split the answers cleanly (lead under
// 0.3: an answer file in the first ten 56% of the time; over 0.68: 100%),
// while the share of words matched alone did not (commit messages share
// most of their words with the code they change). On held-out
// repositories (express and gin, 80 queries) strong answers held an answer
// file in the first ten 90% of the time, no more often than all answers
// did: the label is a guide, and "no good match" (no word of the task
// near the top at all) its firm part.

// Strength labels.
const (
	Strong  = "strong"  // the best hit holds most of the task and leads
	Partial = "partial" // part of the task matched: read the hits as leads
	Weak    = "weak"    // little or nothing matched
)

// NoGoodMatch is what an answer says when nothing in memory matches.
const NoGoodMatch = "no good match in memory"

// Evidence says how strongly memory supports an answer.
type Evidence struct {
	Strength string `json:"strength"`
	// Coverage is the share of the task's content words the best of the
	// first hits holds; Union the share the first hits hold together
	// (weighted by rarity when judged by Searcher.Evidence).
	Coverage float64 `json:"coverage"`
	Union    float64 `json:"union"`
	// Margin is how far the best hit's score leads the fifth (or last)
	// hit's, and Lead the second's, as a share of the best (1 with a
	// single hit).
	Margin float64 `json:"margin"`
	Lead   float64 `json:"lead"`
	// Matched and Missing are the task's words found in the first hits
	// and not.
	Matched []string `json:"matched,omitempty"`
	Missing []string `json:"missing,omitempty"`
	// NoMatch is set when no word of the task occurs in any of the first
	// hits and no hit was placed by history: the answer then holds no hit,
	// only NoGoodMatch.
	NoMatch bool `json:"no_match,omitempty"`
	// Confidence is the learned ranker's probability that an answer is
	// among the first ConfidenceFiles files (see Result.Confidence); 0
	// when it did not run.
	Confidence float64 `json:"confidence,omitempty"`
	// Reason says why, in words.
	Reason string `json:"reason"`
}

// Label is the evidence as one line: "strong evidence: …".
func (e Evidence) Label() string {
	if e.NoMatch {
		return NoGoodMatch + " (weak evidence: " + e.Reason + ")"
	}
	return e.Strength + " evidence: " + e.Reason
}

// How many hits the evidence looks at, and the thresholds of the labels.
const (
	evidenceDepth  = 5
	coverageDepth  = 3
	strongCoverage = 0.4  // the best hit holds two fifths of the task
	strongMargin   = 0.55 // and leads the fifth by more than half
	strongLead     = 0.2  // or the second by a fifth
	weakMargin     = 0.3  // a flatter ranking is a guess
	weakCoverage   = 0.2  // so is a hit holding less of the task
)

// Assess judges the evidence hits (best first, with their text filled)
// give for task, every word of the task weighing the same.
func Assess(task string, hits []Hit) Evidence { return assess(task, hits, nil) }

// Evidence judges hits as Assess does, each word of the task weighted by
// how rare it is in this memory (inverse document frequency over the
// sections): a word most sections hold ("fix", "test") says little about
// where the task lives, and a word no section holds counts fully against
// the answer.
func (s *Searcher) Evidence(task string, hits []Hit) Evidence {
	n := float64(max(s.ix.Len(), 1))
	return assess(task, hits, func(term string) float64 {
		return math.Log(1 + n/float64(s.ix.DocFreq(term)+1))
	})
}

// Judge is the evidence of an answer. When the learned ranker ran
// (confidence > 0) the label is its confidence alone: strong at
// LearnedRanking.Strong or more, weak under LearnedRanking.Weak, partial
// between. Measured on development sets of three kinds (commit messages,
// issues, questions in the asker's words), the confidence told answers
// with the answer file first from the others far better than the share
// of the task's words the best hits hold, which says little where a task
// is written in other words than the code (docs/evaluation.md); the
// words stay in the evidence as what matched. Evidence's judgement of
// the words decides only without the ranker's confidence, and when no
// word of the task occurs near the top at all (no good match, or hits
// placed by history alone). Answer passes the first evidenceDepth hits
// whatever the limit, so the label depends on the ranking alone.
func (s *Searcher) Judge(task string, hits []Hit, confidence float64, rk *Ranking) Evidence {
	e := s.Evidence(task, hits)
	if rk == nil {
		rk = &DefaultRanking
	}
	lr := rk.Learned
	if confidence <= 0 || lr == nil || lr.Strong <= 0 || e.NoMatch || len(hits) == 0 {
		return e
	}
	if e.Strength == Weak && e.Coverage == 0 && e.Union == 0 {
		// No word matched (history placed the hits, or the task has no
		// content word): the words decide.
		return e
	}
	e.Confidence = round2(confidence)
	sure := fmt.Sprintf("the ranking gives its first %d files a %.0f%% chance of holding the answer", ConfidenceFiles, 100*confidence)
	switch {
	case confidence >= lr.Strong:
		e.Strength = Strong
	case confidence < lr.Weak:
		e.Strength = Weak
	default:
		e.Strength = Partial
	}
	e.Reason = sure + "; " + e.Reason
	return e
}

func assess(task string, hits []Hit, weight func(term string) float64) Evidence {
	words := taskWords(task)
	w := make([]float64, len(words))
	var total float64
	for i, tw := range words {
		w[i] = 1
		if weight != nil {
			w[i] = weight(tw.term)
		}
		total += w[i]
	}
	if len(hits) == 0 {
		return Evidence{Strength: Weak, NoMatch: true, Missing: wordsOf(words, nil), Reason: "nothing in memory matches the task"}
	}
	top := hits[:min(len(hits), evidenceDepth)]
	union := map[string]bool{}
	best, via := 0, false
	var bestW, unionW float64
	// Which of the task's terms each hit holds, read until all are found:
	// a hit's text can be a whole class, the task a few words.
	want := make(map[string]int, len(words))
	for j, tw := range words {
		want[tw.term] = j
	}
	have := make([]bool, len(words))
	for i, h := range top {
		if h.Via != "" {
			via = true
		}
		clear(have)
		left := len(words)
		for _, text := range [...]string{h.Path, h.Name, h.Symbol, h.Summary, h.Content, h.Snippet} {
			if left == 0 {
				break
			}
			index.EachTerm(text, func(t string) bool {
				if j, ok := want[t]; ok && !have[j] {
					have[j] = true
					left--
				}
				return left > 0
			})
		}
		n, nw := 0, 0.0
		for j, tw := range words {
			if have[j] {
				n++
				nw += w[j]
				if !union[tw.term] {
					union[tw.term] = true
					unionW += w[j]
				}
			}
		}
		if i < coverageDepth && nw > bestW {
			best, bestW = n, nw
		}
	}
	e := Evidence{Matched: wordsOf(words, union), Missing: wordsOfNot(words, union)}
	if total > 0 {
		e.Coverage = round2(bestW / total)
		e.Union = round2(unionW / total)
	}
	e.Margin, e.Lead = 1, 1
	if len(top) > 1 && top[0].Score > 0 {
		e.Margin = round2(max(0, top[0].Score-top[len(top)-1].Score) / top[0].Score)
		e.Lead = round2(max(0, top[0].Score-top[1].Score) / top[0].Score)
	}
	switch {
	case len(words) == 0:
		// Nothing to judge by (a task of stop words or symbols only).
		e.Strength, e.Reason = Weak, "the task has no content word to match"
	case len(union) == 0 && !via:
		e.Strength, e.NoMatch = Weak, true
		e.Reason = fmt.Sprintf("none of the task's words (%s) occurs in memory's best hits", strings.Join(e.Missing, ", "))
	case via && len(union) == 0:
		e.Strength = Weak
		e.Reason = "only past commits point at these files; their text does not match"
	case e.Coverage >= strongCoverage && (e.Margin >= strongMargin || e.Lead >= strongLead):
		e.Strength = Strong
		e.Reason = fmt.Sprintf("the best hit holds %d of %d task words and leads the rest", best, len(words))
	case e.Margin < weakMargin || e.Coverage < weakCoverage:
		e.Strength = Weak
		if e.Margin < weakMargin {
			e.Reason = fmt.Sprintf("no hit stands out (the hits hold %d of %d task words)", len(union), len(words))
		} else {
			e.Reason = fmt.Sprintf("the best hit holds only %d of %d task words", best, len(words))
		}
	default:
		e.Strength = Partial
		e.Reason = fmt.Sprintf("the hits hold %d of %d task words", len(union), len(words))
		if e.Coverage < strongCoverage {
			e.Reason += ", the best one too few of them"
		} else {
			e.Reason += ", but the best does not lead clearly"
		}
	}
	if len(e.Missing) > 0 && len(e.Matched) > 0 && !e.NoMatch {
		e.Reason += "; missing: " + strings.Join(firstWords(e.Missing, 6), ", ")
	}
	return e
}

// taskWord is a content word of a task and the term it is indexed as.
type taskWord struct{ word, term string }

// taskWords lists a task's content words once each, by term, in order.
func taskWords(task string) []taskWord {
	var out []taskWord
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(task, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		for _, t := range index.Terms(w) {
			if seen[t] {
				continue
			}
			seen[t] = true
			word := strings.ToLower(w)
			if len(index.Terms(w)) > 1 {
				word = t // one part of an identifier
			}
			out = append(out, taskWord{word, t})
		}
	}
	return out
}

func wordsOf(ws []taskWord, in map[string]bool) []string {
	var out []string
	for _, w := range ws {
		if in == nil || in[w.term] {
			out = append(out, w.word)
		}
	}
	return out
}

func wordsOfNot(ws []taskWord, in map[string]bool) []string {
	var out []string
	for _, w := range ws {
		if !in[w.term] {
			out = append(out, w.word)
		}
	}
	return out
}

func firstWords(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// FileSections lists the best section of each file of a files answer, in
// rank order: what Evidence judges a files answer by.
func FileSections(files []FileHit) []Hit {
	hits := make([]Hit, 0, len(files))
	for _, f := range files {
		if len(f.Sections) > 0 {
			hits = append(hits, f.Sections[0])
		}
	}
	return hits
}
