// Command model trains the static model recall embeds with (make model;
// docs/model.md): a table of token vectors learned from pairs the history
// of public repositories already holds — a commit's message and the code
// it changed, as it was before the change — and their trees hold — a
// definition's doc comment and its code (docs.go) and, with -guides, a
// documentation passage and the definitions it names (guides.go).
//
//	go run ./scripts/model [-repos scripts/model/repos.tsv] [-dir $KONTEKS_TRAIN_REPOS]
//	    [-cache DIR] [-n 10000] [-docs 3000] [-guides 0] [-dim 256] [-vocab 65536] [-epochs 2]
//	    [-ranker-repos scripts/ranker/repos.tsv] [-holdout owner/name,...] [-seed 1] [-out embed/static/model.bin]
//
// The repositories are listed with the commit each is read at; none of
// them is one the evaluation asks (scripts/eval) — the list is checked
// against the evaluation's and each entry against the project's exclusion
// list before it is added. -dir holds their clones (scripts/fetch-repos.sh
// makes them); a repository's pairs are cached under -cache so that a
// second run trains without reading history again.
//
// The learned ranker's training repositories (-ranker-repos) are read but
// never trained on: the ranker fits how much to trust the model's
// similarity, and must see it as it is on a repository the model never
// saw. The model is scored on them after each epoch (MRR of a commit's
// message for its own files among the files of 400 of that repository's
// commits). With -holdout the repositories named are held out and scored
// too, and no model is written.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/konteks/git-konteks/embed"
)

type repoEntry struct {
	name, commit, lang string
}

