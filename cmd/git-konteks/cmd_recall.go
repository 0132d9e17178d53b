package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
)

func recallCommand() *cli.Command {
	return &cli.Command{
		Name:      "recall",
		Usage:     "find the sections of memory that matter for a task or question",
		ArgsUsage: `"task or question"`,
		Description: "Ranks every section of memory (functions, types, headings, config keys, files) for the\n" +
			"task: BM25 over their text and vector similarity, fused by reciprocal rank, with boosts for\n" +
			"symbol definitions and names the task mentions, and at most a few hits per file.\n" +
			"Prints one hit per line (path:start-end  name  summary), or JSON with --json. With --files it\n" +
			"answers with files instead: one per line, each with its best sections and why it is there.\n" +
			"--path and --tests narrow either answer to some paths, or to or away from test code.\n" +
			"The search index is a local cache under .git/konteks/index, brought up to date from\n" +
			"refs/konteks on the way.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Usage: "number of hits"},
			&cli.BoolFlag{Name: "refresh", Usage: "run a `changed` extraction first, so memory describes HEAD"},
			&cli.StringFlag{Name: "mode", Value: recall.Hybrid, Usage: "`MODE`: hybrid, lexical or vector"},
			&cli.BoolFlag{Name: "files", Usage: "answer with files: one per line, ranked by their best section, with their best sections and why"},
			&cli.StringSliceFlag{Name: "path", Usage: "only paths matching `GLOB` (*, **, ?; no slash: a name at any depth); !GLOB excludes; repeatable"},
			&cli.StringFlag{Name: "tests", Value: recall.TestsInclude, Usage: "test code: include, exclude or `only`"},
			jsonFlag,
		},
		Action: runRecall,
	}
}

// recallHit is one line of `recall --json`: the hit, and the commit memory
// describes, so that every answer says how current it is.
type recallHit struct {
	recall.Hit
	SourceCommit string `json:"source_commit"`
	HeadMoved    bool   `json:"head_moved"`
}

func runRecall(c *cli.Context) error {
	task := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
	if task == "" {
		return cli.Exit("recall needs a task or question, e.g. git konteks recall \"where are retries handled\"", 2)
	}
	switch c.String("mode") {
	case recall.Hybrid, recall.Lexical, recall.Vector:
	default:
		return cli.Exit(fmt.Sprintf("unknown --mode %q (want hybrid, lexical or vector)", c.String("mode")), 2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := openSearcher(ctx, c.Bool("refresh"))
	if err != nil {
		return err
	}
	defer s.Close()
	opt := recall.Options{Limit: c.Int("limit"), Mode: c.String("mode"), Paths: c.StringSlice("path"), Tests: c.String("tests")}
	if c.Bool("files") {
		return runRecallFiles(ctx, c, s, task, opt)
	}
	res, err := s.Search(ctx, task, opt)
	if err != nil {
		return usageError(err)
	}
	// Durable memories and diary entries that match the task come first:
	// decisions and constraints weigh more than code that merely matches.
	mems, err := matchMemories(s, task, res.Hits)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		out := make([]recallHit, 0, len(mems)+len(res.Hits))
		for _, m := range mems {
			out = append(out, recallHit{Hit: memoryAsHit(m), SourceCommit: res.Memory.SourceCommit, HeadMoved: res.Memory.HeadMoved})
		}
		for _, h := range res.Hits {
			out = append(out, recallHit{Hit: h, SourceCommit: res.Memory.SourceCommit, HeadMoved: res.Memory.HeadMoved})
		}
		// stderr carries the notes and the memory line for people; the
		// JSON array stays clean for programs.
		printNotes(res.Notes, res.Memory, true)
		return printJSON(c, out)
	}
	w := c.App.Writer
	for _, m := range mems {
		fmt.Fprintf(w, "memory:%s  %s  %s\n", m.ID[:10], memoryLabel(m), flatLine(m.Text, 120))
	}
	for _, h := range res.Hits {
		name := h.Name
		if name == "" {
			name = h.Anchor
		}
		line := fmt.Sprintf("%s:%d-%d  %s  %s", h.Path, h.StartLine, h.EndLine, name, flatLine(h.Summary, 120))
		if h.Via != "" {
			line += "  (" + h.Via + ")"
		}
		fmt.Fprintln(w, line)
	}
	if len(res.Hits) == 0 && len(mems) == 0 {
		fmt.Fprintln(w, "no section of memory matches")
	}
	fmt.Fprintln(w, memoryLine(res.Memory))
	printNotes(res.Notes, res.Memory, false)
	return nil
}

// usageError makes a bad --path or --tests a usage error (exit 2).
func usageError(err error) error {
	if errors.Is(err, recall.ErrBadFilter) {
		return cli.Exit(err.Error(), 2)
	}
	return err
}

// recallFile is one line of `recall --files --json`.
type recallFile struct {
	recall.FileHit
	SourceCommit string `json:"source_commit"`
	HeadMoved    bool   `json:"head_moved"`
}

// runRecallFiles answers with files: one line (or JSON object) per file.
func runRecallFiles(ctx context.Context, c *cli.Context, s *recall.Searcher, task string, opt recall.Options) error {
	opt.NoContent = !c.Bool("json")
	res, err := s.SearchFiles(ctx, task, opt)
	if err != nil {
		return usageError(err)
	}
	if c.Bool("json") {
		out := make([]recallFile, 0, len(res.Files))
		for _, f := range res.Files {
			out = append(out, recallFile{FileHit: f, SourceCommit: res.Memory.SourceCommit, HeadMoved: res.Memory.HeadMoved})
		}
		printNotes(res.Notes, res.Memory, true)
		return printJSON(c, out)
	}
	w := c.App.Writer
	for _, f := range res.Files {
		var secs []string
		for _, h := range f.Sections {
			name := h.Name
			if name == "" {
				name = h.Anchor
			}
			secs = append(secs, fmt.Sprintf("%s:%d", name, h.StartLine))
		}
		fmt.Fprintf(w, "%s  %s  (%s)\n", f.Path, strings.Join(secs, ", "), f.Why)
	}
	if len(res.Files) == 0 {
		fmt.Fprintln(w, "no file of memory matches")
	}
	fmt.Fprintln(w, memoryLine(res.Memory))
	printNotes(res.Notes, res.Memory, false)
	return nil
}

// matchMemories finds the durable entries a task names, favouring those
// linked to the files of the hits.
func matchMemories(s *recall.Searcher, task string, hits []recall.Hit) ([]recall.MemoryHit, error) {
	repo, err := openRepo()
	if err != nil {
		return nil, err
	}
	mem, err := memref.ReadCommit(repo, gitstore.ParseHash(s.State().Commit))
	if err != nil && mem == nil {
		return nil, err
	}
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
	}
	return recall.MatchMemories(repo, mem, task, paths, 5)
}

