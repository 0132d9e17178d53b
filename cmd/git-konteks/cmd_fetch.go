package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/share"
)

// fetchOptions are fetch's flags.
type fetchOptions struct {
	ForgetRemote bool
}

func fetchCommand(g *GlobalOptions) *cli.Command {
	var opts fetchOptions
	return &cli.Command{
		Name:      "fetch",
		Usage:     "fetch a remote's memory and merge it into refs/konteks",
		ArgsUsage: "[REMOTE]",
		Description: "Fetches the remote's memory (refs/konteks-shared/v2/main) into its tracking ref\n" +
			"refs/konteks-remotes/REMOTE/main (never over refs/konteks), checks it, and merges:\n" +
			"durable memories are the union of both sides (forgotten ones stay forgotten); derived\n" +
			"memory is the side whose source commit is in your history, the newer when both are, and\n" +
			"only when its memory commit is signed by a signer in konteks.trust (see docs/trust.md).\n" +
			"Memory that fails its checks is refused and skipped until the remote's memory changes;\n" +
			"--forget-remote drops it.",
		Flags: []cli.Flag{jsonFlag(),
			&cli.BoolFlag{Name: "forget-remote", Destination: &opts.ForgetRemote, Usage: "drop the remote's fetched memory (refs/konteks-remotes/REMOTE/main) and its refusal, without fetching"}},
		Action: func(c *cli.Context) error { return runFetch(c.Context, opts, g, c.Args().Slice()) },
	}
}

func runFetch(ctx context.Context, opts fetchOptions, g *GlobalOptions, args []string) error {
	repo, remote, err := openRemote(g, "fetch", args)
	if err != nil {
		return err
	}
	if opts.ForgetRemote {
		if err := share.ForgetRemote(repo, remote); err != nil {
			return err
		}
		fmt.Fprintf(g.Stdout, "dropped the memory fetched from %s; local memory is unchanged\n", remote)
		return nil
	}
	fopt, done := g.fetchOptions(ctx, repo)
	out, err := share.FetchWith(repo, remote, fopt)
	done()
	if err != nil {
		return err
	}
	if out.Result != share.UpToDate && out.Result != share.NoRemote {
		// Merged memory is searchable when the command returns: the index
		// is updated from the memory diff (see indexMemory).
		if _, err := indexMemory(ctx, repo, nil, nil); err != nil {
			fmt.Fprintf(g.Stderr, "warning: search index not updated (recall will): %v\n", err)
		}
		g.warmInBackground(repo, "fetch")
	}
	if g.JSON {
		return g.printJSON(out)
	}
	printOutcome(g.Stdout, out)
	return nil
}

func printOutcome(w io.Writer, out share.Outcome) {
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
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
