package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/recall"
)

// recallOptions are recall's flags.
type recallOptions struct {
	Limit   int
	PerFile int
	Refresh bool
	Mode    string
	Files   bool
	Paths   []string
	Tests   string
}

func recallCommand(g *GlobalOptions) *cli.Command {
	var opts recallOptions
	paths := cli.NewStringSlice()
	return &cli.Command{
		Name:      "recall",
		Usage:     "find the sections of memory that matter for a task or question",
		ArgsUsage: `"task or question"`,
		Description: "Ranks every section of memory (functions, types, headings, config keys, files) for the\n" +
			"task: BM25 over their text and vector similarity, " + fusionText() + ",\n" +
			"with boosts for symbol definitions and names the task mentions, re-ordered by a learned\n" +
			"ranker; one hit per file unless --per-file says more.\n" +
			"Saved memories that match come first. Prints one line per memory and per hit\n" +
			"(path:start-end  name  summary), or with --json one object: hits, memories, memory.\n" +
			"With --files it answers with files instead: one per line, each with its best sections\n" +
			"and why it is there. --path and --tests narrow either answer to some paths, or to or\n" +
			"away from test code; --path is read from the current directory, as git reads paths\n" +
			"(--path . is the directory you are in; /GLOB is from the top). A task of - is read from\n" +
			"standard input; a task that starts with a dash goes after --.\n" +
			"The search index is a local cache under .git/konteks/index, brought up to date from\n" +
			"refs/konteks on the way.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Destination: &opts.Limit, Usage: "number of hits (saved memories are not counted)"},
			&cli.IntFlag{Name: "per-file", Destination: &opts.PerFile, Usage: "most hits of one file (default 1; with --files, sections shown per file, default 3)"},
			&cli.BoolFlag{Name: "refresh", Destination: &opts.Refresh, Usage: "run a changed extraction first, so memory describes HEAD"},
			&cli.StringFlag{Name: "mode", Value: recall.Hybrid, Destination: &opts.Mode, Usage: "`MODE`: hybrid, lexical or vector"},
			&cli.BoolFlag{Name: "files", Destination: &opts.Files, Usage: "answer with files: one per line, ranked by their best section, with their best sections and why"},
			&cli.StringSliceFlag{Name: "path", Destination: paths, Usage: "only paths matching `GLOB`, read from the current directory (*, **, ?; no slash: a name at any depth; /GLOB: from the top); !GLOB excludes; repeatable"},
			&cli.StringFlag{Name: "tests", Value: recall.TestsInclude, Destination: &opts.Tests, Usage: "test code: include, exclude or `only`"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			opts.Paths = paths.Value()
			return runRecall(c.Context, opts, g, c.Args().Slice())
		},
	}
}

// maxTaskBytes bounds a task read from standard input.
const maxTaskBytes = 1 << 20

// readTask is the task of recall and context: the arguments joined, or
// standard input when the only argument is "-".
func readTask(g *GlobalOptions, args []string) (string, error) {
	if len(args) != 1 || args[0] != "-" {
		return strings.TrimSpace(strings.Join(args, " ")), nil
	}
	b, err := io.ReadAll(io.LimitReader(g.Stdin, maxTaskBytes+1))
	if err != nil {
		return "", fmt.Errorf("read the task from standard input: %w", err)
	}
	if len(b) > maxTaskBytes {
		return "", cli.Exit(fmt.Sprintf("the task on standard input is over %d bytes", maxTaskBytes), 2)
	}
	return strings.TrimSpace(string(b)), nil
}

// needTask is the task of recall or context: the arguments, or standard
// input for "-"; no task is a usage error saying what to give (missing).
func needTask(g *GlobalOptions, args []string, missing string) (string, error) {
	task, err := readTask(g, args)
	if err != nil {
		return "", err
	}
	if task == "" {
		return "", cli.Exit(missing, 2)
	}
	return task, nil
}

// checkMode refuses a --mode that is not a search mode.
func checkMode(mode string) error {
	switch mode {
	case recall.Hybrid, recall.Lexical, recall.Vector:
		return nil
	}
	return cli.Exit(fmt.Sprintf("unknown --mode %q (want hybrid, lexical or vector)", mode), 2)
}

func runRecall(ctx context.Context, opts recallOptions, g *GlobalOptions, args []string) error {
	task, err := needTask(g, args, "recall needs a task or question, e.g. git konteks recall \"where are retries handled\" (or - to read it from standard input)")
	if err != nil {
		return err
	}
	if opts.Limit < 1 {
		return cli.Exit(fmt.Sprintf("--limit %d: give at least 1", opts.Limit), 2)
	}
	if opts.PerFile < 0 {
		return cli.Exit(fmt.Sprintf("--per-file %d: give at least 1", opts.PerFile), 2)
	}
	if err := checkMode(opts.Mode); err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	paths, err := pathFilters(g, repo, opts.Paths)
	if err != nil {
		return err
	}
	s, err := openSearcher(ctx, g, repo, opts.Refresh)
	if err != nil {
		return stopped(ctx, err, opts.Refresh)
	}
	defer s.Close()
	opt := recall.AnswerOptions{Options: recall.Options{Limit: opts.Limit, PerFile: opts.PerFile, Mode: opts.Mode, Paths: paths, Tests: opts.Tests},
		Files: opts.Files}
	a, err := recall.Answer(ctx, s, task, opt)
	if err != nil {
		return filterError(err)
	}
	if g.JSON {
		// stderr carries the evidence, the notes and the memory line for
		// people too.
		fmt.Fprintln(g.Stderr, "evidence: "+a.Evidence.Label())
		printNotes(g.Stderr, a.Notes, a.Memory, true)
		return g.printJSON(a)
	}
	writeAnswer(g.Stdout, a)
	printNotes(g.Stderr, a.Notes, a.Memory, false)
	return nil
}

