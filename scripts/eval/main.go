// Command eval measures recall quality on real git history, with two sets
// of queries, each asked of memory extracted at a commit's parent:
//
//   - commits: each commit's message is the query, the files it changed
//     are the answer;
//   - issues: real GitHub issues (scripts/eval/issues/<owner>+<name>.jsonl:
//     the title and the reporter's opening text) paired with the commits
//     that fixed them ("Fixes #N"); the answer is the non-test files the
//     fix changed (changelogs left out).
//
// It reports hit@1/5/10 (at least one answer file in the top k), files@10
// (the share of the answer files in the top 10) and MRR for BM25 over
// whole files (the baseline) and for lexical-only, vector-only and hybrid
// ranking, per repository, over all of them, and over the held-out and
// the tuned repositories apart (see tuned).
//
//	go run ./scripts/eval [-set commits,issues] [-n 150] [-max-files 8] [-cache DIR] [-json out.json] REPO...
//
// Each REPO (a work tree or a bare git dir, e.g. a mirror) is cloned (bare,
// hard-linked) into a temporary directory, or into -cache DIR to be reused,
// so the source is never written to; each set has its own clone, since
// memory only moves forward. Memory is extracted at the oldest selected
// commit's parent (full), then brought forward commit by commit with
// `changed` runs, as the post-commit hook would; the search index follows
// by its own incremental updates.
//
// Commit selection: non-merge commits, newest first, skipping bots
// (dependabot, renovate, "[bot]") and commits whose message is shorter
// than 8 bytes; a commit counts when 1..max-files of the files it changed
// have a record at its parent (files it added cannot be found at the
// parent and are not part of the answer; gated files — lockfiles,
// generated, vendored — are not either). A query whose own commit is in
// the history memory records is left out.
//
// Files are ranked by their best section (one hit per file); MRR is the
// reciprocal rank of the first answer file (0 past rank 100); all are
// averaged over queries.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
)

var (
	nCommits = flag.Int("n", 150, "queries (commits) per repository")
	maxFiles = flag.Int("max-files", 8, "largest number of answer files a commit may have")
	jsonOut  = flag.String("json", "", "write per-query results to this file")
	verbose  = flag.Bool("v", false, "print every query's ranks")
	keep     = flag.Bool("keep", false, "keep the temporary clones")
	depth    = flag.Int("depth", 100, "ranking depth for MRR")
	cache    = flag.String("cache", "", "keep clones and their memory in `DIR` and reuse them (ranking experiments)")
	strength = flag.Bool("strength", false, "also judge each hybrid answer's evidence (Searcher.Evidence) and print each label's precision")
	features = flag.String("strength-out", "", "with -strength, write each query's evidence features to this TSV `FILE`")
	sets     = flag.String("set", "commits,issues", "query `SETS` to run: commits (each commit's message), issues (scripts/eval/issues: real issues and the commits that fixed them), long (long commit messages), questions (scripts/eval/questions: questions people asked about the code and the files their answers point to), swebench")
	issueDir = flag.String("issues", "scripts/eval/issues", "`DIR` of issue sets, one owner+name.jsonl per repository")
	questDir = flag.String("questions", "scripts/eval/questions", "`DIR` of question sets, one owner+name.jsonl per repository")
	variants = flag.String("variants", "", "JSON `FILE` of named ranking variants ({\"name\": {\"Vector\": 0.5, ...}}) to evaluate besides the default, in hybrid mode")
	repoList = flag.String("repos", "", "repository `LIST` (scripts/eval/repos.tsv): evaluate its repositories of -split, found under -dir, at their pinned commits")
	split    = flag.String("split", splitDev, "`SPLIT` of the -repos list to evaluate: dev, test, swebench (the list's repositories that SWE-bench names, with -set swebench), or train (scripts/ranker/repos.tsv)")
	repoDir  = flag.String("dir", os.Getenv("KONTEKS_REPOS"), "`DIR` holding the -repos list's repositories (scripts/fetch-repos.sh); default $KONTEKS_REPOS")
	sweFile  = flag.String("swebench", os.Getenv("SWEBENCH_LITE"), "SWE-bench Lite `FILE` (JSON or JSON Lines: instance_id, repo, base_commit, problem_statement, patch) for -set swebench; default $SWEBENCH_LITE")
	sweN     = flag.Int("swebench-n", 20, "most SWE-bench instances per repository (evenly spaced over the dataset's order)")
	featOut  = flag.String("features", "", "append each query's candidate files with their learned-ranker features and labels to this JSON Lines `FILE` (scripts/ranker fits on it)")
)

// variantList is the ranking variants under evaluation, by name.
var variantList []variant

type variant struct {
	name string
	rk   *recall.Ranking
}

