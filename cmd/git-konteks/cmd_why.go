package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/memref"
)

// whyOptions are why's flags.
type whyOptions struct {
	Limit int
}

func whyCommand(g *GlobalOptions) *cli.Command {
	var opts whyOptions
	return &cli.Command{
		Name:      "why",
		Usage:     "the commits that shaped a file, a symbol or lines, most relevant first (follows renames, skips formatting)",
		ArgsUsage: "PATH[:LINE[-END]|#ANCHOR]",
		Flags: []cli.Flag{jsonFlag(),
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Destination: &opts.Limit, Usage: "most commits to show"}},
		Action: func(c *cli.Context) error {
			return runWhy(c.Context, opts, g, c.Args().Slice())
		},
	}
}

func runWhy(ctx context.Context, opts whyOptions, g *GlobalOptions, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: git konteks why PATH[:LINE[-END]|#ANCHOR]")
	}
	t, err := history.ParseTarget(args[0])
	if err != nil {
		return err
	}
	repo, mem, err := openMemory(g)
	if err != nil {
		return err
	}
	res, err := history.Why(ctx, repo, mem, t, opts.Limit)
	if err != nil {
		return err
	}
	return printHistory(g, repo, mem, res)
}

// printHistory prints an answer of history or why after linking its
// commits to the agent sessions that made them.
func printHistory(g *GlobalOptions, repo *gitstore.Repo, mem *memref.Memory, res history.Answer) error {
	history.LinkSessions(sessionLinks(repo, mem), res)
	if g.JSON {
		return g.printJSON(res)
	}
	fmt.Fprint(g.Stdout, res.Text())
	return nil
}

// sessionLinks maps the commits ingested agent sessions made to their
// records (none when the entries cannot be read: the answer stands
// without them).
func sessionLinks(repo *gitstore.Repo, mem *memref.Memory) map[string]history.SessionLink {
	items, _, err := durable.Load(repo, mem.Tree)
	if err != nil {
		return nil
	}
	return durable.SessionLinks(items)
}
