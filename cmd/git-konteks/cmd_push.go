package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/share"
)

func pushCommand(g *GlobalOptions) *cli.Command {
	return &cli.Command{
		Name:  "push",
		Usage: "push refs/konteks to a remote (fetching and merging first when the remote moved on)",
		Description: "Merges the remote's memory first, then pushes with compare-and-swap on the remote\n" +
			"(--force-with-lease), so a teammate's concurrent push is merged, never lost. The\n" +
			"chain sent is squashed to konteks.history.keep commits (default 1), so what a\n" +
			"fresh clone fetches is about the size of the current memory. Says \"nothing to\n" +
			"push\" when the remote already has this memory.",
		ArgsUsage: "[REMOTE]",
		Flags:     []cli.Flag{jsonFlag()},
		Action:    func(c *cli.Context) error { return runPush(c.Context, g, c.Args().Slice()) },
	}
}

// runPush has no options of its own: push takes only --json.
func runPush(_ context.Context, g *GlobalOptions, args []string) error {
	repo, remote, err := openRemote(g, "push", args)
	if err != nil {
		return err
	}
	res, err := share.Push(repo, remote)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(res)
	}
	printPush(g.Stdout, g.Stderr, res)
	return nil
}

func printPush(w, errw io.Writer, res share.PushResult) {
	if !res.Pushed {
		if res.Note != "" {
			fmt.Fprintf(w, "nothing to push: %s\n", res.Note)
			return
		}
		fmt.Fprintf(w, "nothing to push: %s already has this memory (%s)\n", res.Remote, shortHash(res.Commit.String()))
		return
	}
	fmt.Fprintf(w, "pushed memory to %s (%s)", res.Remote, shortHash(res.Commit.String()))
	if res.Merges > 0 {
		fmt.Fprintf(w, " after merging its newer memory %d time(s)", res.Merges)
	}
	if res.Squashed {
		fmt.Fprint(w, "; history squashed to konteks.history.keep commits")
	}
	fmt.Fprintln(w)
	if res.Note != "" {
		fmt.Fprintf(errw, "note: %s\n", res.Note)
	}
}
