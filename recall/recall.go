// Package recall answers a question from memory: it ranks the sections of
// the memory ref for a task and fits the best of them into a context pack
// for an agent. Ranking has two stages: a pipeline finds and orders the
// candidates (hybrid BM25 and vector search fused by their normalised
// scores, FuseScores, the default; reciprocal rank fusion, FuseRanks, is
// the alternative; then priors, graph and history signals), and a learned
// ranker re-orders its first files by a linear model over their features
// (learn.go), whose softmax also calibrates the evidence label
// (strength.go). It only reads memory.
package recall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Modes of ranking.
const (
	Hybrid  = "hybrid"  // BM25 and vector candidates fused (default)
	Lexical = "lexical" // BM25 only
	Vector  = "vector"  // vector search only
)

// Hit is one ranked section.
type Hit struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Kind      string  `json:"kind"`
	Symbol    string  `json:"symbol,omitempty"`
	Name      string  `json:"name"` // qualified symbol name or heading path
	Anchor    string  `json:"anchor"`
	Score     float64 `json:"score"`
	Summary   string  `json:"summary"`
	Snippet   string  `json:"snippet"`
	// Via says why a hit whose own text may not match the task is here:
	// past commits like the task changed its file, its file usually
	// changes with a better hit (see HistoryRanking), or it declares the
	// kind of change the task states (a manifest, the documentation's
	// configuration; see kindFloor). Empty when its text matched.
	Via string `json:"via,omitempty"`
	// Content is the section's whole text (for context packs).
	Content  string `json:"-"`
	Language string `json:"-"`
	doc      int
}

// Result is the answer to one query.
type Result struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
	// Memory describes which source commit the memory (and so the answer)
	// reflects, and whether HEAD has moved past it.
	Memory MemoryState `json:"memory"`
	Mode   string      `json:"mode"`            // ranking that ran
	Notes  []string    `json:"notes,omitempty"` // fallbacks and caveats, for people and agents
	// Confidence is the learned ranker's probability that an answer is
	// among the first ConfidenceFiles files of the ranking (0 when it did
	// not run): what the evidence label is calibrated on. It depends on
	// the ranking only, never on how many hits are asked for.
	Confidence float64 `json:"confidence,omitempty"`
}

// MemoryState says what memory an answer comes from.
type MemoryState struct {
	Commit       string `json:"commit"`        // memory commit
	SourceCommit string `json:"source_commit"` // the source commit memory describes
	Head         string `json:"head,omitempty"`
	HeadMoved    bool   `json:"head_moved"` // HEAD is not the source commit
	HeadAhead    bool   `json:"head_ahead"` // ... and descends from it
	// CommitsAhead counts the commits of HEAD memory has not seen,
	// CommitsBehind those memory describes that HEAD does not have
	// (another line of history); Approximate marks counts that stopped
	// at gitstore.MaxWalk commits.
	CommitsAhead  int    `json:"commits_ahead,omitempty"`
	CommitsBehind int    `json:"commits_behind,omitempty"`
	Approximate   bool   `json:"approximate,omitempty"`
	Index         string `json:"index"` // current, update, build, stale
}

// Options control a search.
type Options struct {
	Limit int    // hits returned (default 10)
	Mode  string // Hybrid (default), Lexical or Vector
	// PerFile is the most hits of one file (default 1: an answer lists
	// places, and a file's further sections are a read away; <0: no
	// limit).
	PerFile int
	// NoContent leaves Summary, Snippet and Content empty (ranking only:
	// no record is read).
	NoContent bool
	// Ranking overrides DefaultRanking.
	Ranking *Ranking
	// Paths filters by path: globs (*, **, ?, [...]) one of which a
	// hit's path or one of its directories must match, and, prefixed
	// with "!", globs none of which it may match. A glob without a slash
	// matches a name at any depth ("*.go", "!vendor").
	Paths []string
	// Tests filters test code (test files and test functions):
	// TestsInclude (the default), TestsExclude or TestsOnly.
	Tests string
}

// Searcher answers queries from one memory commit through its index.
type Searcher struct {
	repo  *gitstore.Repo
	mem   *memref.Memory
	ix    *index.Index
	emb   embed.Embedder
	state MemoryState
	notes []string
	cache map[string]*memory.File
	blobs map[gitstore.Hash][]byte
	// blobBytes is the size of the blobs held (bounded by
	// maxCachedBlobBytes).
	blobBytes int
}

// OpenOptions control Open.
type OpenOptions struct {
	// Embedder embeds queries; nil uses the one configured for the
	// repository (git config konteks.embed.*).
	Embedder embed.Embedder
	// NoEmbedder turns vector search off.
	NoEmbedder bool
	// Memory is the memory commit to search; nil reads refs/konteks.
	Memory *memref.Memory
	// Building is called before the search index is built from scratch
	// (see index.Options.Building).
	Building func(records int)
	// Fresh are records this process just wrote, for the index update
	// (see index.Options.Fresh).
	Fresh map[gitstore.Hash]*memory.File
}

