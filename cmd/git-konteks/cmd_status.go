package main

import (
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show which commit memory describes and whether HEAD has moved past it",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "size", Usage: "also measure memory's size on disk against the source repository's (walks history)"},
			jsonFlag,
		},
		Action: runStatus,
	}
}

type statusJSON struct {
	Memory       string         `json:"memory"`        // memory commit, "" when none
	SourceCommit string         `json:"source_commit"` // commit memory describes
	Head         string         `json:"head,omitempty"`
	Stale        bool           `json:"stale"`      // HEAD differs from the source commit
	HeadAhead    bool           `json:"head_ahead"` // the source commit is an ancestor of HEAD
	Mode         string         `json:"mode,omitempty"`
	Finished     *time.Time     `json:"finished,omitempty"`
	Included     int            `json:"included"`
	Sections     int            `json:"sections"`
	Skipped      map[string]int `json:"skipped,omitempty"`
	Interrupted  string         `json:"interrupted,omitempty"` // target of an unfinished run
	Size         *memref.Size   `json:"size,omitempty"`
	Hint         string         `json:"hint,omitempty"`
}

func runStatus(c *cli.Context) error {
	repo, err := openRepo()
	if err != nil {
		return err
	}
	st := statusJSON{}
	mem, merr := extract.ReadMemory(repo, memory.Ref)
	if head, err := repo.Resolve("HEAD"); err == nil {
		st.Head = head.Hash.String()
	}
	if wip, _ := extract.ReadMemory(repo, memory.WIPRef); wip != nil && wip.Manifest != nil && wip.Manifest.Partial != nil {
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
		if st.Head != "" && st.Head != m.SourceCommit {
			st.Stale = true
			if ok, err := repo.IsAncestor(mustHash(m.SourceCommit), mustHash(st.Head)); err == nil && ok {
				st.HeadAhead = true
			}
			st.Hint = "HEAD has moved past memory: run `git konteks extract`"
		}
	}
	if st.Interrupted != "" && merr == nil {
		st.Hint = "an extraction was interrupted: run `git konteks extract --mode resume`"
	}
	if c.Bool("size") {
		sz, err := memref.MeasureSize(repo)
		if err != nil {
			return err
		}
		st.Size = &sz
	}
	if c.Bool("json") {
		return printJSON(c, st)
	}
	w := c.App.Writer
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
		fmt.Fprintf(w, "head:    %s (stale: HEAD has moved past memory)\n", shortHash(st.Head))
	default:
		fmt.Fprintf(w, "head:    %s (stale: HEAD is on another line of history)\n", shortHash(st.Head))
	}
	fmt.Fprintf(w, "files:   %d included, %d skipped%s\n", st.Included, sumMap(st.Skipped), formatCounts(st.Skipped))
	fmt.Fprintf(w, "sections: %d\n", st.Sections)
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
