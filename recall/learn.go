package recall

import (
	"context"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/index"
)

// The learned ranker. The ranking pipeline of rank (fusion, priors,
// graph, history, floors) finds the candidates and orders them; the
// learned ranker then re-orders the first Depth files of that order by a
// linear model over what the pipeline computed for each file: its
// signals, not its hand-set products. The model's weights are fitted by
// scripts/ranker on public training repositories (scripts/model/repos.tsv,
// none of them evaluated on), cross-validated by repository, and written
// to learned_weights.go; no weight is chosen by looking at an evaluation
// repository. docs/evaluation.md has the fit and its held-out numbers.

// LearnedRanking is a linear model over file features.
type LearnedRanking struct {
	// Depth is how many of the pipeline's best files the model re-orders;
	// the rest keep the pipeline's order after them.
	Depth int
	// Weights by feature name (see FeatureNames); a feature without a
	// weight counts 0.
	Weights map[string]float64
	// Strong and Weak are the thresholds of the evidence label on the
	// confidence (see Judge): at least Strong is strong, under Weak weak.
	// Fitted with the weights (scripts/ranker), on held-out repositories.
	Strong, Weak float64
}

// FeatureNames names the features of a candidate file, in the order of
// FileFeatures.X. Each is computed by fileFeatures; a change of meaning
// needs a new name (the weights are keyed by name).
var FeatureNames = []string{
	"pipe",       // the file's best pipeline score over the best file's (0..1]
	"pipe_rank",  // -ln(the file's rank in the pipeline's order)
	"lex",        // the best lexical (BM25 of sections) score of its sections, min-max scaled
	"vec",        // the best vector similarity of its sections, min-max scaled
	"file",       // BM25 over the whole file, min-max scaled
	"sections",   // ln(1 + how many of its sections are candidates)
	"definition", // its best section defines a symbol
	"name",       // a section's name is spelled by the task's words
	"test",       // test code, and the task is not about tests
	"test_task",  // test code, and the task is about tests
	"path_named", // the task names its path, a directory of it, or its file name
	"symbol",     // the task spells a section's name as code (NetRCAuth, parse_config)
	"hyphen",     // under a directory or in a file the task names as a hyphenated word
	"file_named", // every word of its file name is in the task's first line
	"kind",       // of a kind the task's first line states (packaging, docs, CI, tests)
	"changelog",  // a changelog, and the task is not about releases
	"docs",       // documentation (prose formats, docs directories, READMEs)
	"history",    // past commits whose messages match the task changed it (0..1)
	"cochange",   // it changes with the best files (0..1)
	"recency",    // how recently it changed, exp(-age/half-life)
	"churn",      // ln(1 + how many recorded commits changed it)
	"size",       // ln(1 + its number of sections)
	"example",    // under examples, samples, demos or benchmarks
	"lifted",     // a floor (history, kind) placed it
	"area",       // the share of all candidates' score in its directory
	// How long the task is, and the signals that may count differently
	// in a long task (an issue with its template, logs and code) than in
	// a one-line one: each such signal times the length.
	"length",         // ln(1 + the task's terms) / ln(101), at most 1
	"pipe_length",    // pipe × length
	"vec_length",     // vec × length
	"lex_length",     // lex × length
	"file_length",    // file × length
	"history_length", // history × length
	"named_length",   // (path_named or symbol) × length
}

// FileFeatures is a candidate file and its features.
type FileFeatures struct {
	Path string
	X    []float64
}

// signals holds, while rank runs, what each stage computed that the
// features read: the scaled scores of the section rankings by document,
// and the file-level signals by path.
type signals struct {
	lex, vec                   map[int]float64
	file                       map[string]float64
	history, cochange, recency map[string]float64
	churn                      map[string]float64
}

func newSignals() *signals {
	return &signals{
		lex: map[int]float64{}, vec: map[int]float64{}, file: map[string]float64{},
		history: map[string]float64{}, cochange: map[string]float64{}, recency: map[string]float64{},
		churn: map[string]float64{},
	}
}

// featureIndex maps a feature name to its position.
var featureIndex = func() map[string]int {
	m := make(map[string]int, len(FeatureNames))
	for i, n := range FeatureNames {
		m[n] = i
	}
	return m
}()

