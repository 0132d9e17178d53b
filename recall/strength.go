package recall

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/konteks/git-konteks/index"
)

// Evidence strength: how much an answer can be trusted, so that an agent
// can tell a place memory knows from the least bad guess. Scores cannot
// say it alone: fused scores are scaled per query (the best hit of any
// query scores about the same), and vectors find a nearest section for
// anything. What does say it is how much of the task the best hits hold —
// the task's content words (analysed as the index analyses text: stemmed,
// identifiers split, stop words out) found in a hit's path, name, summary
// and text — and how far the best hit leads the others.

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
	// first hits holds; Union the share the first hits hold together.
	Coverage float64 `json:"coverage"`
	Union    float64 `json:"union"`
	// Margin is how far the best hit's score leads the fifth (or last)
	// hit's, as a share of the best (1 with a single hit).
	Margin float64 `json:"margin"`
	// Matched and Missing are the task's words found in the first hits
	// and not.
	Matched []string `json:"matched,omitempty"`
	Missing []string `json:"missing,omitempty"`
	// NoMatch is set when no word of the task occurs in any of the first
	// hits and no hit was placed by history: the answer then holds no hit,
	// only NoGoodMatch.
	NoMatch bool `json:"no_match,omitempty"`
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
	evidenceDepth   = 5
	coverageDepth   = 3
	strongCoverage  = 0.75
	strongMargin    = 0.1
	partialCoverage = 0.4
	partialUnion    = 0.6
)

// Assess judges the evidence hits (best first, with their text filled)
// give for task.
func Assess(task string, hits []Hit) Evidence {
	words := taskWords(task)
	if len(hits) == 0 {
		return Evidence{Strength: Weak, NoMatch: true, Missing: wordsOf(words, nil), Reason: "nothing in memory matches the task"}
	}
	top := hits[:min(len(hits), evidenceDepth)]
	union := map[string]bool{}
	best, via := 0, false
	for i, h := range top {
		if h.Via != "" {
			via = true
		}
		have := map[string]bool{}
		for _, t := range index.Terms(strings.Join([]string{h.Path, h.Name, h.Symbol, h.Summary, h.Content, h.Snippet}, "\n")) {
			have[t] = true
		}
		n := 0
		for _, w := range words {
			if have[w.term] {
				n++
				union[w.term] = true
			}
		}
		if i < coverageDepth && n > best {
			best = n
		}
	}
	e := Evidence{Matched: wordsOf(words, union), Missing: wordsOfNot(words, union)}
	if len(words) > 0 {
		e.Coverage = round2(float64(best) / float64(len(words)))
		e.Union = round2(float64(len(union)) / float64(len(words)))
	}
	e.Margin = 1
	if len(top) > 1 && top[0].Score > 0 {
		e.Margin = round2(max(0, top[0].Score-top[len(top)-1].Score) / top[0].Score)
	}
	switch {
	case len(words) == 0:
		// Nothing to judge by (a task of stop words or symbols only).
		e.Strength, e.Reason = Weak, "the task has no content word to match"
	case len(union) == 0 && !via:
		e.Strength, e.NoMatch = Weak, true
		e.Reason = fmt.Sprintf("none of the task's words (%s) occurs in memory's best hits", strings.Join(e.Missing, ", "))
	case e.Coverage >= strongCoverage && e.Margin >= strongMargin:
		e.Strength = Strong
		e.Reason = fmt.Sprintf("the best hits hold %d of %d task words", best, len(words))
	case e.Coverage >= partialCoverage || e.Union >= partialUnion || via && len(union) > 0:
		e.Strength = Partial
		e.Reason = fmt.Sprintf("the hits hold %d of %d task words", len(union), len(words))
		if e.Coverage >= strongCoverage {
			e.Reason += ", but no hit stands out"
		}
	default:
		e.Strength = Weak
		e.Reason = fmt.Sprintf("the hits hold only %d of %d task words", len(union), len(words))
		if via && len(union) == 0 {
			e.Reason = "only past commits point at these files; their text does not match"
		}
	}
	if len(e.Missing) > 0 && !e.NoMatch && e.Strength != Weak || e.Strength == Weak && len(e.Matched) > 0 {
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
