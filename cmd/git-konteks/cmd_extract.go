package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
	"github.com/konteks/git-konteks/share"
)

// extractOptions are extract's flags.
type extractOptions struct {
	Mode, Rev     string
	Workers       int
	NoWait, Quiet bool
}

func extractCommand(g *GlobalOptions) *cli.Command {
	var opts extractOptions
	return &cli.Command{
		Name:  "extract",
		Usage: "extract memory from a commit and commit it under refs/konteks",
		Description: "Reads the commit named by --rev (default HEAD) from the object database, never the\n" +
			"work tree, and records every remembered file under refs/konteks.\n\n" +
			"Modes:\n" +
			"  changed  only paths that differ from the commit memory describes (default when memory exists)\n" +
			"  full     every path; records of unchanged, renamed or copied files are reused by blob id\n" +
			"  resume   finish an interrupted run from its last checkpoint (refs/konteks-wip)\n" +
			"  rebuild  discard derived memory and extract everything again; durable memories are kept",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "mode", Destination: &opts.Mode, Usage: "`MODE`: full, changed, resume or rebuild (default: changed if memory exists, else full)"},
			&cli.StringFlag{Name: "rev", Value: "HEAD", Destination: &opts.Rev, Usage: "source `REVISION` to extract"},
			&cli.IntFlag{Name: "workers", Destination: &opts.Workers, Usage: "sectioning workers", DefaultText: "number of CPUs"},
			&cli.BoolFlag{Name: "no-wait", Destination: &opts.NoWait, Usage: "fail instead of waiting when another extraction is running"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &opts.Quiet, Usage: "print nothing but errors"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error { return runExtract(c.Context, opts, g, c.Args().Slice()) },
	}
}

func runExtract(ctx context.Context, opts extractOptions, g *GlobalOptions, _ []string) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	quiet, asJSON := opts.Quiet, g.JSON
	opt := extract.Options{
		Mode:        opts.Mode,
		Rev:         opts.Rev,
		Workers:     opts.Workers,
		NoWait:      opts.NoWait,
		ToolVersion: version,
	}
	// Checkpoint spacing is tunable for tests and very large repositories.
	if n, err := strconv.Atoi(g.Getenv("KONTEKS_CHECKPOINT_EVERY")); err == nil && n > 0 {
		opt.CheckpointEvery = n
	}
	if !quiet {
		opt.Wait = func(holder string) {
			fmt.Fprintf(g.Stderr, "waiting for another extraction to finish (%s)...\n", holder)
		}
	}
	var bar *progressLine
	if !quiet && !asJSON && g.stderrIsTerminal() {
		bar = &progressLine{w: g.Stderr, start: time.Now()}
		opt.Progress = bar.update
	}
	res, err := extract.Run(ctx, repo, opt)
	bar.clear()
	if err != nil {
		return stopped(ctx, err, true)
	}
	// Memory is searchable when the command returns: the search index is
	// brought up to date with the memory just written (from the memory
	// diff; built when there is none), not left to the first recall.
	ixr, err := indexMemory(ctx, repo, bar, res.Fresh)
	if err != nil {
		if ctx.Err() != nil {
			return stopped(ctx, err, true)
		}
		if !quiet {
			fmt.Fprintf(g.Stderr, "warning: search index not updated (recall will): %v\n", err)
		}
	}
	if res.Manifest != nil && res.Manifest.History != nil && res.Manifest.History.Pending {
		// The first walk recorded recent history; the background runner
		// records the rest, so that this command does not wait for it.
		g.startRunner(repo, "history")
	}
	switch {
	case asJSON:
		return g.printJSON(extractOutput{
			Commit: res.Commit.String(), Previous: hashOrEmpty(res.Previous.String()),
			UpToDate: res.UpToDate, Manifest: res.Manifest, Index: ixr.how,
		})
	case quiet:
		return nil
	}
	printExtractSummary(g.Stdout, res, ixr)
	return nil
}

// indexRun is what updating the search index did after a run.
type indexRun struct {
	how  string // current, update or build ("" when it failed)
	took time.Duration
}

// indexMemory brings the search index up to date with refs/konteks,
// showing its progress on bar.
func indexMemory(ctx context.Context, repo *gitstore.Repo, bar *progressLine, fresh map[gitstore.Hash]*memory.File) (indexRun, error) {
	t0 := time.Now()
	opt := index.Options{Fresh: fresh}
	if bar != nil {
		opt.Progress = func(done, total int) {
			bar.update(extract.Progress{Stage: "index", Done: done, Total: total})
		}
	}
	how, err := recall.UpdateIndex(ctx, repo, opt)
	bar.clear()
	if err != nil {
		return indexRun{}, err
	}
	return indexRun{how: how, took: time.Since(t0)}, nil
}

// fetchOptions are what the commands that fetch memory add to a fetch:
// the search index of a peer's memory, built before that memory is
// adopted, is the check that its records decode, so they are decoded once
// (share.Indexer); and on a terminal, unless the output is JSON, the
// check of their history and that build show their progress on one line
// (seconds each on a large history or tree), cleared by done.
func (g *GlobalOptions) fetchOptions(ctx context.Context, repo *gitstore.Repo) (opt share.FetchOptions, done func()) {
	var bar *progressLine
	if !g.JSON && g.stderrIsTerminal() {
		bar = &progressLine{w: g.Stderr, start: time.Now()}
	}
	opt.Index = func(tm *memref.Memory, b *memref.Budget) error {
		iopt := index.Options{Budget: b}
		if bar != nil {
			iopt.Progress = func(done, total int) {
				bar.update(extract.Progress{Stage: "index", Done: done, Total: total})
			}
		}
		_, err := recall.IndexMemory(ctx, repo, tm, iopt)
		return err
	}
	if bar != nil {
		opt.HistoryProgress = func(done, total int) {
			bar.update(extract.Progress{Stage: "history", Done: done, Total: total})
		}
	}
	return opt, bar.clear
}

