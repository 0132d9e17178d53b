package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// statusOptions are status's flags.
type statusOptions struct {
	Skipped, Redacted, Size bool
}

func statusCommand(g *GlobalOptions) *cli.Command {
	var opts statusOptions
	return &cli.Command{
		Name:  "status",
		Usage: "show which commit memory describes and whether HEAD has moved past it",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "skipped", Destination: &opts.Skipped, Usage: "list every path the gate skipped, with its reason"},
			&cli.BoolFlag{Name: "redacted", Destination: &opts.Redacted, Usage: "list every file whose record had credentials replaced by markers, with each marker's line and kind"},
			&cli.BoolFlag{Name: "size", Destination: &opts.Size, Usage: "also measure memory's size on disk against the source repository's (walks history)"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("unknown argument %q: usage: git konteks status [--skipped] [--redacted] [--size]", c.Args().First()), 2)
			}
			return runStatus(c.Context, opts, g)
		},
	}
}

type statusJSON struct {
	Memory       string `json:"memory"`        // memory commit, "" when none
	SourceCommit string `json:"source_commit"` // commit memory describes
	Head         string `json:"head,omitempty"`
	Stale        bool   `json:"stale"`      // HEAD differs from the source commit
	HeadAhead    bool   `json:"head_ahead"` // the source commit is an ancestor of HEAD
	// CommitsAhead and CommitsBehind count the commits HEAD has that
	// memory has not seen and the reverse (gitstore.Distance).
	CommitsAhead  int            `json:"commits_ahead,omitempty"`
	CommitsBehind int            `json:"commits_behind,omitempty"`
	Approximate   bool           `json:"approximate,omitempty"`
	Mode          string         `json:"mode,omitempty"`
	Finished      *time.Time     `json:"finished,omitempty"`
	Included      int            `json:"included"`
	Sections      int            `json:"sections"`
	Skipped       map[string]int `json:"skipped,omitempty"`
	Redacted      int            `json:"redacted,omitempty"` // records with credential values replaced by markers
	Trimmed       int            `json:"trimmed,omitempty"`  // records cut to the record size budget
	// SkippedPaths lists the gated paths with their reasons (--skipped).
	SkippedPaths []skippedPath `json:"skipped_paths,omitempty"`
	// RedactedPaths lists the records with credentials redacted
	// (--redacted).
	RedactedPaths []redactedPath `json:"redacted_paths,omitempty"`
	Interrupted   string         `json:"interrupted,omitempty"` // target of an unfinished run
	Size          *memref.Size   `json:"size,omitempty"`
	Hint          string         `json:"hint,omitempty"`
}

