// Command ranker fits recall's learned ranker (recall/learn.go): a linear
// model over the features of the files the ranking pipeline puts first,
// trained to put an answer file first.
//
//	go run ./scripts/ranker [-l2 0.01] [-out recall/learned_weights.go] FEATURES.jsonl...
//
// The input is what `go run ./scripts/eval -features FILE` writes: one
// query a line, its candidate files in the pipeline's order with their
// features and whether each is an answer. Run it on the training
// repositories (scripts/model/repos.tsv: public, pinned, none evaluated
// on), never on the evaluation's: `make ranker` does both steps.
//
// The loss is listwise: the softmax cross-entropy of the answer files
// among a query's candidates (the log of the summed probability of its
// answers), plus an L2 penalty, averaged so each repository weighs the
// same whatever its number of queries. It is convex in the weights, so
// full-batch gradient descent finds the one optimum from any start.
//
// Before the final fit on every repository, it cross-validates by
// repository: each repository's queries are ranked by weights fitted on
// the others, and MRR and hit@k among the candidates are reported beside
// the pipeline's own order, per repository and in all.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/recall"
)

var (
	l2      = flag.Float64("l2", 0.01, "L2 penalty of the weights")
	iters   = flag.Int("iters", 3000, "gradient steps")
	lr      = flag.Float64("lr", 0.5, "step size (Adam)")
	out     = flag.String("out", "", "write the fitted weights as Go source to this `FILE` (recall/learned_weights.go)")
	depth   = flag.Int("depth", 30, "candidate files the model re-orders (the pipeline's first DEPTH)")
	drop    = flag.String("drop", "", "comma-separated `FEATURES` to leave out (weight 0)")
	noCV    = flag.Bool("no-cv", false, "skip cross-validation")
	report  = flag.String("report", "", "write the cross-validation table (Markdown) to this `FILE`")
	labelOn = flag.String("label-sets", "commits", "comma-separated query `SETS` the evidence label's thresholds are calibrated on (empty: every set)")
	fitOn   = flag.String("fit-sets", "", "comma-separated query `SETS` the weights are fitted on (default: every set); cross-validation still reports every set")
	setW    = flag.String("set-weights", "", "comma-separated `SET=W`: each query of SET weighs W in its repository's loss (default 1), as if listed W times")
)

type file struct {
	Path   string    `json:"path"`
	Answer bool      `json:"answer"`
	X      []float64 `json:"x"`
}

type query struct {
	Set    string   `json:"set"`
	Repo   string   `json:"repo"`
	Commit string   `json:"commit"`
	ID     string   `json:"id"`
	Names  []string `json:"names"`
	Files  []file   `json:"files"`
}

func main() {
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: ranker [flags] FEATURES.jsonl...")
		os.Exit(2)
	}
	var qs []query
	var names []string
	for _, p := range flag.Args() {
		got, err := read(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ranker:", err)
			os.Exit(1)
		}
		for _, q := range got {
			if names == nil {
				names = q.Names
			}
			if strings.Join(q.Names, ",") != strings.Join(names, ",") {
				fmt.Fprintf(os.Stderr, "ranker: %s: features %v differ from %v; extract them again with one build\n", p, q.Names, names)
				os.Exit(1)
			}
			if len(q.Files) > *depth {
				q.Files = q.Files[:*depth]
			}
			qs = append(qs, q)
		}
	}
	mask := make([]bool, len(names))
	for i := range mask {
		mask[i] = true
	}
	for _, d := range strings.Split(*drop, ",") {
		for i, n := range names {
			if n == strings.TrimSpace(d) {
				mask[i] = false
			}
		}
	}
	byRepo := map[string][]query{}
	for _, q := range qs {
		byRepo[q.Repo] = append(byRepo[q.Repo], q)
	}
	var repos []string
	for r := range byRepo {
		repos = append(repos, r)
	}
	sort.Strings(repos)
	fmt.Fprintf(os.Stderr, "%d queries, %d repositories, %d features\n", len(qs), len(repos), len(names))

	var strong, weak float64
	if !*noCV {
		judged := cv(repos, byRepo, names, mask)
		strong, weak = thresholds(judged)
	}
	w := fit(byRepo, repos, len(names), mask)
	for i, n := range names {
		fmt.Printf("%-12s %8.4f\n", n, w[i])
	}
	fmt.Printf("strong at confidence >= %.3f, weak under %.3f\n", strong, weak)
	if *out != "" {
		if err := writeGo(*out, names, w, strong, weak); err != nil {
			fmt.Fprintln(os.Stderr, "ranker:", err)
			os.Exit(1)
		}
	}
}