func main() {
	reposFile := flag.String("repos", "scripts/model/repos.tsv", "training repositories: owner/name, commit, language")
	dir := flag.String("dir", os.Getenv("KONTEKS_TRAIN_REPOS"), "directory of the repositories' clones (owner+name/ or owner+name/repo)")
	cache := flag.String("cache", "", "directory of the pairs cache (default DIR/.pairs)")
	n := flag.Int("n", 10000, "newest non-merge commits read per repository")
	docs := flag.Int("docs", 3000, "doc-comment pairs read per repository (0: none)")
	guides := flag.Int("guides", 0, "guide pairs (documentation passages and the definitions they name) read per repository (0: none)")
	dim := flag.Int("dim", 256, "vector dimension")
	vocabSize := flag.Int("vocab", 65536, "tokens in the model")
	minDF := flag.Int("min-df", 5, "least document frequency of a token")
	epochs := flag.Int("epochs", 2, "passes over the pairs")
	batch := flag.Int("batch", 256, "pairs per batch (all of one repository)")
	rankerRepos := flag.String("ranker-repos", "scripts/ranker/repos.tsv", "the learned ranker's training repositories: scored, never trained on (empty: none)")
	holdout := flag.String("holdout", "", "comma-separated repositories held out and scored besides those (no model written)")
	seed := flag.Uint64("seed", 1, "random seed")
	lr := flag.Float64("lr", 0.05, "learning rate (Adagrad)")
	temp := flag.Float64("temp", 0.05, "softmax temperature")
	jobs := flag.Int("jobs", 3, "repositories read at once")
	out := flag.String("out", "embed/static/model.bin", "model file written")
	flag.Parse()
	if *dir == "" {
		log.Fatal("model: set KONTEKS_TRAIN_REPOS (or -dir) to the directory of the training repositories' clones; scripts/fetch-repos.sh scripts/model/repos.tsv makes them")
	}
	if *cache == "" {
		*cache = filepath.Join(*dir, ".pairs")
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		log.Fatal(err)
	}
	repos, err := readRepos(*reposFile)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("seed %d", *seed)
	rng := rand.New(rand.NewPCG(*seed, 0x6b6f6e74656b73))
	ctx := context.Background()
	held := map[string]bool{}
	for _, h := range strings.Split(*holdout, ",") {
		if h != "" {
			held[h] = true
		}
	}
	write := len(held) == 0
	if *rankerRepos != "" {
		rr, err := readRepos(*rankerRepos)
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range rr {
			held[r.name] = true
		}
	}
	all := make([][]pair, len(repos))
	names := make([]string, len(repos))
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, *jobs)
	for i, r := range repos {
		names[i] = r.name
		gitDir, err := findGitDir(*dir, r.name)
		if err != nil {
			log.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ps, err := readPairs(ctx, gitDir, r.commit, filepath.Join(*cache, fmt.Sprintf("%s.%s.n%d.gz", strings.ReplaceAll(r.name, "/", "+"), r.commit[:12], *n)), *n)
			if err != nil {
				// a snapshot without its largest blobs stops git log at the
				// first commit that changed one
				log.Printf("warning: %s: history read stopped after %d pairs: %v", r.name, len(ps), err)
			}
			var dps []pair
			if *docs > 0 {
				dps, err = readDocPairs(ctx, gitDir, r.commit, filepath.Join(*cache, fmt.Sprintf("%s.%s.docs%d.gz", strings.ReplaceAll(r.name, "/", "+"), r.commit[:12], *docs)), *docs)
				if err != nil {
					log.Fatalf("%s: doc pairs: %v", r.name, err)
				}
			}
			var gps []pair
			if *guides > 0 {
				gps, err = readGuidePairs(ctx, gitDir, r.commit, filepath.Join(*cache, fmt.Sprintf("%s.%s.guides%d.gz", strings.ReplaceAll(r.name, "/", "+"), r.commit[:12], *guides)), *guides)
				if err != nil {
					log.Fatalf("%s: guide pairs: %v", r.name, err)
				}
			}
			log.Printf("%-40s %5d commit pairs, %5d doc pairs, %5d guide pairs", r.name, len(ps), len(dps), len(gps))
			all[i] = slices.Concat(ps, dps, gps)
		}()
	}
	wg.Wait()
	log.Printf("pairs read in %s", time.Since(start).Round(time.Second))
	var trainSets [][]pair
	for i, ps := range all {
		if !held[names[i]] {
			trainSets = append(trainSets, ps)
		}
	}
	vocab, idf := buildVocab(trainSets, *vocabSize, *minDF)
	t := newTrainer(vocab, idf, *dim, rng)
	t.lr, t.temp = float32(*lr), float32(*temp)
	log.Printf("%s", t)
	var train []example
	heldEx := map[string][]example{}
	for i, ps := range all {
		for _, p := range ps {
			e := example{repo: i, q: t.bag(p.Query), group: names[i] + "/" + p.Commit}
			for _, d := range p.Docs {
				if b := t.bag(d); len(b.ids) > 0 {
					e.docs = append(e.docs, b)
				}
			}
			if len(e.q.ids) == 0 || len(e.docs) == 0 {
				continue
			}
			if held[names[i]] {
				// held-out repositories are scored on their commits alone
				if !strings.HasPrefix(p.Commit, "doc:") && !strings.HasPrefix(p.Commit, "guide:") {
					heldEx[names[i]] = append(heldEx[names[i]], e)
				}
			} else {
				train = append(train, e)
			}
		}
	}
	log.Printf("%d training examples, %d held-out repositories", len(train), len(heldEx))
	score := func(tag string) {
		if len(heldEx) == 0 {
			return
		}
		var parts []string
		total := 0.0
		for _, name := range names {
			exs := heldEx[name]
			if len(exs) == 0 {
				continue
			}
			m := t.mrr(exs, 400)
			total += m
			parts = append(parts, fmt.Sprintf("%s %.3f", name, m))
		}
		log.Printf("%s held-out MRR %.3f (%s)", tag, total/float64(len(heldEx)), strings.Join(parts, ", "))
	}
	score("epoch 0")
	for ep := 1; ep <= *epochs; ep++ {
		began := time.Now()
		batches := makeBatches(train, *batch, rng)
		loss, k := 0.0, 0
		for bi, b := range batches {
			qs := make([]bag, len(b))
			ds := make([]bag, len(b))
			groups := make([]string, len(b))
			for i, e := range b {
				qs[i], ds[i], groups[i] = e.q, e.docs[rng.IntN(len(e.docs))], e.group
			}
			loss += t.step(qs, ds, groups)
			k++
			if bi%200 == 199 {
				log.Printf("epoch %d batch %d/%d loss %.3f", ep, bi+1, len(batches), loss/float64(k))
				loss, k = 0, 0
			}
		}
		log.Printf("epoch %d done in %s", ep, time.Since(began).Round(time.Second))
		score(fmt.Sprintf("epoch %d", ep))
	}
	if !write {
		return
	}
	b, err := embed.EncodeStatic(*dim, vocab, t.rowsOut())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
	m, err := embed.DecodeStatic(b)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %s, %d tokens, %d bytes", *out, m.ID(), m.Len(), len(b))
}

// makeBatches shuffles the examples and cuts them into batches whose
// examples all come from one repository: negatives from the same
// repository are the ones recall must tell apart.
func makeBatches(exs []example, size int, rng *rand.Rand) [][]example {
	by := map[int][]example{}
	for _, e := range exs {
		by[e.repo] = append(by[e.repo], e)
	}
	var out [][]example
	for r := 0; r < len(by)+1000; r++ {
		es, ok := by[r]
		if !ok {
			continue
		}
		rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		for i := 0; i+size/2 <= len(es); i += size {
			out = append(out, es[i:min(i+size, len(es))])
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func readRepos(file string) ([]repoEntry, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []repoEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || len(f[1]) != 40 {
			return nil, fmt.Errorf("%s: want owner/name, 40-hex commit, language: %q", file, line)
		}
		out = append(out, repoEntry{name: f[0], commit: f[1], lang: f[2]})
	}
	return out, sc.Err()
}

func findGitDir(dir, name string) (string, error) {
	base := filepath.Join(dir, strings.ReplaceAll(name, "/", "+"))
	for _, c := range []string{base + "/repo/.git", base + "/repo", base + "/.git", base} {
		if _, err := os.Stat(filepath.Join(c, "HEAD")); err == nil {
			if _, err := os.Stat(filepath.Join(c, "objects")); err == nil {
				return c, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no clone under %s (scripts/fetch-repos.sh makes one)", name, base)
}
