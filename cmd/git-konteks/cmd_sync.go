package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/share"
)

// syncOptions are sync's flags.
type syncOptions struct {
	NoExtract bool
}

func syncCommand(g *GlobalOptions) *cli.Command {
	var opts syncOptions
	return &cli.Command{
		Name:      "sync",
		Usage:     "fetch and merge a remote's memory, bring it to HEAD, and push it back",
		ArgsUsage: "[REMOTE]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-extract", Destination: &opts.NoExtract, Usage: "do not run a changed extraction before pushing"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error { return runSync(c.Context, opts, g, c.Args().Slice()) },
	}
}

type syncJSON struct {
	Fetch     share.Outcome    `json:"fetch"`
	Extracted bool             `json:"extracted"`
	Push      share.PushResult `json:"push"`
	Pushed    bool             `json:"pushed"`
	Merges    int              `json:"merges"`
}

func runSync(ctx context.Context, opts syncOptions, g *GlobalOptions, args []string) error {
	repo, remote, err := openRemote(g, "sync", args)
	if err != nil {
		return err
	}
	var res syncJSON
	fopt, done := g.fetchOptions(ctx, repo)
	res.Fetch, err = share.FetchWith(repo, remote, fopt)
	done()
	if err != nil {
		return err
	}
	var fresh map[gitstore.Hash]*memory.File // the extraction's records, for the index update
	if !opts.NoExtract {
		if _, herr := repo.Resolve("HEAD"); herr == nil {
			r, err := extract.Run(ctx, repo, extract.Options{ToolVersion: version})
			if err != nil {
				return err
			}
			res.Extracted, fresh = !r.UpToDate, r.Fresh
		}
	}
	res.Push, err = share.Push(repo, remote)
	if err != nil {
		return err
	}
	res.Pushed, res.Merges = res.Push.Pushed, res.Push.Merges
	if res.Extracted || res.Fetch.Result != share.UpToDate && res.Fetch.Result != share.NoRemote {
		// Searchable when the command returns (see indexMemory).
		if _, err := indexMemory(ctx, repo, nil, fresh); err != nil {
			fmt.Fprintf(g.Stderr, "warning: search index not updated (recall will): %v\n", err)
		}
		g.warmInBackground(repo, "sync")
	}
	if g.JSON {
		return g.printJSON(res)
	}
	printOutcome(g.Stdout, res.Fetch)
	if res.Extracted {
		fmt.Fprintln(g.Stdout, "brought memory to HEAD with a changed extraction")
	}
	printPush(g.Stdout, g.Stderr, res.Push)
	return nil
}