// writeAnswer renders an answer for people: the saved entries that match
// first (decisions and constraints weigh more than code that merely
// matches), then one line per hit or per file, the evidence and which
// commit memory describes.
func writeAnswer(w io.Writer, a *recall.Response) {
	for _, m := range a.Memories {
		if m.Type == "skill" {
			fmt.Fprintf(w, "skill:%s  %s  %s\n", m.Subject, memoryLabel(m), recall.OneLine(m.Text, 120))
			continue
		}
		fmt.Fprintf(w, "memory:%s  %s  %s\n", m.ID[:10], memoryLabel(m), recall.OneLine(m.Text, 120))
		if n := m.Note(); n != "" {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	for _, f := range a.Files {
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
	for _, h := range a.Hits {
		name := h.Name
		if name == "" {
			name = h.Anchor
		}
		line := fmt.Sprintf("%s:%d-%d  %s  %s", h.Path, h.StartLine, h.EndLine, name, recall.OneLine(h.Summary, 120))
		if h.Summary == name || strings.HasSuffix(h.Summary, " > "+name) {
			// A heading's summary is its heading path: say it once.
			line = fmt.Sprintf("%s:%d-%d  %s", h.Path, h.StartLine, h.EndLine, recall.OneLine(h.Summary, 120))
		}
		if h.Via != "" {
			line += "  (" + h.Via + ")"
		}
		fmt.Fprintln(w, line)
	}
	switch {
	case len(a.Hits) > 0 || len(a.Files) > 0 || len(a.Memories) > 0 || a.Evidence.NoMatch:
	case a.Files != nil:
		fmt.Fprintln(w, "no file of memory matches")
	default:
		fmt.Fprintln(w, "no section of memory matches")
	}
	fmt.Fprintln(w, "evidence: "+a.Evidence.Label())
	fmt.Fprintln(w, memoryLine(a.Memory))
}

// pathFilters turns --path values into recall's path globs, which are
// read from the top of the repository. As git reads pathspecs, a value is
// relative to the current directory (or -C's): in a subdirectory, "."
// is that directory, "x/y" is x/y under it, and a pattern without a slash
// matches a name at any depth under it. A value that starts with "/" is
// read from the top wherever the command runs; at the top, values keep
// their plain meaning. "!" in front excludes, as before.
func pathFilters(g *GlobalOptions, repo *gitstore.Repo, pats []string) ([]string, error) {
	prefix := g.prefix(repo)
	out := make([]string, 0, len(pats))
	for _, raw := range pats {
		p, neg := strings.CutPrefix(filepath.ToSlash(raw), "!")
		trimmed := strings.TrimSuffix(p, "/")
		switch {
		case strings.HasPrefix(p, "/"):
		case trimmed == "." || trimmed == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../"):
			j := path.Join(prefix, p)
			switch {
			case j == ".":
				p = "**"
			case j == ".." || strings.HasPrefix(j, "../"):
				return nil, cli.Exit(fmt.Sprintf("--path %s: outside the repository", raw), 2)
			default:
				p = "/" + j
			}
		case prefix == "":
		case strings.Contains(trimmed, "/"):
			p = "/" + prefix + "/" + p
		default:
			p = "/" + prefix + "/**/" + p
		}
		if neg {
			p = "!" + p
		}
		out = append(out, p)
	}
	return out, nil
}

// filterError makes a bad --path or --tests a usage error (exit 2).
func filterError(err error) error {
	if errors.Is(err, recall.ErrBadFilter) {
		return cli.Exit(err.Error(), 2)
	}
	return err
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
func openSearcher(ctx context.Context, g *GlobalOptions, repo *gitstore.Repo, refresh bool) (*recall.Searcher, error) {
	var fresh map[gitstore.Hash]*memory.File // the refresh's records, for the index update
	if refresh {
		res, err := extract.Run(ctx, repo, extract.Options{ToolVersion: version})
		if err != nil {
			return nil, fmt.Errorf("refresh: %w", err)
		}
		fresh = res.Fresh
	}
	s, err := recall.Open(ctx, repo, recall.OpenOptions{Fresh: fresh, Building: func(n int) {
		if n >= buildNoticeRecords {
			fmt.Fprintf(g.Stderr, "building the search index: %d files (the first question after a clone, a fetch or a large change; later ones update it in milliseconds)…\n", n)
		}
	}})
	if errors.Is(err, recall.ErrNoMemory) {
		return nil, fmt.Errorf("%w (or pass --refresh)", err)
	}
	if err == nil && s.Index().How == "build" && s.Index().Len() > 0 && s.Index().Took >= time.Second {
		fmt.Fprintf(g.Stderr, "search index built in %.1f s\n", s.Index().Took.Seconds())
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
		l += " — HEAD " + shortHash(st.Head) + " has moved past it by " + commits(st.CommitsAhead, st.Approximate) + " (run `git konteks extract`, or pass --refresh)"
	case st.HeadMoved:
		l += " — HEAD " + shortHash(st.Head) + " is on another line of history (run `git konteks extract`, or pass --refresh)"
	default:
		l += " (HEAD)"
	}
	return l
}

func printNotes(w io.Writer, notes []string, st recall.MemoryState, withMemory bool) {
	if withMemory {
		fmt.Fprintln(w, memoryLine(st))
	}
	for _, n := range notes {
		fmt.Fprintln(w, "note: "+n)
	}
}

// fusionText names how recall combines its rankings, from the ranking it
// uses, so the help cannot drift from the code.
func fusionText() string {
	if recall.DefaultRanking.Fusion == recall.FuseScores {
		return "combined by their min-max scaled scores"
	}
	return "fused by reciprocal rank"
}