// ErrNoMemory is returned when the repository has no memory yet.
var ErrNoMemory = errors.New("no memory yet: run `git konteks extract`")

// Open reads memory and opens (updating or building as needed) its index.
func Open(ctx context.Context, repo *gitstore.Repo, opt OpenOptions) (*Searcher, error) {
	mem := opt.Memory
	if mem == nil {
		var err error
		mem, err = memref.Read(repo, memory.Ref)
		if err != nil {
			return nil, fmt.Errorf("%w; run `git konteks extract --mode rebuild`", err)
		}
		if mem == nil {
			return nil, ErrNoMemory
		}
	}
	s := &Searcher{repo: repo, mem: mem, cache: map[string]*memory.File{}, blobs: map[gitstore.Hash][]byte{}}
	emb := opt.Embedder
	if emb == nil && !opt.NoEmbedder {
		var err error
		emb, err = embed.Configured(repo.ConfigValues("konteks.embed."))
		if err != nil {
			s.notes = append(s.notes, fmt.Sprintf("embedder: %v; lexical search only", err))
			emb = nil
		}
	}
	s.emb = emb
	model := ""
	if emb != nil {
		model = emb.Model()
	}
	ix, err := index.Open(ctx, repo, mem, index.Options{Model: model, Building: opt.Building, Fresh: opt.Fresh})
	if err != nil {
		return nil, err
	}
	s.ix = ix
	if ix.Stale {
		s.notes = append(s.notes, fmt.Sprintf("the index is being updated by another process; answering from memory %.12s", ix.Memory))
	}
	s.state = MemoryState{Commit: ix.Memory.String(), Index: ix.How}
	if mem.Manifest != nil {
		s.state.SourceCommit = mem.Manifest.SourceCommit
		if ix.Stale {
			if old, err := memref.ReadCommit(repo, ix.Memory); err == nil && old.Manifest != nil {
				s.state.SourceCommit = old.Manifest.SourceCommit
			}
		}
	}
	if head, err := repo.Resolve("HEAD"); err == nil {
		s.state.relate(repo, head.Hash)
	}
	switch {
	case emb == nil:
	case ix.Model() != model:
		// Only a stale generation (another process is building the one
		// for this model) can be of another model.
		s.notes = append(s.notes, fmt.Sprintf("the index holds no vectors of %s yet (it is being built); lexical search only", model))
	case ix.Vectors() == 0 && ix.Len() > 0 && embed.StoredInRef(model):
		s.notes = append(s.notes, fmt.Sprintf("memory holds no vectors of %s (run `git konteks extract` with it configured); lexical search only", model))
	case ix.Vectors() == 0 && ix.Len() > 0:
		s.notes = append(s.notes, fmt.Sprintf("no section has a vector of %s; lexical search only", model))
	}
	if n := history.ReachNote(s.mem); n != "" {
		s.notes = append(s.notes, n)
	}
	return s, nil
}

// Close releases the index.
func (s *Searcher) Close() error { return s.ix.Close() }

// Index is the open index.
func (s *Searcher) Index() *index.Index { return s.ix }

// State says what memory the searcher answers from.
func (s *Searcher) State() MemoryState { return s.state }