// fileFeatures computes the features of the first depth files of hs
// (sorted best first), in that order.
func (s *Searcher) fileFeatures(hs []index.Hit, task *Task, terms []index.Term, q string, sig *signals, via map[int]string, depth int) []FileFeatures {
	type file struct {
		best     int // index in hs of its best section
		n        int
		name     bool
		symbol   bool
		lex, vec float64
		lifted   bool
	}
	files := map[string]*file{}
	var order []string
	area := map[string]float64{}
	total := 0.0
	qset := map[string]bool{}
	for _, t := range terms {
		if !t.TextOnly {
			qset[t.Text] = true
		}
	}
	for i, h := range hs {
		d := s.ix.Doc(h.Doc)
		f := files[d.Path]
		if f == nil {
			if len(order) == depth {
				continue
			}
			f = &file{best: i}
			files[d.Path] = f
			order = append(order, d.Path)
		}
		f.n++
		if h.Score > 0 {
			area[path.Dir(d.Path)] += h.Score
			total += h.Score
		}
		if nameMatches(&d, qset) {
			f.name = true
		}
		if task.Symbols[strings.ToLower(d.Name)] {
			f.symbol = true
		}
		f.lex = max(f.lex, sig.lex[h.Doc])
		f.vec = max(f.vec, sig.vec[h.Doc])
		if via[h.Doc] != "" {
			f.lifted = true
		}
	}
	top := 0.0
	if len(order) > 0 {
		top = hs[files[order[0]].best].Score
	}
	isTestTask := testQuery(terms)
	length := min(1, math.Log1p(float64(len(terms)))/math.Log(101))
	want := taskKinds(q)
	first := firstLineTerms(q)
	out := make([]FileFeatures, 0, len(order))
	for r, p := range order {
		f := files[p]
		d := s.ix.Doc(hs[f.best].Doc)
		x := make([]float64, len(FeatureNames))
		set := func(name string, v float64) { x[featureIndex[name]] = v }
		b := func(name string, c bool) {
			if c {
				set(name, 1)
			}
		}
		if top > 0 {
			set("pipe", max(hs[f.best].Score, 0)/top)
		}
		set("pipe_rank", -math.Log(float64(r+1)))
		set("lex", f.lex)
		set("vec", f.vec)
		set("file", sig.file[p])
		set("sections", math.Log1p(float64(f.n)))
		b("definition", definitions[d.Symbol])
		b("name", f.name)
		test := isTestDoc(&d)
		b("test", test && !isTestTask)
		b("test_task", test && isTestTask)
		b("path_named", mentioned(p, task.Paths))
		b("symbol", f.symbol)
		b("hyphen", len(task.Hyphens) > 0 && namedComponent(p, task.Hyphens))
		b("file_named", fileNamed(p, first))
		kinds := pathKinds(p, d.Kind)
		b("kind", want != 0 && kinds&want != 0)
		b("changelog", want&kindPackaging == 0 && isChangelog(p))
		b("docs", kinds&kindDocs != 0)
		set("history", sig.history[p])
		set("cochange", sig.cochange[p])
		set("recency", sig.recency[p])
		set("churn", sig.churn[p])
		set("size", math.Log1p(float64(len(s.ix.PathDocs(p)))))
		b("example", isExample(p))
		b("lifted", f.lifted)
		if total > 0 {
			set("area", area[path.Dir(p)]/total)
		}
		set("length", length)
		for _, n := range []string{"pipe", "vec", "lex", "file", "history"} {
			set(n+"_length", x[featureIndex[n]]*length)
		}
		set("named_length", max(x[featureIndex["path_named"]], x[featureIndex["symbol"]])*length)
		out = append(out, FileFeatures{Path: p, X: x})
	}
	return out
}

// score is the model's score of a feature vector.
func (lr *LearnedRanking) score(x []float64) float64 {
	v := 0.0
	for i, n := range FeatureNames {
		v += lr.Weights[n] * x[i]
	}
	return v
}

