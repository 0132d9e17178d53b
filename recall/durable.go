package recall

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/index"
)

// Durable memories and diary entries are few (tens to hundreds) and
// immutable, so recall matches them by a scan instead of the index: the
// task's terms, analysed as the index analyses text, against each live
// entry's text, subject, kind, tags, paths and symbols, weighted by how rare
// each term is among the entries; an entry linked to a file the answer
// points at matches too.

// MinMemoryScore is the least score an entry needs: one term rare among
// the entries, or two common ones.
const MinMemoryScore = 1.5

// linkBonus is what a link to one of the answer's files adds.
const linkBonus = 2.0

// Skills are matched the same way, by their name and description (what
// the skill is for; the body's wording would make every skill match
// everything), as entries of type durable.TypeSkill whose Subject is the
// skill's name and Text its description: an agent that asks how to do a
// recurring task finds the saved instructions for it.

// MemoryHit is a durable memory, diary entry or skill that matches a task.
type MemoryHit struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"`
	Kind    string   `json:"kind,omitempty"`
	Subject string   `json:"subject,omitempty"`
	Text    string   `json:"text"`
	Tags    []string `json:"tags,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Created string   `json:"created"`
	Score   float64  `json:"score"`
}

// DurableMatcher holds the analysed live entries of one memory tree.
type DurableMatcher struct {
	cands []durableCand
	df    map[string]int
}

type durableCand struct {
	it    durable.Item
	terms map[string]bool
}

// Searchable is the text of an entry that a task is matched against.
func Searchable(it durable.Item) string {
	return strings.ToLower(strings.Join([]string{it.ID, it.Kind, it.Subject, it.Text, strings.Join(it.Tags, " "),
		strings.Join(it.Paths, " "), strings.Join(it.Symbols, " ")}, "\n"))
}

// NewDurableMatcher analyses the live memories and diary entries of
// items, and the live skills.
func NewDurableMatcher(items []durable.Item, skills ...durable.Skill) *DurableMatcher {
	m := &DurableMatcher{df: map[string]int{}}
	add := func(it durable.Item, text string) {
		ts := map[string]bool{}
		for _, t := range index.Terms(text) {
			if !ts[t] {
				ts[t] = true
				m.df[t]++
			}
		}
		m.cands = append(m.cands, durableCand{it, ts})
	}
	for _, it := range items {
		if it.Status != durable.StatusLive || (it.Type != durable.TypeMemory && it.Type != durable.TypeDiary) {
			continue
		}
		add(it, Searchable(it))
	}
	for _, k := range skills {
		if k.Type != durable.TypeSkill {
			continue
		}
		it := durable.Item{Entry: durable.Entry{ID: k.ID, Type: durable.TypeSkill, Subject: k.Name, Text: k.Description, Created: k.Created},
			Status: durable.StatusLive}
		add(it, strings.ReplaceAll(k.Name, "-", " ")+"\n"+k.Description)
	}
	return m
}

// Match returns the entries that match task, best first; paths are the
// files the answer points at.
func (m *DurableMatcher) Match(task string, paths []string, limit int) []MemoryHit {
	out := []MemoryHit{}
	if m == nil || len(m.cands) == 0 {
		return out
	}
	// A corpus of at least 20 is assumed, so that with only a few entries
	// one shared rare word is enough.
	n := float64(max(len(m.cands), 20))
	query := index.Terms(task)
	onPath := map[string]bool{}
	for _, p := range paths {
		onPath[p] = true
	}
	for _, c := range m.cands {
		score := 0.0
		for _, t := range query {
			if c.terms[t] {
				score += math.Log(1 + n/float64(m.df[t]))
			}
		}
		for _, p := range c.it.Paths {
			if onPath[p] {
				score += linkBonus
				break
			}
		}
		if score < MinMemoryScore {
			continue
		}
		it := c.it
		out = append(out, MemoryHit{ID: it.ID, Type: it.Type, Kind: it.Kind, Subject: it.Subject, Text: it.Text,
			Tags: it.Tags, Paths: it.Paths, Created: it.Created.UTC().Format(time.RFC3339), Score: math.Round(score*1000) / 1000})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Created > out[j].Created
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