func runStatus(ctx context.Context, opts statusOptions, g *GlobalOptions) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	st := statusJSON{}
	mem, merr := memref.Read(repo, memory.Ref)
	if head, err := repo.Resolve("HEAD"); err == nil {
		st.Head = head.Hash.String()
	}
	if wip, _ := memref.Read(repo, memory.WIPRef); wip != nil && wip.Manifest != nil && wip.Manifest.Partial != nil {
		st.Interrupted = wip.Manifest.Partial.Target
	}
	switch {
	case merr != nil:
		st.Hint = "memory is corrupt: run `git konteks extract --mode rebuild`"
		if mem != nil {
			st.Memory = mem.Commit.String()
		}
	case mem == nil:
		st.Hint = "no memory yet: run `git konteks extract`"
	case !mem.Derived():
		st.Memory = mem.Commit.String()
		st.Hint = "only durable memories so far: run `git konteks extract`"
	default:
		m := mem.Manifest
		st.Memory = mem.Commit.String()
		st.SourceCommit = m.SourceCommit
		st.Mode = m.Mode
		f := m.Finished
		st.Finished = &f
		st.Included, st.Sections, st.Skipped = m.Totals.Included, m.Totals.Sections, m.Totals.Skipped
		st.Redacted, st.Trimmed = m.Totals.Redacted, m.Totals.Trimmed
		if opts.Skipped {
			if st.SkippedPaths, err = skippedPaths(repo, mem.Tree); err != nil {
				return err
			}
		}
		if opts.Redacted {
			if st.RedactedPaths, err = redactedPaths(ctx, repo, mem.Tree); err != nil {
				return err
			}
		}
		if st.Head != "" && st.Head != m.SourceCommit {
			st.Stale = true
			if d, err := repo.Distance(mustHash(m.SourceCommit), mustHash(st.Head), 0); err == nil {
				st.HeadAhead, st.CommitsAhead, st.CommitsBehind, st.Approximate = d.Ancestor, d.Ahead, d.Behind, d.Approximate
			}
			st.Hint = "HEAD has moved past memory: run `git konteks extract`"
		}
	}
	if st.Interrupted != "" && merr == nil {
		st.Hint = "an extraction was interrupted: run `git konteks extract --mode resume`"
	}
	if opts.Size {
		sz, err := memref.MeasureSize(repo)
		if err != nil {
			return err
		}
		st.Size = &sz
	}
	if g.JSON {
		return g.printJSON(st)
	}
	w := g.Stdout
	if st.Memory == "" || merr != nil || !mem.Derived() {
		if merr != nil {
			fmt.Fprintf(w, "memory:  unreadable (%v)\n", merr)
		} else if st.Memory != "" {
			fmt.Fprintf(w, "memory:  %s (durable memories only)\n", shortHash(st.Memory))
		} else {
			fmt.Fprintln(w, "memory:  none")
		}
		fmt.Fprintf(w, "hint:    %s\n", st.Hint)
		return nil
	}
	fmt.Fprintf(w, "memory:  %s (%s extraction, %s)\n", shortHash(st.Memory), st.Mode, st.Finished.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(w, "source:  %s\n", shortHash(st.SourceCommit))
	switch {
	case st.Head == "":
		fmt.Fprintln(w, "head:    none")
	case !st.Stale:
		fmt.Fprintf(w, "head:    %s (up to date)\n", shortHash(st.Head))
	case st.HeadAhead:
		fmt.Fprintf(w, "head:    %s (stale: HEAD has moved past memory by %s)\n", shortHash(st.Head), commits(st.CommitsAhead, st.Approximate))
	default:
		fmt.Fprintf(w, "head:    %s (stale: HEAD is on another line of history, %s ahead, %s behind)\n", shortHash(st.Head),
			commits(st.CommitsAhead, st.Approximate), commits(st.CommitsBehind, st.Approximate))
	}
	fmt.Fprintf(w, "files:   %d included, %d skipped%s\n", st.Included, sumMap(st.Skipped), formatCounts(st.Skipped))
	if st.Redacted > 0 || st.Trimmed > 0 {
		fmt.Fprintf(w, "         %d with credentials redacted, %d cut to the record budget\n", st.Redacted, st.Trimmed)
	}
	fmt.Fprintf(w, "sections: %d\n", st.Sections)
	if opts.Skipped {
		fmt.Fprintf(w, "skipped paths (%d):\n", len(st.SkippedPaths))
		for _, s := range st.SkippedPaths {
			fmt.Fprintf(w, "  %-12s %s\n", s.Reason, displayPath(s.Path))
		}
	}
	if opts.Redacted {
		fmt.Fprintf(w, "redacted files (%d):\n", len(st.RedactedPaths))
		for _, r := range st.RedactedPaths {
			fmt.Fprintf(w, "  %s: %s\n", displayPath(r.Path), strings.Join(r.Kinds, ", "))
			for _, m := range r.Markers {
				where := m.Anchor
				if m.Line > 0 {
					where = fmt.Sprintf("line %d (%s)", m.Line, m.Anchor)
				}
				fmt.Fprintf(w, "    %s: %s\n", where, m.Kind)
			}
		}
	}
	if st.Interrupted != "" {
		fmt.Fprintf(w, "interrupted: extraction of %s\n", shortHash(st.Interrupted))
	}
	if st.Size != nil {
		printSize(w, *st.Size)
	}
	if st.Hint != "" {
		fmt.Fprintf(w, "hint:    %s\n", st.Hint)
	}
	return nil
}

