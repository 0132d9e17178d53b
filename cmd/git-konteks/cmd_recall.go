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
			"Prints one hit per line (path:start-end  name  summary), or JSON with --json.\n" +
			"The search index is a local cache under .git/konteks/index, brought up to date from\n" +
			"refs/konteks on the way.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Usage: "number of hits"},
			&cli.BoolFlag{Name: "refresh", Usage: "run a `changed` extraction first, so memory describes HEAD"},
			&cli.StringFlag{Name: "mode", Value: recall.Hybrid, Usage: "`MODE`: hybrid, lexical or vector"},
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
	// Strength is the evidence of the whole answer (recall.Assess):
	// strong, partial or weak.
	Strength string `json:"strength"`
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
	res, err := s.Search(ctx, task, recall.Options{Limit: c.Int("limit"), Mode: c.String("mode")})
	if err != nil {
		return err
	}
	ev := s.Evidence(task, res.Hits)
	if ev.NoMatch {
		res.Hits = nil // the least bad hits would only mislead
	}
	// Durable memories, diary entries and skills that match the task come
	// first: decisions and constraints weigh more than code that merely
	// matches.
	mems, err := matchMemories(s, task, res.Hits)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		out := make([]recallHit, 0, len(mems)+len(res.Hits))
		for _, m := range mems {
			out = append(out, recallHit{Hit: memoryAsHit(m), SourceCommit: res.Memory.SourceCommit, HeadMoved: res.Memory.HeadMoved, Strength: ev.Strength})
		}
		for _, h := range res.Hits {
			out = append(out, recallHit{Hit: h, SourceCommit: res.Memory.SourceCommit, HeadMoved: res.Memory.HeadMoved, Strength: ev.Strength})
		}
		// stderr carries the evidence, the notes and the memory line for
		// people; the JSON array stays clean for programs.
		fmt.Fprintln(os.Stderr, "evidence: "+ev.Label())
		printNotes(res.Notes, res.Memory, true)
		return printJSON(c, out)
	}
	w := c.App.Writer
	for _, m := range mems {
		if m.Type == "skill" {
			fmt.Fprintf(w, "skill:%s  %s  %s\n", m.Subject, memoryLabel(m), flatLine(m.Text, 120))
			continue
		}
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
	if len(res.Hits) == 0 && len(mems) == 0 && !ev.NoMatch {
		fmt.Fprintln(w, "no section of memory matches")
	}
	fmt.Fprintln(w, "evidence: "+ev.Label())
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
	if m.Type == "skill" {
		return recall.Hit{Path: "skill:" + m.Subject, Kind: m.Type, Name: memoryLabel(m), Anchor: m.ID, Score: m.Score,
			Summary: flatLine(m.Text, 200), Snippet: m.Text}
	}
	return recall.Hit{Path: "memory:" + m.ID, Kind: m.Type, Symbol: m.Kind, Name: memoryLabel(m), Anchor: m.ID,
		Score: m.Score, Summary: flatLine(m.Text, 200), Snippet: m.Text}
}

func memoryLabel(m recall.MemoryHit) string {
	switch {
	case m.Type == "skill":
		return "skill (git konteks skill show " + m.Subject + ")"
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