// Ranking holds the weights of the ranking. DefaultRanking is what recall
// uses; the evaluation (scripts/eval) compares others against it.
type Ranking struct {
	Candidates int     // candidates taken from each ranking
	RRFK       float64 // reciprocal rank fusion constant
	// Fusion weights of the lexical and vector rankings of sections, of
	// BM25 over whole files, and of the sections' per-file aggregates.
	Lexical, Vector, Files, File float64
	// FileLength scales the average file length of whole-file BM25 (1:
	// the true average).
	FileLength float64
	// Fusion is how rankings combine: FuseRanks (reciprocal rank) or
	// FuseScores (min-max scaled scores).
	Fusion string
	// Definition multiplies the score of a symbol definition (function,
	// type, class, ...) over other sections (comments, blocks, files).
	Definition float64
	// Name multiplies the score of a section whose name's words all occur
	// in the query.
	Name float64
	// Area scales the area prior: the share of the candidates' total score
	// that falls in the section's directory.
	Area float64
	// Expand is how many co-occurring terms expand a query before it is
	// embedded.
	Expand int
	// Compounds weighs the words of a query's first line joined in pairs
	// and triples ("read the docs" → readthedocs, "time out" → timeout),
	// which match identifiers and file names people spell as words.
	Compounds float64 `json:",omitempty"`
	// Subject is the extra weight of the terms of a query's first line
	// when more lines follow (a task's title over its details).
	Subject float64 `json:",omitempty"`
	// Vocabulary weighs the repository's own forms of the query's words
	// (router for routing, discovery for discovered; see expandTerms)
	// against the words themselves.
	Vocabulary float64 `json:",omitempty"`
	// Question scales the weight of a query's question words ("done",
	// "why", "should"; see questionWords), which never match names.
	Question float64 `json:",omitempty"`
	// Tests multiplies the score of test code (test files, test
	// functions) when the query is not about tests: an implementation
	// answers "where" and "how" before the tests that exercise it.
	Tests float64 `json:",omitempty"`
	// Mentions multiplies the score of a section whose path the query
	// names ("discovery/ionos", "context.go:173"; see pathMentions), and
	// again of one whose name it spells as code (NetRCAuth,
	// redirect_url; see symbolMentions).
	Mentions float64 `json:",omitempty"`
	// Hyphenated multiplies the score of a section under a directory, or
	// in a file, that the query names as a hyphenated word
	// ("sinatra-contrib", "ui-commits"; see hyphenMentions).
	Hyphenated float64 `json:",omitempty"`
	// HyphenIdents weighs the identifier a hyphenated word of the query
	// becomes in code ("tower-http" → tower_http, the name a Rust crate
	// or Python package is imported by; see addHyphenIdents).
	HyphenIdents float64 `json:",omitempty"`
	// NamedFile multiplies the score of a section in a file every word
	// of whose name the task's first line says ("fish shell completion":
	// fish_completions.go; see fileNamed).
	NamedFile float64 `json:",omitempty"`
	// Packaging multiplies the score of a manifest, version file or
	// changelog when the task's first line speaks of releases, versions
	// or dependencies; Docs that of documentation when it speaks of docs
	// (see kindPrior). CI does the same for continuous integration
	// files ("CI: ...", "workflow"), TestType for test code when the task
	// is a conventional commit of type test ("test: ...").
	Packaging float64 `json:",omitempty"`
	// Changelog multiplies the score of a changelog (CHANGELOG.md,
	// HISTORY.md, NEWS, ...) when the task's first line does not speak
	// of releases, versions or dependencies: a changelog says a little of
	// every change, so its words match every task, but it is where a
	// change is recorded, not where it is made.
	Changelog float64 `json:",omitempty"`
	// ManifestFloor lifts the root manifests (pyproject.toml,
	// package.json, Cargo.toml, ...) to at least ManifestFloor·(the best
	// score) when the first line speaks of packaging (see
	// kindFloor); DocsFloor does the same for the documentation tools'
	// configuration (mkdocs.yml, docs/conf.py, ...) when it speaks of
	// docs. 0 turns either off.
	ManifestFloor float64 `json:",omitempty"`
	DocsFloor     float64 `json:",omitempty"`
	Docs          float64 `json:",omitempty"`
	CI            float64 `json:",omitempty"`
	TestType      float64 `json:",omitempty"`
	// Fields weighs matches in names and paths against the text.
	Fields index.Boosts
	// Learned re-orders the pipeline's first files by a model fitted on
	// training repositories (learn.go); nil leaves the pipeline's order.
	Learned *LearnedRanking `json:",omitempty"`
	// History weighs the signal of past commits (history.go).
	HistoryRanking
	// Graph weighs the signal of the code graph (graph.go).
	GraphRanking
}

// Fusion methods.
const (
	FuseRanks  = "ranks"
	FuseScores = "scores"
)

// DefaultRanking is the ranking recall uses.
//
// The weights come from scripts/eval (make eval) on four repositories'
// histories (cobra, express, flask, prometheus; 400 queries): score fusion
// beat reciprocal rank fusion there (recall@10 0.762 and MRR 0.644 against
// 0.747 and 0.563), and vectors at half the weight of the lexical rankings
// gave the best MRR at the best recall@10.
var DefaultRanking = Ranking{
	Candidates: 200, RRFK: 60, Fusion: FuseScores,
	Lexical: 1, Vector: 0.5, Files: 1, File: 0,
	Definition: 1.15, Name: 1.3, Area: 0.25,
	Expand: 6,
	// A title's terms count twice: on the eval's 560 commit messages,
	// recall@10 0.824 → 0.828 and MRR 0.663 → 0.666 (0.5–4 all within
	// 0.004 of that, no repository down by more than 0.002).
	Subject: 1,
	// Compounds: "read the docs" finds .readthedocs.yaml; on the eval
	// 0.6 and 1 moved the totals by at most +0.004 (recall@5), a wash
	// that fixes a real failure; the lower weight risks less.
	Compounds: 0.6,
	// Question words, the repository's vocabulary, tests after their
	// implementations and named paths and symbols: on the eval's issue
	// set (29 issues, 8 repositories) hit@10 0.931 and MRR 0.673 → 0.732;
	// on its commit set (440 commits, 11 repositories) hit@10 0.911 →
	// 0.923, MRR 0.718 → 0.709 (see docs/evaluation.md).
	Vocabulary: 0.4,
	Question:   0.3,
	Tests:      0.6,
	Mentions:   1.5,
	// Hyphenated names and the kind of change a task's first line
	// states: on the eval's commit set (440 commits, 11 repositories)
	// hit@10 0.930 → 0.939 and MRR 0.717 → 0.738, each helping when
	// switched off alone; the issue set does not move (see
	// docs/evaluation.md).
	Hyphenated: 1.5,
	// A file every word of whose name the first line says: on the
	// eval's issue set (101 issues, 11 repositories) hit@10 0.950 →
	// 0.960 and MRR 0.758 → 0.783; on its commit set (520 commits, 13
	// repositories) 0.935 → 0.937 and 0.720 → 0.734; 1.5 gave less on
	// both (see docs/evaluation.md).
	NamedFile: 2,
	Packaging: 2,
	Docs:      1.5,
	CI:        2,
	TestType:  2,
	// Changelogs after the code, the floors of the files that declare a
	// kind, hyphenated words as identifiers (and the packaging
	// vocabulary of kindWords and packagingPhrase): on the eval's commit
	// set (440 commits, 11 repositories) hit@10 0.943 → 0.952 and MRR
	// 0.748 → 0.752, held out 0.938 → 0.950 and 0.738 → 0.742; on its
	// issue set (101 issues) 0.960 → 0.970, MRR 0.780 → 0.781. Each
	// switched off alone, commits / issues hit@10 / MRR: changelogs at
	// full weight 0.952 / 0.748 and 0.960 / 0.781 (the issue missed is a
	// gin fix whose changelog entry outranked it; 0.3 cost two commits'
	// ranks); no manifest floor 0.945 / 0.751 (three commits, one held
	// out; 0.35 cost prometheus one); no docs floor 0.952 / 0.751 (one
	// held-out commit gained, one tuned lost; 0.4 the same); no
	// identifiers 0.950 / 0.752 (axum's "tower-http" 9 → 71). The issue
	// set moves only with the changelogs (see docs/evaluation.md).
	Changelog:     0.5,
	ManifestFloor: 0.25,
	DocsFloor:     0.25,
	HyphenIdents:  1,
	Fields:        index.DefaultBoosts,
	// History: see HistoryRanking (history.go) for the evaluation.
	HistoryRanking: DefaultHistoryRanking,
	// The pipeline's first files re-ordered by the learned ranker
	// (learn.go, learned_weights.go).
	Learned: &learnedRanking,
}