func printSize(w io.Writer, s memref.Size) {
	fmt.Fprintf(w, "size:    memory %s in %d objects (%d commits; tip alone %s), all memory refs %s; source history %s (memory %.2fx the source)\n",
		humanBytes(s.Local.Bytes), s.Local.Objects, s.Chain, humanBytes(s.Tip.Bytes), humanBytes(s.Tracked.Bytes), humanBytes(s.Source.Bytes), s.Ratio)
	for _, k := range slices.Sorted(maps.Keys(s.Unmeasured)) {
		fmt.Fprintf(w, "size:    %s not measured (shown as 0): %s\n", k, s.Unmeasured[k])
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

type skippedPath struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// skippedPaths reads the gate's skip list of a memory tree, by path.
func skippedPaths(repo *gitstore.Repo, tree gitstore.Hash) ([]skippedPath, error) {
	m, err := memref.Skipped(repo, tree)
	if err != nil {
		return nil, err
	}
	out := make([]skippedPath, 0, len(m))
	for p, r := range m {
		out = append(out, skippedPath{Path: p, Reason: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

type redactedPath struct {
	Path  string   `json:"path"`
	Kinds []string `json:"kinds"` // from the record's warning
	// Markers are the redaction markers in the record's sections, by line.
	Markers []redactedMarker `json:"markers,omitempty"`
}

type redactedMarker struct {
	Anchor string `json:"anchor"`         // the section holding it
	Line   int    `json:"line,omitempty"` // 0 when the section gathers lines from across the file
	Kind   string `json:"kind"`
}

// redactedPaths reads every record of a memory tree and lists those that
// carry the warning of redacted credentials, with the markers their
// sections hold (a line shared by two sections counts once).
func redactedPaths(ctx context.Context, repo *gitstore.Repo, tree gitstore.Hash) ([]redactedPath, error) {
	refs, err := memref.Records(repo, tree)
	if err != nil {
		return nil, err
	}
	found := make([]*redactedPath, len(refs))
	err = memref.ReadParallel(ctx, repo, refs, func() func(int, []byte) error {
		return func(i int, data []byte) error {
			f, err := memory.DecodeFile(data)
			if err != nil {
				return fmt.Errorf("%s: %w", refs[i].Path, err)
			}
			var kinds []string
			for _, w := range f.Warnings {
				if k, ok := strings.CutPrefix(w, extract.RedactedPrefix); ok {
					kinds = strings.Split(k, ", ")
				}
			}
			if kinds == nil {
				return nil
			}
			found[i] = &redactedPath{Path: refs[i].Path, Kinds: kinds, Markers: markers(f)}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	var out []redactedPath
	for _, r := range found {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

// markers finds the redaction markers in a record's sections. A section
// whose content is its line range gives each marker's line, and a line
// that two nested sections share counts once; a section that gathers
// lines from across the file (a Go preamble with the file's declarations)
// gives its anchor only.
func markers(f *memory.File) []redactedMarker {
	type key struct{ line, nth int }
	seen := map[key]bool{}
	var out []redactedMarker
	const open, end = "«redacted:", "»"
	for _, s := range f.Sections {
		lines := strings.Split(s.Content, "\n")
		contiguous := len(lines) == s.EndLine-s.StartLine+1
		for i, l := range lines {
			for nth := 0; ; nth++ {
				at := strings.Index(l, open)
				if at < 0 {
					break
				}
				kind, rest, ok := strings.Cut(l[at+len(open):], end)
				if !ok {
					break
				}
				l = rest
				m := redactedMarker{Anchor: s.Anchor, Kind: kind}
				if contiguous {
					k := key{s.StartLine + i, nth}
					if seen[k] {
						continue
					}
					seen[k], m.Line = true, k.line
				}
				out = append(out, m)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// displayPath quotes a path that holds control characters or spaces at
// its ends, so one line stays one path.
func displayPath(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return strconv.Quote(p)
		}
	}
	if strings.TrimSpace(p) != p {
		return strconv.Quote(p)
	}
	return p
}

// commits says n commits, "at least" when the count stopped at the walk's
// bound.
func commits(n int, approx bool) string {
	s := fmt.Sprintf("%d commit", n)
	if n != 1 {
		s += "s"
	}
	if approx {
		s = "at least " + s
	}
	return s
}
