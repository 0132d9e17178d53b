package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/share"
)

func fetchCommand() *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "fetch a remote's memory and merge it into refs/konteks",
		ArgsUsage: "[REMOTE]",
		Description: "Fetches the remote's refs/konteks into refs/konteks-remotes/REMOTE (never over\n" +
			"refs/konteks, never forced), checks it, and merges: durable memories are the union of\n" +
			"both sides (forgotten ones stay forgotten); derived memory is the side whose source\n" +
			"commit is in your history, the newer when both are.",
		Flags:  []cli.Flag{jsonFlag},
		Action: runFetch,
	}
}

func runFetch(c *cli.Context) error {
	repo, remote, err := openRemote(c)
	if err != nil {
		return err
	}
	out, err := share.Fetch(repo, remote)
	if err != nil {
		return err
	}
	if out.Result != share.UpToDate && out.Result != share.NoRemote {
		warmInBackground(repo, "fetch")
	}
	if c.Bool("json") {
		return printJSON(c, out)
	}
	printOutcome(c, out)
	return nil
}

func printOutcome(c *cli.Context, out share.Outcome) {
	w := c.App.Writer
	switch out.Result {
	case share.NoRemote:
		fmt.Fprintf(w, "%s has no memory yet\n", out.Remote)
	case share.UpToDate:
		fmt.Fprintf(w, "memory is up to date with %s\n", out.Remote)
	default:
		fmt.Fprintf(w, "memory from %s: %s -> %s (derived memory: %s; %d durable entries brought in)\n",
			out.Remote, out.Result, shortHash(out.Commit.String()), out.Derived, out.NewDurable)
		if out.Conflicts > 0 {
			fmt.Fprintf(w, "warning: %d durable paths differed between the sides; kept ours\n", out.Conflicts)
		}
	}
}
