package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/share"
)

// gcOptions are gc's flags.
type gcOptions struct {
	Prune string
}

func gcCommand(g *GlobalOptions) *cli.Command {
	var opts gcOptions
	return &cli.Command{
		Name:  "gc",
		Usage: "keep memory's history within konteks.history.keep and let git reclaim the rest",
		Description: "Squashes refs/konteks to its newest konteks.history.keep commits (default 1),\n" +
			"drops the memory of remotes that no longer exist, runs `git gc` (which prunes\n" +
			"unreachable objects older than gc.pruneExpire, two weeks by default; --prune=now\n" +
			"prunes them at once), and reports memory's size before and after. Pushes and\n" +
			"extractions already keep history short; gc is for memory written before that,\n" +
			"or after konteks.history.keep was lowered.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prune", Destination: &opts.Prune, Usage: "passed to git gc --prune (e.g. now)"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error { return runGC(c.Context, opts, g, c.Args().Slice()) },
	}
}

func runGC(_ context.Context, opts gcOptions, g *GlobalOptions, _ []string) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	res, err := share.GC(repo, opts.Prune)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(res)
	}
	w := g.Stdout
	fmt.Fprintf(w, "memory history: %d -> %d commits", res.Before.Chain, res.After.Chain)
	if len(res.DroppedRemotes) > 0 {
		fmt.Fprintf(w, "; dropped memory of removed remotes %v", res.DroppedRemotes)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "before:")
	printSize(w, res.Before)
	fmt.Fprintln(w, "after:")
	printSize(w, res.After)
	return nil
}
