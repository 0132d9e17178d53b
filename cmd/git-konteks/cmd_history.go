package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/history"
)

// historyOptions are history's flags.
type historyOptions struct {
	Limit, Files int
}

func historyCommand(g *GlobalOptions) *cli.Command {
	var opts historyOptions
	return &cli.Command{
		Name:      "history",
		Usage:     "recorded commits whose messages match a question, with the files they touched",
		ArgsUsage: "QUESTION",
		Flags: []cli.Flag{jsonFlag(),
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Destination: &opts.Limit, Usage: "most commits to show"},
			&cli.IntFlag{Name: "files", Value: 20, Destination: &opts.Files, Usage: "most files to list per commit"}},
		Action: func(c *cli.Context) error {
			return runHistory(c.Context, opts, g, c.Args().Slice())
		},
	}
}

func runHistory(_ context.Context, opts historyOptions, g *GlobalOptions, args []string) error {
	q := strings.TrimSpace(strings.Join(args, " "))
	if q == "" {
		return fmt.Errorf(`usage: git konteks history [--json] [--limit N] "question"`)
	}
	repo, mem, err := openMemory(g)
	if err != nil {
		return err
	}
	res, err := history.Ask(repo, mem, q, opts.Limit, opts.Files)
	if err != nil {
		return err
	}
	return printHistory(g, repo, mem, res)
}
