package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/share"
)

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "push refs/konteks to a remote (fetching and merging first when the remote moved on)",
		ArgsUsage: "[REMOTE]",
		Flags:     []cli.Flag{jsonFlag},
		Action:    runPush,
	}
}

func runPush(c *cli.Context) error {
	repo, remote, err := openRemote(c)
	if err != nil {
		return err
	}
	merges, err := share.Push(repo, remote)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return printJSON(c, map[string]any{"remote": remote, "pushed": true, "merges": merges})
	}
	fmt.Fprintf(c.App.Writer, "pushed memory to %s", remote)
	if merges > 0 {
		fmt.Fprintf(c.App.Writer, " (after merging its newer memory %d time(s))", merges)
	}
	fmt.Fprintln(c.App.Writer)
	return nil
}