// definitions are the symbols that define something.
var definitions = map[string]bool{
	"function": true, "method": true, "class": true, "type": true, "interface": true, "struct": true,
	"enum": true, "trait": true, "module": true, "constructor": true, "macro": true, "record": true,
	"protocol": true, "object": true, "impl": true, "const": true, "var": true, "variable": true,
}

// candidateSet is where both searches start: the filters of their
// options and the index's hits for the query, ranked.
type candidateSet struct {
	flt        *filter
	ranked     []index.Hit
	via        map[int]string
	mode       string   // the mode that answered
	notes      []string // the searcher's notes, then the ranking's
	confidence float64
}

// candidates ranks the index's hits for q in opt.Mode (hybrid when
// empty) with opt.Ranking (DefaultRanking when nil), for Search and
// SearchFiles to keep what the filters of opt let through.
func (s *Searcher) candidates(ctx context.Context, q string, opt Options) (*candidateSet, error) {
	flt, err := newFilter(opt)
	if err != nil {
		return nil, err
	}
	mode := opt.Mode
	if mode == "" {
		mode = Hybrid
	}
	rk := DefaultRanking
	if opt.Ranking != nil {
		rk = *opt.Ranking
	}
	var ex rankExtras
	ranked, mode, notes, via, err := s.rankMore(ctx, q, mode, &rk, &ex)
	if err != nil {
		return nil, err
	}
	return &candidateSet{flt: flt, ranked: ranked, via: via, mode: mode,
		notes: append(append([]string(nil), s.notes...), notes...), confidence: ex.confidence}, nil
}