// parseVariants reads -variants' file: each variant is the default
// ranking with the fields it names set. The default's learned ranker is
// copied first, weights and all: decoding "Learned" into the shared one
// would change the default every other mode ranks with.
func parseVariants(b []byte) ([]variant, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	var names []string
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []variant
	for _, n := range names {
		rk := recall.DefaultRanking
		if rk.Learned != nil {
			l := *rk.Learned
			l.Weights = maps.Clone(l.Weights)
			rk.Learned = &l
		}
		if err := json.Unmarshal(raw[n], &rk); err != nil {
			return nil, fmt.Errorf("variant %s: %w", n, err)
		}
		out = append(out, variant{n, &rk})
	}
	return out, nil
}

var modes = []string{baselineMode, fusedMode, recall.Lexical, recall.Vector, recall.Hybrid}

// baselineMode is BM25 over whole files (one document per file, the same
// analyzer), the baseline the issue quotes: it calibrates how hard a set
// of queries is.
const baselineMode = "files-bm25"

// fusedMode is the BM25 + static-embedding hybrid peers ship: reciprocal
// rank fusion (k = fusedK) of BM25 over whole files and the built-in
// model's ranking of files, with none of recall's own signals.
const fusedMode = "bm25+vector"

const fusedK = 60

// fuse merges rankings of paths by reciprocal rank fusion: each path
// scores the sum of 1/(k+rank) over the rankings that hold it; ties keep
// the order of first appearance.
func fuse(k int, rankings ...[]string) []string {
	score := map[string]float64{}
	var order []string
	for _, r := range rankings {
		for i, p := range r {
			if _, ok := score[p]; !ok {
				order = append(order, p)
			}
			score[p] += 1 / float64(k+i+1)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
	return order
}

// ranksOf is the rank (1-based, 0: not there) of each answer file in paths.
func ranksOf(paths, answer []string) []int {
	rank := map[string]int{}
	for r, p := range paths {
		if _, ok := rank[p]; !ok {
			rank[p] = r + 1
		}
	}
	rs := make([]int, 0, len(answer))
	for _, a := range answer {
		rs = append(rs, rank[a])
	}
	return rs
}

type query struct {
	Set     string         `json:"set"`
	Repo    string         `json:"repo"`
	ID      string         `json:"id,omitempty"` // issue number or SWE-bench instance
	Commit  string         `json:"commit,omitempty"`
	Query   string         `json:"query"`
	Answer  []string       `json:"answer"`
	Memory  string         `json:"memory"` // the memory commit asked
	Ranks   map[string]any `json:"ranks"`  // mode -> rank per answer file (0: not in depth)
	ranksBy map[string][]int
}

// labelStats tallies the evidence labels: how many answers got each, and
// how many of them held an answer file in the first hit, in the first 10,
// and (no-match) how many withheld hits that held one.
type labelStats struct{ N, Top1, Top10 int }

var labels = map[string]*labelStats{}

// judge runs the answer an agent gets (hybrid, 10 hits with their text)
// and tallies its label against the answer files.
func judge(ctx context.Context, s *recall.Searcher, q string, answer []string) error {
	res, err := s.Search(ctx, q, recall.Options{Limit: 10})
	if err != nil {
		return err
	}
	e := s.Judge(q, res.Hits, res.Confidence, nil)
	label := e.Strength
	if e.NoMatch {
		label = "no-match"
	}
	st := labels[label]
	if st == nil {
		st = &labelStats{}
		labels[label] = st
	}
	st.N++
	top1, top10 := 0, 0
	for i, h := range res.Hits {
		if slices.Contains(answer, h.Path) {
			if i == 0 {
				top1 = 1
			}
			top10 = 1
			break
		}
	}
	st.Top1 += top1
	st.Top10 += top10
	if featureOut != nil {
		u := recall.Assess(q, res.Hits)
		m1 := 1.0
		if len(res.Hits) > 1 && res.Hits[0].Score > 0 {
			m1 = (res.Hits[0].Score - res.Hits[1].Score) / res.Hits[0].Score
		}
		fmt.Fprintf(featureOut, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%v\t%d\t%d\t%.3f\n", label, len(u.Matched)+len(u.Missing),
			u.Coverage, u.Union, e.Coverage, e.Union, e.Margin, m1, e.NoMatch, top1, top10, res.Confidence)
	}
	return nil
}

// featureOut receives the -strength-out rows.
var featureOut *os.File

func printLabels() {
	fmt.Printf("\n%-10s %5s %7s %13s %14s\n", "evidence", "n", "share", "answer@1", "answer@10")
	total := 0
	for _, st := range labels {
		total += st.N
	}
	for _, l := range []string{recall.Strong, recall.Partial, recall.Weak, "no-match"} {
		st := labels[l]
		if st == nil || st.N == 0 {
			continue
		}
		n := float64(st.N)
		fmt.Printf("%-10s %5d %7.3f %13.3f %14.3f\n", l, st.N, n/float64(total), float64(st.Top1)/n, float64(st.Top10)/n)
	}
}

func main() {
	flag.Parse()
	if p := os.Getenv("KONTEKS_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	srcs, err := sources()
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(2)
	}
	if *cache != "" {
		// A new cache directory is made, as EVAL_CACHE's documentation
		// promises, instead of failing at the first repository.
		if err := os.MkdirAll(*cache, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "eval:", err)
			os.Exit(2)
		}
	}
	if *variants != "" {
		b, err := os.ReadFile(*variants)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		vs, err := parseVariants(b)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, v := range vs {
			variantList = append(variantList, v)
			modes = append(modes, "v:"+v.name)
		}
	}
	if *features != "" {
		f, err := os.Create(*features)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		featureOut = f
		fmt.Fprintln(f, "label\twords\tcoverage\tunion\twcoverage\twunion\tmargin\tmargin1\tnomatch\ttop1\ttop10\tconfidence")
	}
	var all []query
	for _, set := range strings.Split(*sets, ",") {
		set = strings.TrimSpace(set)
		var swe []sweInstance
		switch set {
		case setCommits, setLong:
		case setIssues, setQuestions:
			name, dir := "issues", *issueDir
			if set == setQuestions {
				name, dir = "questions", *questDir
			}
			if err := checkSetDir(name, dir); err != nil {
				fmt.Fprintln(os.Stderr, "eval:", err)
				os.Exit(2)
			}
		case setSWEBench:
			if *sweFile == "" {
				fmt.Fprintln(os.Stderr, "eval: -set swebench needs the SWE-bench Lite dataset: set SWEBENCH_LITE (or -swebench) to its JSON or JSON Lines file (see docs/evaluation.md)")
				os.Exit(2)
			}
			if swe, err = readSWEBench(*sweFile); err != nil {
				fmt.Fprintln(os.Stderr, "eval:", err)
				os.Exit(2)
			}
		default:
			fmt.Fprintf(os.Stderr, "unknown query set %q (commits, issues, long, questions, swebench)\n", set)
			os.Exit(2)
		}
		qs := runSet(set, srcs, swe)
		all = append(all, qs...)
	}
	if *strength {
		printLabels()
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// Query sets.
const (
	setCommits  = "commits"
	setIssues   = "issues"
	setSWEBench = "swebench"
	// setQuestions is questions people asked about the code, asked at
	// the pinned commit; the answer is the files their threads point to.
	setQuestions = "questions"
	// setLong is commits whose message is long (at least longMessage
	// bytes once trailers are dropped), asked whole up to textCap:
	// pull-request descriptions squashed into the commit, with their
	// templates, lists, logs and code, the nearest thing in a history to
	// the long issue an agent is handed.
	setLong = "long"
)

// Bounds of the long set: the least message kept, and how far back
// (commits below the pinned one) it is looked for.
const (
	longMessage = 600
	longDepth   = 3000
)

// sources lists the repositories to evaluate: those named on the command
// line (at their HEAD), or the -repos list's of -split under -dir (at their
// pinned commits). For -split swebench, every repository of the list that
// the dataset names is asked, whatever its split.
func sources() ([]source, error) {
	if flag.NArg() > 0 {
		if *repoList != "" {
			return nil, fmt.Errorf("name repositories on the command line or give -repos, not both")
		}
		var out []source
		for _, p := range flag.Args() {
			out = append(out, source{Path: p, Name: repoName(p), Lang: "-"})
		}
		return out, nil
	}
	if *repoList == "" {
		return nil, fmt.Errorf("usage: eval [flags] -repos scripts/eval/repos.tsv [-split dev|test|swebench] | eval [flags] REPO...")
	}
	if *repoDir == "" {
		return nil, fmt.Errorf("set KONTEKS_REPOS (or -dir) to the directory scripts/fetch-repos.sh cloned the evaluation repositories into")
	}
	list, err := readRepos(*repoList)
	if err != nil {
		return nil, err
	}
	want := *split
	if want == splitSWEBench {
		want = strings.Join([]string{splitDev, splitTest, splitSWEBench}, ",")
	} else if want != splitDev && want != splitTest && want != splitTrain {
		return nil, fmt.Errorf("unknown split %q (dev, test, swebench, train)", want)
	}
	return selectRepos(list, *repoDir, want)
}

// readSet reads a repository's issue or question set (nil: it has none).
func readSet[T any](dir, name string, read func(string) ([]T, error)) ([]T, error) {
	f := issueFile(dir, name)
	if _, err := os.Stat(f); err != nil {
		return nil, nil
	}
	return read(f)
}

// runSet evaluates one query set over the repositories and prints its
// table: every mode per repository, then per language and over all of
// them, each with its bootstrap 95% interval.
func runSet(set string, srcs []source, swe []sweInstance) []query {
	var all []query
	var done []source
	byRepo := map[string][]query{}
	for _, src := range srcs {
		var issues []issue
		var quests []question
		var err error
		switch set {
		case setQuestions:
			quests, err = readSet(*questDir, src.Name, readQuestions)
		case setIssues:
			issues, err = readSet(*issueDir, src.Name, readIssues)
		case setSWEBench:
			if !slices.ContainsFunc(swe, func(in sweInstance) bool { return strings.EqualFold(in.Repo, ownerName(src.Name)) }) {
				continue
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if (set == setQuestions && quests == nil) || (set == setIssues && issues == nil) {
			continue // no set for this repository
		}
		qs, err := evalRepo(src, set, setInput{issues: issues, swe: swe, questions: quests})
		if err != nil {
			pprof.StopCPUProfile()
			fmt.Fprintf(os.Stderr, "%s: %v\n", src.Name, err)
			os.Exit(1)
		}
		all = append(all, qs...)
		byRepo[src.Name] = qs
		done = append(done, src)
		// Each repository's figures as soon as it is done: an interrupted
		// run keeps what it measured.
		for _, m := range modes {
			v := meanStats(qs, m)
			fmt.Fprintf(os.Stderr, "%s: %s %s n=%d hit@1 %.3f hit@5 %.3f hit@10 %.3f files@10 %.3f MRR %.3f Acc@5 %.3f\n",
				src.Name, set, m, len(qs), v[statHit1], v[statHit5], v[statHit10], v[statFiles10], v[statMRR], v[statAcc5])
		}
	}
	report(set, done, byRepo)
	return all
}

// Per-query statistics, in the order queryStats returns them.
const (
	statHit1 = iota
	statHit5
	statHit10
	statFiles10
	statMRR
	statAcc1
	statAcc5
	statAcc10
	statNDCG10
	nStats
)

// queryStats scores one query from its ranks (one per answer file, 0 past
// the depth): hit@k is whether any answer file is in the top k, files@10
// the share of them there, MRR the reciprocal rank of the first, Acc@k
// whether all of them are in the top k (SWE-bench's file-level accuracy),
// NDCG@10 the discounted gain of the answer files in the top 10 (each
// 1/log2(rank+1)) over the best the answer allows.
func queryStats(ranks []int) []float64 {
	v := make([]float64, nStats)
	best, worst, in10 := 0, 0, 0
	found := len(ranks) > 0 // every answer file within the depth
	for _, r := range ranks {
		if r == 0 {
			found = false
			continue
		}
		if best == 0 || r < best {
			best = r
		}
		worst = max(worst, r)
		if r <= 10 {
			in10++
		}
	}
	for i, k := range []int{1, 5, 10} {
		if best > 0 && best <= k {
			v[statHit1+i] = 1
		}
		if found && worst <= k {
			v[statAcc1+i] = 1
		}
	}
	if len(ranks) > 0 {
		v[statFiles10] = float64(in10) / float64(len(ranks))
	}
	if best > 0 {
		v[statMRR] = 1 / float64(best)
	}
	var dcg, ideal float64
	for i, r := range ranks {
		if r > 0 && r <= 10 {
			dcg += 1 / math.Log2(float64(r)+1)
		}
		if i < 10 {
			ideal += 1 / math.Log2(float64(i)+2)
		}
	}
	if ideal > 0 {
		v[statNDCG10] = dcg / ideal
	}
	return v
}

// report prints a set's table: each repository and mode, then each
// language and all queries with bootstrap 95% intervals (resampling
// queries) of hit@10 and MRR, or of Acc@5 and Acc@10 for SWE-bench.
func report(set string, srcs []source, byRepo map[string][]query) {
	swe := set == setSWEBench
	ndcg := set == setQuestions
	fmt.Printf("\n%s set (hit@k: at least one answer file in the top k; files@10: share of the answer files in the top 10", set)
	if swe {
		fmt.Printf("; Acc@k: every answer file in the top k")
	}
	if ndcg {
		fmt.Printf("; NDCG@10 with each answer file relevant")
	}
	fmt.Println(")")
	head := fmt.Sprintf("%-28s %-12s %5s %7s %7s %7s %8s %7s", "repository", "mode", "n", "hit@1", "hit@5", "hit@10", "files@10", "MRR")
	if swe {
		head += fmt.Sprintf(" %7s %7s %7s", "Acc@1", "Acc@5", "Acc@10")
	}
	if ndcg {
		head += fmt.Sprintf(" %8s", "NDCG@10")
	}
	fmt.Println(head)
	row := func(name, m string, qs []query) {
		v := meanStats(qs, m)
		line := fmt.Sprintf("%-28s %-12s %5d %7.3f %7.3f %7.3f %8.3f %7.3f", name, m, len(qs), v[statHit1], v[statHit5], v[statHit10], v[statFiles10], v[statMRR])
		if swe {
			line += fmt.Sprintf(" %7.3f %7.3f %7.3f", v[statAcc1], v[statAcc5], v[statAcc10])
		}
		if ndcg {
			line += fmt.Sprintf(" %8.3f", v[statNDCG10])
		}
		fmt.Println(line)
	}
	var langs []string
	byLang := map[string][]query{}
	var all []query
	for _, s := range srcs {
		qs := byRepo[s.Name]
		for _, m := range modes {
			row(s.Name, m, qs)
		}
		if _, ok := byLang[s.Lang]; !ok {
			langs = append(langs, s.Lang)
		}
		byLang[s.Lang] = append(byLang[s.Lang], qs...)
		all = append(all, qs...)
	}
	if len(srcs) < 2 {
		return
	}
	sort.Strings(langs)
	a, b := statHit10, statMRR
	an, bn := "hit@10", "MRR"
	if swe {
		a, b, an, bn = statAcc5, statAcc10, "Acc@5", "Acc@10"
	}
	if ndcg {
		a, b, an, bn = statNDCG10, statMRR, "NDCG@10", "MRR"
	}
	fmt.Printf("\n%s set by language, bootstrap 95%% intervals (%d resamples of the queries, seed %d)\n", set, bootRounds, bootSeed)
	fmt.Printf("%-28s %-12s %5s %-22s %-22s\n", "language", "mode", "n", an, bn)
	group := func(name string, qs []query) {
		if len(qs) == 0 {
			return
		}
		for _, m := range modes {
			vals := make([][]float64, len(qs))
			for i, q := range qs {
				v := queryStats(q.ranksBy[m])
				vals[i] = []float64{v[a], v[b]}
			}
			iv := bootstrap(vals)
			fmt.Printf("%-28s %-12s %5d %-22s %-22s\n", name, m, len(qs), iv[0], iv[1])
		}
	}
	if len(langs) > 1 {
		for _, l := range langs {
			group(l, byLang[l])
		}
	}
	group("(all queries)", all)
}

// meanStats averages queryStats over the queries for one mode.
func meanStats(qs []query, mode string) []float64 {
	sum := make([]float64, nStats)
	for _, q := range qs {
		for j, v := range queryStats(q.ranksBy[mode]) {
			sum[j] += v
		}
	}
	for j := range sum {
		sum[j] /= float64(max(len(qs), 1))
	}
	return sum
}

// String prints an interval as "mean [lo, hi]".
func (iv interval) String() string { return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Mean, iv.Lo, iv.Hi) }

// ownerName turns owner+name back into owner/name.
func ownerName(name string) string { return strings.Replace(name, "+", "/", 1) }

func repoName(src string) string {
	src = strings.TrimSuffix(filepath.Clean(src), "/.git")
	src = strings.TrimSuffix(src, "/repo")
	return filepath.Base(src)
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=eval", "GIT_AUTHOR_EMAIL=eval@example.invalid",
		"GIT_COMMITTER_NAME=eval", "GIT_COMMITTER_EMAIL=eval@example.invalid")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", err
	}
	return string(out), nil
}

type candidate struct {
	id                  string // what the table calls it: an issue or instance, or the commit
	commit, parent, msg string
	changed             []string // modified, deleted or renamed-from paths at the parent
}

// setInput is what a set asks beyond the repository's own history: the
// issue, SWE-bench or question set of the repository.
type setInput struct {
	issues    []issue
	swe       []sweInstance
	questions []question
}

func evalRepo(src source, set string, in setInput) ([]query, error) {
	name := src.Name
	var dir string
	if *cache != "" {
		// One clone per set: the sets ask memory at different points of
		// history, and a clone's memory must only move forward (see
		// inHistory).
		dir = filepath.Join(*cache, name+"-"+set+".git")
		if _, err := os.Stat(dir); err != nil {
			if _, err := git(*cache, "clone", "-q", "--bare", src.Path, dir); err != nil {
				return nil, err
			}
		}
	} else {
		tmp, err := os.MkdirTemp("", "konteks-eval-")
		if err != nil {
			return nil, err
		}
		if !*keep {
			defer os.RemoveAll(tmp)
		}
		dir = filepath.Join(tmp, "repo.git")
		if _, err := git(tmp, "clone", "-q", "--bare", src.Path, dir); err != nil {
			return nil, err
		}
	}
	// HEAD is where the asker's checkout is: the pinned commit (or the
	// source's HEAD) while candidates are picked, each query's parent while
	// it is asked (see atParent). It is set from the source first, so that
	// a cached clone left at some parent by an interrupted run picks the
	// same commits again.
	if err := resetHead(src, dir); err != nil {
		return nil, err
	}
	defer resetHead(src, dir)
	// Queries are picked below the pinned commit, or below the newest
	// commit an ad-hoc clone had (tipRef).
	if src.Pin != "" {
		if _, err := git(dir, "update-ref", tipRef, src.Pin); err != nil {
			return nil, err
		}
	} else if _, err := git(dir, "rev-parse", "-q", "--verify", tipRef); err != nil {
		if _, err := git(dir, "update-ref", tipRef, "HEAD"); err != nil {
			return nil, err
		}
	}
	var cands []candidate
	var err error
	switch set {
	case setIssues:
		cands, err = pickIssues(dir, in.issues)
	case setSWEBench:
		cands, err = pickSWEBench(dir, ownerName(name), in.swe, *sweN)
	case setQuestions:
		cands, err = pickQuestions(dir, tipRef, in.questions)
	default:
		cands, err = pick(dir, set == setLong)
	}
	if err != nil {
		return nil, err
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var qs []query
	fmt.Fprintf(os.Stderr, "%s: %d candidate commits\n", name, len(cands))
	leaked := 0
	defer func() {
		if leaked > 0 {
			fmt.Fprintf(os.Stderr, "%s: %d queries left out: their own commit was in the history asked\n", name, leaked)
		}
	}()
	var extractT, openT, queryT time.Duration
	known := knownMemory(repo)
	fb, err := newFileBaseline()
	if err != nil {
		return nil, err
	}
	defer fb.idx.Close()
	for i, c := range cands {
		t0 := time.Now()
		if err := atParent(dir, c.parent); err != nil {
			return nil, err
		}
		var mem *memref.Memory
		if h, ok := known[c.parent]; ok {
			if mem, err = memref.ReadCommit(repo, h); err != nil {
				return nil, err
			}
		} else {
			opt := extract.Options{Rev: c.parent, Mode: extract.ModeChanged, ToolVersion: "eval"}
			if i == 0 {
				opt.Mode = extract.ModeFull
			}
			if _, err := extract.Run(ctx, repo, opt); err != nil {
				return nil, fmt.Errorf("extract %s: %w", c.parent, err)
			}
			if mem, err = memref.Read(repo, "refs/konteks"); err != nil {
				return nil, err
			}
			if _, err := git(dir, "update-ref", memoryRefs+c.parent, mem.Commit.String()); err != nil {
				return nil, err
			}
			// Another query of the same parent asks this memory too, in
			// this run as in a later one that reuses the cache. Extracted
			// again after memory had moved on, its history would hold
			// other lines (and maybe the query's own commit, which
			// leaves the query out), and the ref a later run reads would
			// not be the memory this run asked.
			known[c.parent] = mem.Commit
		}
		extractT += time.Since(t0)
		t0 = time.Now()
		var answer []string
		for _, p := range c.changed {
			if _, ok, _ := memref.Record(repo, mem.Tree, p); ok {
				answer = append(answer, p)
			}
		}
		if len(answer) == 0 || len(answer) > *maxFiles {
			continue
		}
		// History is the union of every line of history memory has been
		// extracted at (history.State.Tips): when an earlier step took
		// memory past this commit and back, the answer's own commit may
		// be recorded. Such a query would read its answer; it is left out.
		if c.commit == "" {
			// A SWE-bench instance or a question: no commit of this
			// history answers it.
		} else if in, err := inHistory(repo, mem, c.commit); err != nil {
			return nil, err
		} else if in {
			leaked++
			continue
		}
		if err := fb.update(repo, mem); err != nil {
			return nil, err
		}
		s, err := recall.Open(ctx, repo, recall.OpenOptions{Memory: mem})
		if err != nil {
			return nil, err
		}
		openT += time.Since(t0)
		q := query{Set: set, Repo: name, ID: c.id, Commit: c.commit, Query: c.msg, Answer: answer, Memory: mem.Commit.String(), Ranks: map[string]any{}, ranksBy: map[string][]int{}}
		t0 = time.Now()
		ranked := map[string][]string{} // the files-bm25 and vector rankings fusedMode fuses
		for _, m := range modes {
			if m == baselineMode {
				paths, err := fb.search(c.msg, *depth)
				if err != nil {
					return nil, err
				}
				ranked[m] = paths
				rs := ranksOf(paths, answer)
				q.ranksBy[m] = rs
				q.Ranks[m] = rs
				continue
			}
			if m == fusedMode {
				continue // after the rankings it fuses
			}
			opt := recall.Options{Limit: *depth, PerFile: 1, Mode: m, NoContent: true}
			if strings.HasPrefix(m, "v:") {
				opt.Mode = recall.Hybrid
				for _, v := range variantList {
					if "v:"+v.name == m {
						opt.Ranking = v.rk
					}
				}
			}
			res, err := s.Search(ctx, c.msg, opt)
			if err != nil {
				s.Close()
				return nil, err
			}
			paths := make([]string, 0, len(res.Hits))
			for _, h := range res.Hits {
				paths = append(paths, h.Path)
			}
			ranked[m] = paths
			rs := ranksOf(paths, answer)
			q.ranksBy[m] = rs
			q.Ranks[m] = rs
		}
		if slices.Contains(modes, fusedMode) {
			fused := fuse(fusedK, ranked[baselineMode], ranked[recall.Vector])
			if len(fused) > *depth {
				fused = fused[:*depth]
			}
			rs := ranksOf(fused, answer)
			q.ranksBy[fusedMode] = rs
			q.Ranks[fusedMode] = rs
		}
		if *featOut != "" {
			if err := writeFeatures(ctx, s, q); err != nil {
				s.Close()
				return nil, err
			}
		}
		if *strength {
			if err := judge(ctx, s, c.msg, answer); err != nil {
				s.Close()
				return nil, err
			}
		}
		queryT += time.Since(t0)
		s.Close()
		qs = append(qs, q)
		if *verbose {
			fmt.Fprintf(os.Stderr, "%.10s files %v lex %v vec %v hyb %v  %s  %v\n", c.commit, q.ranksBy[baselineMode], q.ranksBy[recall.Lexical], q.ranksBy[recall.Vector], q.ranksBy[recall.Hybrid], firstLine(c.msg), answer)
		}
		if len(qs) >= *nCommits {
			break
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %d queries; extraction %v, index open/update %v, queries %v\n", name, len(qs), extractT.Round(time.Millisecond), openT.Round(time.Millisecond), queryT.Round(time.Millisecond))
	return qs, nil
}

// atParent detaches HEAD at a query's parent commit: the query is asked
// from a checkout there, as the agent fixing it would have. Recall leaves
// out hits for files HEAD does not have (a checkout elsewhere than memory's
// source), so a HEAD left at the mirror's newest commit would hide every
// answer file that was later renamed or deleted.
func atParent(dir, parent string) error {
	_, err := git(dir, "update-ref", "--no-deref", "HEAD", parent)
	return err
}

// resetHead points the clone's HEAD at the pinned commit, or where the
// source's is: the same branch (symbolic), or the same commit when the
// source's is detached.
func resetHead(s source, dir string) error {
	if s.Pin != "" {
		_, err := git(dir, "update-ref", "--no-deref", "HEAD", s.Pin)
		return err
	}
	src := s.Path
	if ref, err := git(src, "symbolic-ref", "-q", "HEAD"); err == nil && strings.TrimSpace(ref) != "" {
		_, err := git(dir, "symbolic-ref", "HEAD", strings.TrimSpace(ref))
		return err
	}
	h, err := git(src, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	_, err = git(dir, "update-ref", "--no-deref", "HEAD", strings.TrimSpace(h))
	return err
}

// knownMemory maps source commits to the memory commits describing them:
// those a cached clone's earlier runs kept under memoryRefs, and the
// history of refs/konteks.
func knownMemory(repo *gitstore.Repo) map[string]gitstore.Hash {
	out := map[string]gitstore.Hash{}
	if refs, _, err := repo.RefsWithPrefix(memoryRefs); err == nil {
		for name, h := range refs {
			out[strings.TrimPrefix(name, memoryRefs)] = h
		}
	}
	h, err := repo.ReadRef("refs/konteks")
	for err == nil && !h.IsZero() {
		m, err := memref.ReadCommit(repo, h)
		if err != nil || m.Manifest == nil {
			break
		}
		if _, ok := out[m.Manifest.SourceCommit]; !ok {
			out[m.Manifest.SourceCommit] = h
		}
		c, err := repo.Commit(h)
		if err != nil || len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	return out
}

// memoryRefs is where a clone keeps the memory extracted at each query's
// parent (memoryRefs + source commit): memory's own chain is squashed
// (konteks.history.keep), and a later run must ask the same memory.
const memoryRefs = "refs/eval/memory/"

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// tipRef is where a clone keeps the commit its queries are picked from
// (its HEAD when cloned): HEAD is moved to each query's parent.
const tipRef = "refs/eval/tip"

// pick lists candidate commits, oldest first: non-merge, not by a bot,
// with a message, changing at least one file that existed at the parent.
// With long, only those whose message is long (see setLong), the newest
// 2n of them.
func pick(dir string, long bool) ([]candidate, error) {
	limit, msgCap := *nCommits*3, 1000
	if long {
		limit, msgCap = longDepth, textCap
	}
	out, err := git(dir, "log", "--no-merges", "-z", fmt.Sprintf("-n%d", limit), "--format=%H%x00%P%x00%an%x00%B", tipRef)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(out, "\x00")
	var cands []candidate
	for i := 0; i+3 < len(fields); i += 4 {
		h := strings.TrimSpace(fields[i])
		parents := strings.Fields(fields[i+1])
		author := fields[i+2]
		msg := cleanMessage(fields[i+3], msgCap)
		if len(parents) != 1 || len(msg) < 8 || isBot(author) || long && len(msg) < longMessage {
			continue
		}
		changed, err := changedAtParent(dir, parents[0], h)
		if err != nil {
			return nil, err
		}
		if len(changed) == 0 {
			continue
		}
		cands = append(cands, candidate{commit: h, parent: parents[0], msg: msg, changed: changed})
		if long && len(cands) >= 2**nCommits {
			break
		}
	}
	for i, j := 0, len(cands)-1; i < j; i, j = i+1, j-1 {
		cands[i], cands[j] = cands[j], cands[i]
	}
	return cands, nil
}

// changedAtParent lists the files a commit modified, deleted or renamed
// away (paths at its parent), sorted: the files that can be found there.
func changedAtParent(dir, parent, commit string) ([]string, error) {
	ns, err := git(dir, "diff-tree", "-r", "-z", "--no-commit-id", "--name-status", "-M", parent, commit)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(strings.TrimRight(ns, "\x00"), "\x00")
	var changed []string
	for j := 0; j < len(parts); {
		st := parts[j]
		switch {
		case st == "":
			j++
		case strings.HasPrefix(st, "R") || strings.HasPrefix(st, "C"):
			if j+2 < len(parts) && strings.HasPrefix(st, "R") {
				changed = append(changed, parts[j+1])
			}
			j += 3
		case st == "A":
			j += 2
		default:
			if j+1 < len(parts) {
				changed = append(changed, parts[j+1])
			}
			j += 2
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// inHistory reports whether commit is recorded in the history of mem: an
// ancestor of (or equal to) one of its tips.
func inHistory(repo *gitstore.Repo, mem *memref.Memory, commit string) (bool, error) {
	st, err := history.ReadState(repo, mem.Tree)
	if err != nil || st == nil {
		return false, err
	}
	for _, t := range st.Tips {
		if ok, err := repo.IsAncestor(gitstore.ParseHash(commit), gitstore.ParseHash(t)); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

func isBot(author string) bool {
	a := strings.ToLower(author)
	return strings.Contains(a, "[bot]") || strings.Contains(a, "dependabot") || strings.Contains(a, "renovate")
}

// cleanMessage drops trailers (Signed-off-by:, Co-authored-by:, ...) and
// bounds the message to n bytes: the query is what a person wrote about
// the change.
func cleanMessage(msg string, n int) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		t := strings.TrimSpace(l)
		if k, _, ok := strings.Cut(t, ": "); ok && isTrailer(k) {
			continue
		}
		keep = append(keep, l)
	}
	s := strings.TrimSpace(strings.Join(keep, "\n"))
	if len(s) > n {
		s = s[:n]
	}
	return s
}

func isTrailer(k string) bool {
	switch strings.ToLower(k) {
	case "signed-off-by", "co-authored-by", "reviewed-by", "acked-by", "tested-by", "reported-by",
		"change-id", "reviewed-on", "run-tryboty", "trybot-result", "auto-submit", "commit-queue", "cc":
		return true
	}
	return false
}

// featureRow is one query of a -features file: its candidate files in
// the pipeline's order, each with its features and whether it is an
// answer file.
type featureRow struct {
	Set    string        `json:"set"`
	Repo   string        `json:"repo"`
	ID     string        `json:"id,omitempty"`
	Commit string        `json:"commit,omitempty"`
	Query  string        `json:"query"`
	Answer []string      `json:"answer"`
	Names  []string      `json:"names"`
	Files  []featureFile `json:"files"`
}

type featureFile struct {
	Path   string    `json:"path"`
	Answer bool      `json:"answer,omitempty"`
	X      []float64 `json:"x"`
}

// writeFeatures appends q's candidate files and their features to the
// -features file.
func writeFeatures(ctx context.Context, s *recall.Searcher, q query) error {
	fs, err := s.Features(ctx, q.Query, recall.Options{})
	if err != nil {
		return err
	}
	row := featureRow{Set: q.Set, Repo: q.Repo, ID: q.ID, Commit: q.Commit, Query: q.Query, Answer: q.Answer, Names: recall.FeatureNames}
	for _, f := range fs {
		row.Files = append(row.Files, featureFile{Path: f.Path, Answer: slices.Contains(q.Answer, f.Path), X: f.X})
	}
	b, err := json.Marshal(row)
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(*featOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