func read(p string) ([]query, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []query
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var q query
			if err := json.Unmarshal(line, &q); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", p, n, err)
			}
			qs = append(qs, q)
		}
		if err == io.EOF {
			return qs, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// fit minimises the listwise loss over the repositories' queries, each
// repository weighing the same.
func fit(byRepo map[string][]query, repos []string, n int, mask []bool) []float64 {
	qsOf := make(map[string][]query, len(repos))
	for _, r := range repos {
		qsOf[r] = fitted(byRepo[r])
	}
	weightOf := setWeights(byRepo)
	w := make([]float64, n)
	m := make([]float64, n)
	v := make([]float64, n)
	const b1, b2, eps = 0.9, 0.999, 1e-8
	g := make([]float64, n)
	for t := 1; t <= *iters; t++ {
		for i := range g {
			g[i] = *l2 * w[i]
		}
		for _, r := range repos {
			qs := qsOf[r]
			total := 0.0
			for _, q := range qs {
				total += weightOf[q.Set]
			}
			if total == 0 {
				continue
			}
			for _, q := range qs {
				gradQuery(q, w, g, weightOf[q.Set]/total/float64(len(repos)))
			}
		}
		step := *lr / math.Sqrt(float64(t))
		for i := range w {
			if !mask[i] {
				continue
			}
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			mh := m[i] / (1 - math.Pow(b1, float64(t)))
			vh := v[i] / (1 - math.Pow(b2, float64(t)))
			w[i] -= step * mh / (math.Sqrt(vh) + eps)
		}
	}
	return w
}

// setWeights is the weight in the loss of a query of each set of the
// queries: 1, or what -set-weights gives. Issue texts are long and
// commit messages short; the issues are few (134 against 1,078 commits
// on the training repositories), and weighing each three times fitted
// weights that rank the development set's issues better at no cost on
// its commits (docs/evaluation.md).
func setWeights(byRepo map[string][]query) map[string]float64 {
	out := map[string]float64{}
	for _, qs := range byRepo {
		for _, q := range qs {
			out[q.Set] = 1
		}
	}
	for _, kv := range strings.Split(*setW, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || x < 0 || math.IsInf(x, 0) {
			fmt.Fprintf(os.Stderr, "ranker: -set-weights: %q is not SET=W with W a number of at least 0\n", kv)
			os.Exit(2)
		}
		out[strings.TrimSpace(k)] = x
	}
	return out
}

// fitted keeps the queries of the sets -fit-sets names.
func fitted(qs []query) []query {
	if *fitOn == "" {
		return qs
	}
	sets := strings.Split(*fitOn, ",")
	var out []query
	for _, q := range qs {
		if slices.Contains(sets, q.Set) {
			out = append(out, q)
		}
	}
	return out
}

// gradQuery adds scale times the gradient of a query's loss to g: the
// loss is -log(Σ_answers p) with p the softmax of the scores.
func gradQuery(q query, w, g []float64, scale float64) {
	if len(q.Files) == 0 {
		return
	}
	hasAnswer := false
	for _, f := range q.Files {
		hasAnswer = hasAnswer || f.Answer
	}
	if !hasAnswer {
		return
	}
	s := make([]float64, len(q.Files))
	hi := math.Inf(-1)
	for i, f := range q.Files {
		s[i] = dot(w, f.X)
		hi = max(hi, s[i])
	}
	var z, za float64
	for i, f := range q.Files {
		e := math.Exp(s[i] - hi)
		z += e
		if f.Answer {
			za += e
		}
	}
	// d/ds_i = p_i - [answer] p_i/pa, with p_i = e_i/z, pa = za/z.
	for i, f := range q.Files {
		e := math.Exp(s[i] - hi)
		d := e / z
		if f.Answer {
			d -= e / za
		}
		for j, x := range f.X {
			g[j] += scale * d * x
		}
	}
}

func dot(w, x []float64) float64 {
	v := 0.0
	for i := range x {
		v += w[i] * x[i]
	}
	return v
}

// stats are a set's mean hit@1, hit@5, hit@10 and MRR among the
// candidates.
type stats struct {
	n                    int
	hit1, hit5, hit10, r float64
}

func (s *stats) add(rank int) {
	s.n++
	if rank == 0 {
		return
	}
	if rank <= 1 {
		s.hit1++
	}
	if rank <= 5 {
		s.hit5++
	}
	if rank <= 10 {
		s.hit10++
	}
	s.r += 1 / float64(rank)
}

func (s stats) String() string {
	n := float64(max(s.n, 1))
	return fmt.Sprintf("%4d  %.3f  %.3f  %.3f  %.3f", s.n, s.hit1/n, s.hit5/n, s.hit10/n, s.r/n)
}

// firstAnswer is the rank (1-based, 0: none) of the first answer file
// when the files are ordered by w (nil: the pipeline's order).
func firstAnswer(q query, w []float64) int {
	idx := make([]int, len(q.Files))
	for i := range idx {
		idx[i] = i
	}
	if w != nil {
		sc := make([]float64, len(q.Files))
		for i, f := range q.Files {
			sc[i] = dot(w, f.X)
		}
		sort.SliceStable(idx, func(a, b int) bool { return sc[idx[a]] > sc[idx[b]] })
	}
	for r, i := range idx {
		if q.Files[i].Answer {
			return r + 1
		}
	}
	return 0
}

// judgedQuery is a held-out query's confidence (the softmax mass of its
// first confidenceFiles files) and where its first answer ranked.
type judgedQuery struct {
	conf float64
	rank int
	set  string
}

// confidenceOf is the learned ranker's confidence (recall.Confidence)
// in the query's files under w.
func confidenceOf(q query, w []float64) float64 {
	sc := make([]float64, len(q.Files))
	for i, f := range q.Files {
		sc[i] = dot(w, f.X)
	}
	return recall.Confidence(sc)
}

// confidenceFiles is how many first files the confidence speaks of.
const confidenceFiles = recall.ConfidenceFiles

// Label targets: a strong answer holds an answer file among its first
// confidenceFiles files at least strongPrecision of the time; a weak one
// at most weakPrecision of the time. The label is the confidence alone
// (recall.Judge), so strong is set high enough that an agent can act on
// it, and weak where an answer is as likely wrong as right.
const (
	strongPrecision = 0.9
	weakPrecision   = 0.5
)

// thresholds picks the label thresholds from held-out queries: strong
// is the least confidence above which answers reach strongPrecision,
// weak the greatest below which they stay at most at weakPrecision.
func thresholds(js []judgedQuery) (strong, weak float64) {
	if *labelOn != "" {
		sets := strings.Split(*labelOn, ",")
		var keep []judgedQuery
		for _, j := range js {
			if slices.Contains(sets, j.set) {
				keep = append(keep, j)
			}
		}
		js = keep
	}
	sort.Slice(js, func(i, j int) bool { return js[i].conf < js[j].conf })
	strong = 1
	// Scan from the top: the lowest cut whose queries above still reach
	// the precision (at least 20 of them).
	hits, n := 0, 0
	for i := len(js) - 1; i >= 0; i-- {
		n++
		if js[i].rank > 0 && js[i].rank <= confidenceFiles {
			hits++
		}
		if n >= 20 && float64(hits)/float64(n) >= strongPrecision {
			strong = js[i].conf
		}
	}
	hits, n = 0, 0
	for i := range js {
		n++
		if js[i].rank > 0 && js[i].rank <= confidenceFiles {
			hits++
		}
		if n >= 20 && float64(hits)/float64(n) <= weakPrecision && js[i].conf < strong {
			weak = js[i].conf
		}
	}
	report := func(name string, keep func(c float64) bool) {
		var k, top3, top10 int
		for _, j := range js {
			if !keep(j.conf) {
				continue
			}
			k++
			if j.rank > 0 && j.rank <= confidenceFiles {
				top3++
			}
			if j.rank > 0 && j.rank <= 10 {
				top10++
			}
		}
		if k == 0 {
			fmt.Fprintf(os.Stderr, "%-8s none\n", name)
			return
		}
		fmt.Fprintf(os.Stderr, "%-8s %4d (%.2f)  answer in first %d %.3f  in first 10 %.3f\n", name, k, float64(k)/float64(len(js)), confidenceFiles, float64(top3)/float64(k), float64(top10)/float64(k))
	}
	report("strong", func(c float64) bool { return c >= strong })
	report("partial", func(c float64) bool { return c < strong && c >= weak })
	report("weak", func(c float64) bool { return c < weak })
	return strong, weak
}

// cv reports leave-one-repository-out results beside the pipeline's, and
// returns each held-out query's confidence and first answer's rank.
func cv(repos []string, byRepo map[string][]query, names []string, mask []bool) []judgedQuery {
	var judged []judgedQuery
	var tb strings.Builder
	fmt.Fprintf(&tb, "| repository | queries | pipeline hit@1 / hit@10 / MRR | learned hit@1 / hit@10 / MRR |\n|---|---|---|---|\n")
	var allP, allL stats
	setP, setL := map[string]*stats{}, map[string]*stats{}
	for _, held := range repos {
		var train []string
		for _, r := range repos {
			if r != held {
				train = append(train, r)
			}
		}
		w := fit(byRepo, train, len(names), mask)
		var p, l stats
		for _, q := range byRepo[held] {
			p.add(firstAnswer(q, nil))
			r := firstAnswer(q, w)
			l.add(r)
			if setP[q.Set] == nil {
				setP[q.Set], setL[q.Set] = &stats{}, &stats{}
			}
			setP[q.Set].add(firstAnswer(q, nil))
			setL[q.Set].add(r)
			judged = append(judged, judgedQuery{confidenceOf(q, w), r, q.Set})
		}
		allP.n += p.n
		allP.hit1 += p.hit1
		allP.hit5 += p.hit5
		allP.hit10 += p.hit10
		allP.r += p.r
		allL.n += l.n
		allL.hit1 += l.hit1
		allL.hit5 += l.hit5
		allL.hit10 += l.hit10
		allL.r += l.r
		fmt.Fprintf(os.Stderr, "%-40s pipeline %s   learned %s\n", held, p, l)
		fmt.Fprintf(&tb, "| %s | %d | %s | %s |\n", held, p.n, short(p), short(l))
	}
	fmt.Fprintf(os.Stderr, "%-40s pipeline %s   learned %s\n", "all", allP, allL)
	if len(setP) > 1 {
		var sets []string
		for k := range setP {
			sets = append(sets, k)
		}
		sort.Strings(sets)
		for _, k := range sets {
			fmt.Fprintf(os.Stderr, "%-40s pipeline %s   learned %s\n", "set "+k, *setP[k], *setL[k])
		}
	}
	fmt.Fprintf(&tb, "| all | %d | %s | %s |\n", allP.n, short(allP), short(allL))
	if *report != "" {
		if err := os.WriteFile(*report, []byte(tb.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "ranker:", err)
			os.Exit(1)
		}
	}
	return judged
}

func short(s stats) string {
	n := float64(max(s.n, 1))
	return fmt.Sprintf("%.3f / %.3f / %.3f", s.hit1/n, s.hit10/n, s.r/n)
}

// writeGo writes the weights as recall's learned ranking.
func writeGo(p string, names []string, w []float64, strong, weak float64) error {
	var b strings.Builder
	b.WriteString("// Code generated by scripts/ranker (make ranker); DO NOT EDIT.\n\npackage recall\n\n")
	b.WriteString("// learnedRanking is the learned ranker DefaultRanking uses: weights\n// fitted by scripts/ranker on the training repositories (see learn.go).\n")
	fmt.Fprintf(&b, "var learnedRanking = LearnedRanking{\n\tDepth: %d,\n\tStrong: %.3f,\n\tWeak: %.3f,\n\tWeights: map[string]float64{\n", *depth, strong, weak)
	for i, n := range names {
		if w[i] != 0 {
			fmt.Fprintf(&b, "\t\t%q: %.4f,\n", n, w[i])
		}
	}
	b.WriteString("\t},\n}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return err
	}
	return os.WriteFile(p, src, 0o644)
}