// Search ranks memory's sections for a query.
func (s *Searcher) Search(ctx context.Context, q string, opt Options) (*Result, error) {
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	if opt.PerFile == 0 {
		opt.PerFile = 1
	}
	c, err := s.candidates(ctx, q, opt)
	if err != nil {
		return nil, err
	}
	flt, ranked, via := c.flt, c.ranked, c.via
	res := &Result{Query: q, Memory: s.state, Mode: c.mode, Notes: c.notes, Confidence: c.confidence}
	perFile := map[string]int{}
	checkout, dropped := newCheckoutFilter(s.repo, s.state), 0
	for _, h := range ranked {
		if len(res.Hits) >= opt.Limit {
			break
		}
		d := s.ix.Doc(h.Doc)
		if opt.PerFile > 0 && perFile[d.Path] >= opt.PerFile || !flt.keep(&d) {
			continue
		}
		if !checkout.has(d.Path) {
			dropped++
			continue
		}
		perFile[d.Path]++
		res.Hits = append(res.Hits, s.hit(h, d, via[h.Doc]))
	}
	if dropped > 0 {
		res.Notes = append(res.Notes, checkout.note(dropped))
	}
	if !opt.NoContent {
		if err := s.fill(res.Hits); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// rank returns every candidate, best first, and why (by doc) those the
// history floors placed are there.
func (s *Searcher) rank(ctx context.Context, q, mode string, rk *Ranking) ([]index.Hit, string, []string, map[int]string, error) {
	return s.rankMore(ctx, q, mode, rk, nil)
}

// rankMore is rank that also fills ex, when it is not nil: the features
// of the pipeline's first files (ex.depth of them; see Features) and the
// learned ranker's confidence.
func (s *Searcher) rankMore(ctx context.Context, q, mode string, rk *Ranking, ex *rankExtras) ([]index.Hit, string, []string, map[int]string, error) {
	var notes []string
	var sig *signals
	depth := 0
	if ex != nil && ex.depth > 0 || rk.Learned != nil {
		sig = newSignals()
		if ex != nil {
			depth = ex.depth
		}
		if depth <= 0 {
			depth = rk.Learned.Depth
		}
	}
	task := ParseTask(q)
	terms := task.Terms(rk.Subject)
	markQuestionWords(terms, rk.Question)
	if rk.Compounds > 0 {
		terms = addCompounds(terms, q, rk.Compounds)
	}
	if rk.HyphenIdents > 0 {
		terms = addHyphenIdents(terms, q, rk.HyphenIdents)
	}
	terms = s.expandTerms(terms, rk.Vocabulary)
	// Whole files rank (in their own bleve index) while sections do.
	var files []index.FileHit
	var filesErr error
	var filesRan sync.WaitGroup
	filesEarly := mode != Vector && rk.Files > 0
	if filesEarly {
		ft := slices.Clone(terms)
		filesRan.Go(func() { files, filesErr = s.ix.Files(ctx, ft, rk.Candidates, rk.FileLength) })
	}
	defer filesRan.Wait()
	var lex, vec []index.Hit
	var err error
	if mode != Vector {
		lex, err = s.ix.Lexical(ctx, terms, rk.Fields, rk.Candidates)
		if err != nil {
			return nil, mode, nil, nil, err
		}
	}
	if mode != Lexical {
		switch {
		case s.emb == nil:
			notes = append(notes, "no embedder configured; lexical search only")
		case s.ix.Vectors() == 0 || s.ix.Model() != s.emb.Model():
			// Open already said why.
		default:
			vtext := task.EmbeddingText()
			if exp := s.expansion(terms, lex, rk.Expand); len(exp) > 0 {
				vtext += "\n" + strings.Join(exp, " ")
			}
			vs, err := s.emb.Embed(ctx, []string{vtext})
			if err != nil {
				if ctx.Err() != nil {
					return nil, mode, nil, nil, ctx.Err()
				}
				notes = append(notes, fmt.Sprintf("embedding the query failed (%v); lexical search only", err))
			} else if len(vs) == 1 {
				vec = s.ix.Nearest(embed.Quantize(vs[0]), rk.Candidates)
			}
		}
		if vec == nil {
			if mode == Vector {
				notes = append(notes, "vector search unavailable; answering with lexical search")
				if lex == nil {
					if lex, err = s.ix.Lexical(ctx, terms, rk.Fields, rk.Candidates); err != nil {
						return nil, mode, nil, nil, err
					}
				}
			}
			mode = Lexical
		}
	}
	filesRan.Wait()
	if filesErr != nil {
		return nil, mode, nil, nil, filesErr
	}
	if !filesEarly && mode != Vector && rk.Files > 0 { // vector search fell back to lexical
		if files, err = s.ix.Files(ctx, terms, rk.Candidates, rk.FileLength); err != nil {
			return nil, mode, nil, nil, err
		}
	}
	if mode == Vector {
		files = nil
	}
	var fused map[int]float64
	if rk.Fusion == FuseScores {
		fused = s.fuseScores(lex, vec, files, rk, sig)
	} else {
		fused = s.fuseRanks(lex, vec, files, rk)
	}
	out := make([]index.Hit, 0, len(fused))
	for d, sc := range fused {
		out = append(out, index.Hit{Doc: d, Score: sc})
	}
	// In document order, not the map's: the priors sum scores over the
	// candidates, and a float sum in another order differs in its last
	// bits, enough to swap two near-equal hits from one call to the next.
	slices.SortFunc(out, func(a, b index.Hit) int { return a.Doc - b.Doc })
	s.boost(out, terms, rk)
	if rk.Mentions > 0 && rk.Mentions != 1 {
		ps, syms := task.Paths, task.Symbols
		for i := range out {
			if len(ps) == 0 && len(syms) == 0 {
				break
			}
			d := s.ix.Doc(out[i].Doc)
			if mentioned(d.Path, ps) {
				out[i].Score *= rk.Mentions
			}
			if syms[strings.ToLower(d.Name)] {
				out[i].Score *= rk.Mentions
			}
		}
	}
	if rk.Hyphenated > 0 && rk.Hyphenated != 1 {
		if hs := task.Hyphens; len(hs) > 0 {
			for i := range out {
				if namedComponent(s.ix.Doc(out[i].Doc).Path, hs) {
					out[i].Score *= rk.Hyphenated
				}
			}
		}
	}
	if rk.NamedFile > 0 && rk.NamedFile != 1 {
		// When the first line states a kind of change ("docs: describe
		// the client's timeouts"), a file it names is one of that kind.
		terms, named, kinds := firstLineTerms(q), map[string]bool{}, taskKinds(q)
		for i := range out {
			d := s.ix.Doc(out[i].Doc)
			p := d.Path
			n, ok := named[p]
			if !ok {
				n = fileNamed(p, terms) && (kinds == 0 || pathKinds(p, d.Kind)&kinds != 0)
				named[p] = n
			}
			if n {
				out[i].Score *= rk.NamedFile
			}
		}
	}
	s.kindPrior(out, q, rk)
	out = s.graphSignal(ctx, out, rk)
	via := map[int]string{}
	out = s.historySignal(ctx, q, terms, out, rk, via, sig)
	out = s.companionSignal(out, rk, via)
	out = s.kindFloor(out, q, rk, via)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Doc < out[j].Doc
	})
	if sig != nil && depth > 0 {
		feats := s.fileFeatures(out, task, terms, q, sig, via, depth)
		if ex != nil {
			ex.features = feats
		}
		if rk.Learned != nil {
			var conf float64
			out, conf = rerank(out, feats, rk.Learned, func(d int) string { return s.ix.Doc(d).Path })
			if ex != nil {
				ex.confidence = conf
			}
		}
	}
	return out, mode, notes, via, nil
}