// rerank re-orders hs (sorted best first) by the model: the sections of
// the files in feats (the pipeline's first files) first, by their file's
// model score, each section keeping its share of its file's best score;
// then the rest in the pipeline's order. Scores are rescaled so the best
// keeps the pipeline's best score, and every section of a re-ordered file
// stays above the rest.
func rerank(hs []index.Hit, feats []FileFeatures, lr *LearnedRanking, docPath func(int) string) ([]index.Hit, float64) {
	if len(feats) == 0 || len(hs) == 0 {
		return hs, 0
	}
	top := hs[0].Score
	fileScore := make(map[string]float64, len(feats))
	hi := math.Inf(-1)
	for _, f := range feats {
		v := lr.score(f.X)
		fileScore[f.Path] = v
		hi = max(hi, v)
	}
	bestOf := map[string]float64{}
	for _, h := range hs {
		p := docPath(h.Doc)
		if _, ok := fileScore[p]; ok && h.Score > bestOf[p] {
			bestOf[p] = h.Score
		}
	}
	head := make([]index.Hit, 0, len(hs))
	var tail []index.Hit
	for _, h := range hs {
		p := docPath(h.Doc)
		v, ok := fileScore[p]
		if !ok {
			tail = append(tail, h)
			continue
		}
		share := 1.0
		if b := bestOf[p]; b > 0 {
			share = max(h.Score, 0) / b
		}
		h.Score = top * math.Exp(v-hi) * share
		head = append(head, h)
	}
	sort.SliceStable(head, func(i, j int) bool {
		if head[i].Score != head[j].Score {
			return head[i].Score > head[j].Score
		}
		return head[i].Doc < head[j].Doc
	})
	if len(tail) > 0 {
		// Below the least re-ordered section, in the pipeline's order.
		low := head[len(head)-1].Score
		tailTop := tail[0].Score
		for i := range tail {
			if tailTop > 0 {
				tail[i].Score = low * 0.999 * max(tail[i].Score, 0) / tailTop
			} else {
				tail[i].Score = 0
			}
		}
	}
	scores := make([]float64, 0, len(fileScore))
	for _, v := range fileScore {
		scores = append(scores, v)
	}
	return append(head, tail...), Confidence(scores)
}

// ConfidenceFiles is how many of the first files Result.Confidence speaks
// of.
const ConfidenceFiles = 3

// Confidence is the softmax probability mass of the ConfidenceFiles
// best of the model's file scores: the model is fitted as a softmax over
// a query's candidate files (scripts/ranker), so this is its estimate
// that an answer is among them.
func Confidence(scores []float64) float64 {
	if len(scores) == 0 {
		return 0
	}
	ps := slices.Clone(scores)
	slices.Sort(ps)
	slices.Reverse(ps)
	z, c := 0.0, 0.0
	for i, v := range ps {
		e := math.Exp(v - ps[0])
		z += e
		if i < ConfidenceFiles {
			c += e
		}
	}
	return c / z
}

// Features returns the features of the files the pipeline ranks first
// (the learned ranker's depth, or 50), in the pipeline's order: what
// scripts/ranker fits the learned ranker on. The ranking is opt.Ranking
// or DefaultRanking, without its learned stage.
func (s *Searcher) Features(ctx context.Context, q string, opt Options) ([]FileFeatures, error) {
	rk := DefaultRanking
	if opt.Ranking != nil {
		rk = *opt.Ranking
	}
	depth := 50
	if rk.Learned != nil && rk.Learned.Depth > 0 {
		depth = rk.Learned.Depth
	}
	rk.Learned = nil
	mode := opt.Mode
	if mode == "" {
		mode = Hybrid
	}
	ex := rankExtras{depth: depth}
	if _, _, _, _, err := s.rankMore(ctx, q, mode, &rk, &ex); err != nil {
		return nil, err
	}
	return ex.features, nil
}

// rankExtras is what rankMore returns besides the ranking.
type rankExtras struct {
	depth      int // files to compute features of (0: the learned ranker's depth)
	features   []FileFeatures
	confidence float64
}

// isExample reports whether a path is under a directory of examples,
// samples, demos or benchmarks: code that shows or measures the project
// rather than being it.
func isExample(p string) bool {
	for _, part := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		switch part {
		case "example", "examples", "sample", "samples", "demo", "demos", "bench", "benches", "benchmark", "benchmarks":
			return true
		}
	}
	return false
}
