package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/share"
)

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "fetch and merge a remote's memory, bring it to HEAD, and push it back",
		ArgsUsage: "[REMOTE]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-extract", Usage: "do not run a changed extraction before pushing"},
			jsonFlag(),
		},
		Action: runSync,
	}
}

type syncJSON struct {
	Fetch     share.Outcome    `json:"fetch"`
	Extracted bool             `json:"extracted"`
	Push      share.PushResult `json:"push"`
	Pushed    bool             `json:"pushed"`
	Merges    int              `json:"merges"`
}

func runSync(c *cli.Context) error {
	g := globalsOf(c)
	repo, remote, err := openRemote(c)
	if err != nil {
		return err
	}
	var res syncJSON
	if res.Fetch, err = share.Fetch(repo, remote); err != nil {
		return err
	}
	if !c.Bool("no-extract") {
		if _, herr := repo.Resolve("HEAD"); herr == nil {
			r, err := extract.Run(context.Background(), repo, extract.Options{ToolVersion: version})
			if err != nil {
				return err
			}
			res.Extracted = !r.UpToDate
		}
	}
	res.Push, err = share.Push(repo, remote)
	if err != nil {
		return err
	}
	res.Pushed, res.Merges = res.Push.Pushed, res.Push.Merges
	if res.Extracted || res.Fetch.Result != share.UpToDate && res.Fetch.Result != share.NoRemote {
		// Searchable when the command returns (see indexMemory).
		if _, err := indexMemory(context.Background(), repo, nil); err != nil {
			fmt.Fprintf(g.Stderr, "warning: search index not updated (recall will): %v\n", err)
		}
		g.warmInBackground(repo, "sync")
	}
	if g.JSON {
		return printJSON(c, res)
	}
	printOutcome(c, res.Fetch)
	if res.Extracted {
		fmt.Fprintln(c.App.Writer, "brought memory to HEAD with a changed extraction")
	}
	printPush(c, res.Push)
	return nil
}