// addCompounds adds to terms the adjacent words of the query's first line
// (at most maxCompoundWords of them) joined in pairs and triples, at
// weight w, when each is all lowercase ASCII letters and the compound is
// not a term already. A compound no section holds costs a term lookup and
// changes nothing.
func addCompounds(terms []index.Term, q string, w float64) []index.Term {
	first, _, _ := strings.Cut(q, "\n")
	var words []string
	for _, f := range strings.FieldsFunc(strings.ToLower(first), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
		if len(words) == maxCompoundWords {
			break
		}
		words = append(words, f)
	}
	have := map[string]bool{}
	for _, t := range terms {
		have[t.Text] = true
	}
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(words); i++ {
			c := strings.Join(words[i:i+n], "")
			if len(c) > 24 {
				continue
			}
			// Analysed as the index analyses a word (stemmed).
			ts := index.QueryTerms(c)
			if len(ts) != 1 || have[ts[0].Text] {
				continue
			}
			have[ts[0].Text] = true
			terms = append(terms, index.Term{Text: ts[0].Text, Weight: w})
		}
	}
	return terms
}

// addHyphenIdents adds to terms, at weight w, each hyphenated word of
// the query (see hyphenMentions) spelled with underscores: a package
// named tower-http is imported as tower_http (Rust crates, Python
// distributions), and code says the underscored name whole, where the
// hyphenated word's parts ("tower", "http") match everywhere.
func addHyphenIdents(terms []index.Term, q string, w float64) []index.Term {
	have := map[string]bool{}
	for _, t := range terms {
		have[t.Text] = true
	}
	for _, h := range hyphenMentions(q) {
		ts := index.QueryTerms(strings.ReplaceAll(h, "-", "_"))
		if len(ts) < 2 || have[ts[0].Text] {
			continue
		}
		have[ts[0].Text] = true
		terms = append(terms, index.Term{Text: ts[0].Text, Weight: w})
	}
	return terms
}

// maxCompoundWords bounds the words addCompounds joins.
const maxCompoundWords = 16

// fuseRanks fuses rankings by reciprocal rank.
func (s *Searcher) fuseRanks(lex, vec []index.Hit, files []index.FileHit, rk *Ranking) map[int]float64 {
	fused := map[int]float64{}
	add := func(hs []index.Hit, w float64) {
		for r, h := range hs {
			fused[h.Doc] += w / (rk.RRFK + float64(r+1))
		}
	}
	add(lex, rk.Lexical)
	add(vec, rk.Vector)
	if rk.File > 0 {
		add(s.byFile(lex), rk.File)
		add(s.byFile(vec), rk.File)
	}
	if len(files) > 0 {
		add(s.fileSections(files, fused), rk.Files)
	}
	return fused
}

// fuseScores fuses rankings by their scores, each scaled to [0, 1] over
// its candidates (min-max): unlike ranks, scores keep how far ahead the
// leaders are. Every candidate section also gets its file's whole-file
// score, so the file decides first and the section's own match second.
func (s *Searcher) fuseScores(lex, vec []index.Hit, files []index.FileHit, rk *Ranking, sig *signals) map[int]float64 {
	fused := map[int]float64{}
	norm := func(hs []index.Hit, w float64, keep map[int]float64) {
		if len(hs) == 0 || w == 0 {
			return
		}
		hi, lo := hs[0].Score, hs[len(hs)-1].Score
		for _, h := range hs {
			v := 1.0
			if hi > lo {
				v = (h.Score - lo) / (hi - lo)
			}
			fused[h.Doc] += w * v
			if keep != nil {
				keep[h.Doc] = v
			}
		}
	}
	var keepLex, keepVec map[int]float64
	if sig != nil {
		keepLex, keepVec = sig.lex, sig.vec
	}
	norm(lex, rk.Lexical, keepLex)
	norm(vec, rk.Vector, keepVec)
	if len(files) == 0 {
		return fused
	}
	for _, h := range s.fileSections(files, fused) {
		if _, ok := fused[h.Doc]; !ok {
			fused[h.Doc] = 0
		}
	}
	hi, lo := files[0].Score, files[len(files)-1].Score
	fileScore := make(map[string]float64, len(files))
	for _, f := range files {
		v := 1.0
		if hi > lo {
			v = (f.Score - lo) / (hi - lo)
		}
		fileScore[f.Path] = v
		if sig != nil {
			sig.file[f.Path] = v
		}
	}
	for d := range fused {
		fused[d] += rk.Files * fileScore[s.ix.Doc(d).Path]
	}
	return fused
}