// memoryAsHit shows a durable entry in the shape of a section hit.
func memoryAsHit(m recall.MemoryHit) recall.Hit {
	return recall.Hit{Path: "memory:" + m.ID, Kind: m.Type, Symbol: m.Kind, Name: memoryLabel(m), Anchor: m.ID,
		Score: m.Score, Summary: flatLine(m.Text, 200), Snippet: m.Text}
}

func memoryLabel(m recall.MemoryHit) string {
	switch {
	case m.Type == "diary" && m.Subject != "":
		return "diary (" + m.Subject + ")"
	case m.Type == "diary":
		return "diary"
	case m.Kind != "":
		return m.Kind
	}
	return "memory"
}

// openSearcher opens memory for recall and context, after a `changed`
// extraction when refresh is set.
func openSearcher(ctx context.Context, refresh bool) (*recall.Searcher, error) {
	repo, err := openRepo()
	if err != nil {
		return nil, err
	}
	if refresh {
		if _, err := extract.Run(ctx, repo, extract.Options{ToolVersion: version}); err != nil {
			return nil, fmt.Errorf("refresh: %w", err)
		}
	}
	s, err := recall.Open(ctx, repo, recall.OpenOptions{Building: func(n int) {
		if n >= buildNoticeRecords {
			fmt.Fprintf(os.Stderr, "building the search index: %d files (the first question after a clone, a fetch or a large change; later ones update it in milliseconds)…\n", n)
		}
	}})
	if errors.Is(err, recall.ErrNoMemory) {
		return nil, fmt.Errorf("%w (or pass --refresh)", err)
	}
	if err == nil && s.Index().How == "build" && s.Index().Len() > 0 && s.Index().Took >= time.Second {
		fmt.Fprintf(os.Stderr, "search index built in %.1f s\n", s.Index().Took.Seconds())
	}
	return s, err
}

// buildNoticeRecords is the memory size (records) from which a query that
// must build the search index says so first: below it the build takes
// well under a second.
const buildNoticeRecords = 1000

// memoryLine says which commit an answer describes and whether HEAD has
// moved past it.
func memoryLine(st recall.MemoryState) string {
	l := "memory: source " + shortHash(st.SourceCommit)
	switch {
	case st.HeadAhead:
		l += " — HEAD " + shortHash(st.Head) + " has moved past it (run `git konteks extract`, or pass --refresh)"
	case st.HeadMoved:
		l += " — HEAD " + shortHash(st.Head) + " is on another line of history (run `git konteks extract`, or pass --refresh)"
	default:
		l += " (HEAD)"
	}
	return l
}

func printNotes(notes []string, st recall.MemoryState, withMemory bool) {
	if withMemory {
		fmt.Fprintln(os.Stderr, memoryLine(st))
	}
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "note: "+n)
	}
}

func flatLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
