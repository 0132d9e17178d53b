package recall

import (
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/memref"
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
	// Scope is repository (a fact) or personal (one person's preference).
	Scope string `json:"scope,omitempty"`
	// Author wrote the entry; Session is the agent session it came from.
	Author  string `json:"author,omitempty"`
	Session string `json:"session,omitempty"`
	// Freshness says whether the code a memory cites is as it was when
	// the memory was saved: fresh, stale (with why and the commit that
	// changed it) or obsolete; uncited memories carry none.
	Freshness *durable.Freshness `json:"freshness,omitempty"`
}

// A memory whose cited code changed ranks lower, and one whose code is
// gone lower still; an uncited memory past konteks.memories.expire is
// not returned.
const (
	staleFactor    = 0.5
	obsoleteFactor = 0.25
)

// caseBonus is what a past case adds when the task quotes its error: a
// new task that meets the same error finds how it was fixed.
const caseBonus = 4.0

// DurableMatcher holds the analysed live entries of one memory tree.
type DurableMatcher struct {
	cands []durableCand
	df    map[string]int

	once  sync.Once
	mu    sync.Mutex
	v     *durable.Verifier
	fresh map[string]durable.Freshness
}

type durableCand struct {
	it    durable.Item
	terms map[string]bool
	err   []string // a case's error terms
}

// Verify has the matcher check the citations of the memories it returns
// against the code mem describes (once: later calls keep the first
// verifier, as a matcher belongs to one memory tree).
func (m *DurableMatcher) Verify(repo *gitstore.Repo, mem *memref.Memory) *DurableMatcher {
	if m == nil || repo == nil {
		return m
	}
	m.once.Do(func() {
		m.v = durable.NewVerifier(repo, mem)
		m.fresh = map[string]durable.Freshness{}
	})
	return m
}

// freshness of an entry (nil when not verified or uncited).
func (m *DurableMatcher) freshness(it durable.Item) *durable.Freshness {
	if m.v == nil || it.Type != durable.TypeMemory {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.fresh[it.ID]
	if !ok {
		f = m.v.Check(it.Entry)
		m.fresh[it.ID] = f
	}
	if f.Status == durable.Uncited {
		return nil
	}
	return &f
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
		c := durableCand{it: it, terms: ts}
		if it.Kind == "case" && it.Subject != "" {
			c.err = index.Terms(it.Subject)
		}
		m.cands = append(m.cands, c)
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
	inTask := map[string]bool{}
	for _, t := range query {
		inTask[t] = true
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
		if len(c.err) >= 2 {
			n := 0
			for _, t := range c.err {
				if inTask[t] {
					n++
				}
			}
			if float64(n) >= 0.6*float64(len(c.err)) {
				score += caseBonus
			}
		}
		if score < MinMemoryScore {
			continue
		}
		it := c.it
		f := m.freshness(it)
		if f != nil {
			switch f.Status {
			case durable.Expired:
				continue
			case durable.Stale:
				score *= staleFactor
			case durable.Obsolete:
				score *= obsoleteFactor
			}
		}
		out = append(out, MemoryHit{ID: it.ID, Type: it.Type, Kind: it.Kind, Subject: it.Subject, Text: it.Text,
			Tags: it.Tags, Paths: it.Paths, Created: it.Created.UTC().Format(time.RFC3339), Score: math.Round(score*1000) / 1000,
			Scope: it.Scope, Author: it.Author, Session: it.Session, Freshness: f})
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

// Note is what a reader should know about a memory's freshness, for text
// output: "" when fresh or uncited, else "[stale: why]" or
// "[obsolete: why]".
func (h MemoryHit) Note() string {
	if h.Freshness == nil || h.Freshness.Status == durable.Fresh {
		return ""
	}
	return "[" + h.Freshness.Status + ": " + h.Freshness.Why + "]"
}