// fileSections turns a ranking of whole files into one of sections: each
// file is represented by its best section so far (fused holds the scores
// of the section rankings), or by its first section when none of its
// sections ranked.
func (s *Searcher) fileSections(files []index.FileHit, fused map[int]float64) []index.Hit {
	out := make([]index.Hit, 0, len(files))
	for _, f := range files {
		docs := s.ix.PathDocs(f.Path)
		if len(docs) == 0 {
			continue
		}
		best, bestScore, first, firstLine := -1, 0.0, docs[0], 0
		for _, d := range docs {
			if sc, ok := fused[d]; ok && (best < 0 || sc > bestScore) {
				best, bestScore = d, sc
			}
			if best < 0 {
				if l := s.ix.StartLine(d); firstLine == 0 || l < firstLine {
					first, firstLine = d, l
				}
			}
		}
		if best < 0 {
			best = first
		}
		out = append(out, index.Hit{Doc: best, Score: f.Score})
	}
	return out
}

// byFile ranks the files of a ranking by the evidence of all their
// sections, not only their best one: a file whose several sections match
// is a better answer than one with a single lucky match. Each file is
// represented by its best section. Scores decay by rank within the file
// (1, 1/2, 1/3, ...), so one long file cannot win on volume alone.
func (s *Searcher) byFile(hs []index.Hit) []index.Hit {
	type agg struct {
		best  int
		n     int
		score float64
	}
	files := map[string]*agg{}
	var order []string
	for _, h := range hs {
		if h.Score <= 0 {
			continue
		}
		p := s.ix.Doc(h.Doc).Path
		a := files[p]
		if a == nil {
			a = &agg{best: h.Doc}
			files[p] = a
			order = append(order, p)
		}
		a.n++
		a.score += h.Score / float64(a.n)
	}
	out := make([]index.Hit, 0, len(order))
	for _, p := range order {
		out = append(out, index.Hit{Doc: files[p].best, Score: files[p].score})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// boost applies the priors: symbol definitions, names the query spells
// out, and the areas (directories) the candidates concentrate in.
func (s *Searcher) boost(hs []index.Hit, terms []index.Term, rk *Ranking) {
	if len(hs) == 0 {
		return
	}
	qset := map[string]bool{}
	for _, t := range terms {
		if !t.TextOnly {
			qset[t.Text] = true
		}
	}
	demoteTests := rk.Tests > 0 && rk.Tests != 1 && !testQuery(terms)

	area := map[string]float64{}
	var total float64
	docs := make([]index.Doc, len(hs))
	for i, h := range hs {
		docs[i] = s.ix.Doc(h.Doc)
		area[path.Dir(docs[i].Path)] += h.Score
		total += h.Score
	}
	for i := range hs {
		d := &docs[i]
		f := 1.0
		if definitions[d.Symbol] {
			f *= rk.Definition
		}
		if nameMatches(d, qset) {
			f *= rk.Name
		}
		if demoteTests && isTestDoc(d) {
			f *= rk.Tests
		}

		if total > 0 {
			f *= 1 + rk.Area*area[path.Dir(d.Path)]/total
		}
		hs[i].Score *= f
	}
}

// nameMatches reports whether every word of the section's own name is a
// query term (a query naming parseConfig, or "parse config", matches).
func nameMatches(d *index.Doc, q map[string]bool) bool {
	if d.Name == "" {
		return false
	}
	ts := index.QueryTerms(d.Name)
	if len(ts) == 0 {
		return false
	}
	n := 0
	for _, t := range ts {
		if q[t.Text] {
			n++
		} else if len(ts) > 1 && !strings.Contains(d.Name, "_") && t.Text == strings.ToLower(d.Name) {
			// the whole compound form; its parts decide
			n++
		}
	}
	return n == len(ts)
}

// expansion picks terms that co-occur with the query in this repository:
// the topics shared by the best lexical hits that the query does not
// already say. Vectors are stored per text and reused across clones, so
// they cannot know the repository; this is where the repository's own
// vocabulary enters vector search.
func (s *Searcher) expansion(terms []index.Term, lex []index.Hit, k int) []string {
	if len(lex) == 0 || k <= 0 {
		return nil
	}
	q := map[string]bool{}
	for _, t := range terms {
		q[t.Text] = true
	}
	type cand struct {
		t     string
		score float64
		docs  int
	}
	cs := map[string]*cand{}
	n := min(10, len(lex))
	for r := 0; r < n; r++ {
		d := s.ix.Doc(lex[r].Doc)
		seen := map[string]bool{}
		for _, t := range d.Topics {
			ts := index.QueryTerms(t)
			if len(ts) != 1 || q[ts[0].Text] || seen[t] {
				continue
			}
			seen[t] = true
			c := cs[t]
			if c == nil {
				c = &cand{t: t}
				cs[t] = c
			}
			c.score += 1 / float64(r+2)
			c.docs++
		}
	}
	var list []*cand
	for _, c := range cs {
		if c.docs >= 2 {
			list = append(list, c)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].t < list[j].t
	})
	var out []string
	for _, c := range list {
		if len(out) >= k {
			break
		}
		out = append(out, c.t)
	}
	return out
}

// fill completes hits: the summary from the index; the section's text
// (snippet and content) from the source blob the record was made from,
// which costs a fraction of decoding the record, or from the record when
// the section is not plain lines of its file (PDF text, media metadata,
// ...) or the blob is not in this clone.
func (s *Searcher) fill(hits []Hit) error {
	for i := range hits {
		h := &hits[i]
		d := s.ix.Doc(h.doc)
		h.Summary = d.Summary
		if h.EndLine >= d.StartLine && h.EndLine < d.EndLine {
			d.EndLine = h.EndLine // a container's head (see head)
		}
		if text, ok := s.sourceLines(d); ok {
			h.Content = text
			h.Snippet = snippet(text, snippetLines, snippetBytes)
			continue
		}
		f, err := s.record(h.Path)
		if err != nil {
			return err
		}
		if f == nil {
			continue
		}
		for _, sec := range f.Sections {
			if sec.Anchor != h.Anchor {
				continue
			}
			h.Summary = sec.Summary
			h.Content = sec.Content
			h.Snippet = snippet(sec.Content, snippetLines, snippetBytes)
			break
		}
	}
	return nil
}

// lineKinds are the section kinds whose content is the lines of the file.
var lineKinds = map[string]bool{"code": true, "markdown": true, "rst": true, "asciidoc": true, "org": true, "json": true, "yaml": true, "toml": true}

// sourceLines returns a section's lines from its file's source blob, made
// valid UTF-8 without carriage returns as records are.
func (s *Searcher) sourceLines(d index.Doc) (string, bool) {
	if !lineKinds[d.Kind] || d.StartLine < 1 || d.EndLine < d.StartLine {
		return "", false
	}
	h := gitstore.ParseHash(d.Blob)
	if h.IsZero() {
		return "", false
	}
	data, ok := s.blobs[h]
	if !ok {
		b, err := s.repo.BlobBytes(h, maxSourceBlob)
		if err != nil || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			b = nil
		}
		data = b
		if s.blobBytes += len(b); s.blobBytes > maxCachedBlobBytes {
			// A long-lived searcher (the MCP server) must not keep every
			// blob it ever showed: start over.
			clear(s.blobs)
			s.blobBytes = len(b)
		}
		s.blobs[h] = data
	}
	if data == nil {
		return "", false
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, start := 1, 0
	for line < d.StartLine && start < len(data) {
		k := bytes.IndexByte(data[start:], '\n')
		if k < 0 {
			return "", false
		}
		start += k + 1
		line++
	}
	end := start
	for line <= d.EndLine && end < len(data) {
		k := bytes.IndexByte(data[end:], '\n')
		if k < 0 {
			end = len(data)
			break
		}
		end += k + 1
		line++
	}
	text := strings.ReplaceAll(string(data[start:end]), "\r", "")
	return strings.TrimSuffix(strings.ToValidUTF8(text, "\uFFFD"), "\n"), true
}

// maxSourceBlob bounds a source blob read for its lines (the gate keeps
// files up to 10 MiB).
const maxSourceBlob = 16 << 20

// record reads (once) the record of a path from the memory the index
// reflects.
func (s *Searcher) record(p string) (*memory.File, error) {
	if f, ok := s.cache[p]; ok {
		return f, nil
	}
	f, ok, err := memref.Record(s.repo, s.ix.Tree, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		f = nil
	}
	if len(s.cache) >= maxCachedRecords {
		clear(s.cache) // bounded, like the blobs
	}
	s.cache[p] = f
	return f, nil
}

// Bounds of a searcher's caches of records and source blobs.
const (
	maxCachedRecords   = 1024
	maxCachedBlobBytes = 64 << 20
)

// Snippet bounds.
const (
	snippetLines = 8
	snippetBytes = 600
)

// snippet is the start of a section's text: up to n lines and max bytes,
// cut at a line end when it can be, with trailing blank lines dropped.
func snippet(content string, n, maxBytes int) string {
	end := 0
	for i := 0; i < n && end < len(content); i++ {
		k := strings.IndexByte(content[end:], '\n')
		if k < 0 {
			end = len(content)
			break
		}
		end += k + 1
	}
	out := content[:end]
	if len(out) > maxBytes {
		cut := strings.LastIndexByte(out[:maxBytes], '\n')
		if cut <= 0 {
			cut = maxBytes
			for cut > 0 && cut < len(out) && out[cut]&0xC0 == 0x80 {
				cut--
			}
		}
		out = out[:cut]
	}
	return strings.TrimRight(out, "\n \t")
}