type extractOutput struct {
	Commit   string             `json:"commit"`
	Previous string             `json:"previous,omitempty"`
	UpToDate bool               `json:"up_to_date"`
	Manifest *manifest.Manifest `json:"manifest"`
	// Index says how the search index was brought up to date with the
	// memory written: current, update or build ("" when it could not be).
	Index string `json:"index,omitempty"`
}

func hashOrEmpty(h string) string {
	if strings.Trim(h, "0") == "" {
		return ""
	}
	return h
}

func printExtractSummary(w io.Writer, res *extract.Result, ixr indexRun) {
	m := res.Manifest
	if res.UpToDate {
		fmt.Fprintf(w, "memory %s is up to date with %s\n", shortHash(res.Commit.String()), shortHash(m.SourceCommit))
		return
	}
	fmt.Fprintf(w, "memory %s: %s extraction of %s", shortHash(res.Commit.String()), m.Mode, shortHash(m.SourceCommit))
	if m.Reason != "" {
		fmt.Fprintf(w, " (%s)", m.Reason)
	}
	fmt.Fprintln(w)
	t := m.Totals
	fmt.Fprintf(w, "  files:    %d scanned, %d included, %d skipped%s\n", t.Scanned, t.Included, sumMap(t.Skipped), formatCounts(t.Skipped))
	fmt.Fprintf(w, "  sections: %d%s\n", t.Sections, formatCounts(t.SectionsByKind))
	fmt.Fprintf(w, "  this run: %d extracted, %d reused, %d removed\n", m.Run.Extracted, m.Run.Reused, m.Run.Removed)
	if h := m.History; h != nil {
		fmt.Fprintf(w, "  history:  %d commits (%d new)", h.Commits, h.New)
		if h.Oldest > 0 {
			fmt.Fprintf(w, ", back to %s", time.Unix(h.Oldest, 0).UTC().Format("2006-01-02"))
		}
		if h.Pending {
			fmt.Fprint(w, "; older history is being recorded in the background")
		}
		fmt.Fprintln(w)
	}
	secs := m.Finished.Sub(m.Started).Seconds()
	if secs > 0 {
		fmt.Fprintf(w, "  read %.1f MB in %.2fs (%.1f MB/s)\n", float64(m.Run.BytesRead)/1e6, secs, float64(m.Run.BytesRead)/1e6/secs)
	}
	timings := m.Timings
	if ixr.how == "update" || ixr.how == "build" {
		// The index is updated after the memory commit, so the manifest
		// cannot hold its time: it joins the stages here.
		timings = maps.Clone(timings)
		if timings == nil {
			timings = map[string]float64{}
		}
		timings["index"] = float64(ixr.took.Microseconds()) / 1000
	}
	if s := formatTimings(timings); s != "" {
		fmt.Fprintf(w, "  stages:   %s\n", s)
	}
}

// stageOrder is the order in which a run's stages happen.
var stageOrder = []string{"plan", "gate", "extract", "checkpoint", "media", "summaries", "map", "embed", "history", "write", "index"}

// formatTimings renders the stage times of a run, in the order they ran:
// "plan 63ms, extract 1.48s (62%), ...". Stages of under a millisecond
// are left out; a stage of a second or more says its share of all the
// stages' time.
func formatTimings(ms map[string]float64) string {
	var parts []string
	seen := map[string]bool{}
	total := 0.0
	for _, v := range ms {
		total += v
	}
	add := func(k string) {
		if v, ok := ms[k]; ok && !seen[k] {
			seen[k] = true
			if v >= 1 {
				part := k + " " + (time.Duration(v * 1e6)).Round(time.Millisecond).String()
				if v >= 1000 && total > 0 {
					part += fmt.Sprintf(" (%.0f%%)", 100*v/total)
				}
				parts = append(parts, part)
			}
		}
	}
	for _, k := range stageOrder {
		add(k)
	}
	rest := make([]string, 0, len(ms))
	for k := range ms {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		add(k)
	}
	return strings.Join(parts, ", ")
}

func sumMap(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// formatCounts renders " (a 3, b 1)" with the largest first.
func formatCounts(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// progressLine draws one self-overwriting status line on a terminal.
type progressLine struct {
	w     io.Writer
	mu    sync.Mutex
	start time.Time
	last  time.Time
	drawn bool
}

func (p *progressLine) update(pr extract.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && pr.Done != pr.Total {
		return
	}
	p.last = now
	switch {
	case pr.Stage == "extract":
		rate := float64(pr.Bytes) / 1e6 / now.Sub(p.start).Seconds()
		fmt.Fprintf(p.w, "\r\033[K%s: %d/%d files, %.1f MB read (%.1f MB/s)", pr.Stage, pr.Done, pr.Total, float64(pr.Bytes)/1e6, rate)
	case pr.Stage == "index" && pr.Total > 0:
		fmt.Fprintf(p.w, "\r\033[Ksearch index: %d/%d files", pr.Done, pr.Total)
	case pr.Stage == "history" && pr.Total > 0:
		fmt.Fprintf(p.w, "\r\033[Khistory: %d/%d commits", pr.Done, pr.Total)
	case pr.Stage == "history" && pr.Done > 0:
		fmt.Fprintf(p.w, "\r\033[Khistory: %d commits", pr.Done)
	default:
		fmt.Fprintf(p.w, "\r\033[K%s...", pr.Stage)
	}
	p.drawn = true
}

func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
