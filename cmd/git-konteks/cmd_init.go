package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/hooks"
	"github.com/konteks/git-konteks/share"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "set up memory for this repository: hooks, sharing with remotes, first extraction",
		Description: "Installs the hooks, adds to each remote the refspec that brings its memory along\n" +
			"with a plain `git fetch` (refs/konteks-shared/main -> refs/konteks-remotes/REMOTE, never\n" +
			"forced), merges any memory the remotes already have, and extracts HEAD. Safe to run again.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-hooks", Usage: "do not install hooks"},
			&cli.BoolFlag{Name: "no-fetch", Usage: "do not fetch remote memory"},
		},
		Action: runInit,
	}
}

func runInit(c *cli.Context) error {
	repo, err := openRepo()
	if err != nil {
		return err
	}
	w := c.App.Writer
	if !c.Bool("no-hooks") {
		st, err := hooks.Install(repo, executable())
		if err != nil {
			return err
		}
		dir := ""
		if len(st) > 0 {
			dir = st[0].Path[:len(st[0].Path)-len(st[0].Name)]
		}
		fmt.Fprintf(w, "hooks: installed post-commit, post-merge, post-rewrite, post-checkout in %s\n", dir)
		for _, s := range st {
			if s.Chained {
				fmt.Fprintf(w, "hooks: your %s hook is kept and runs first\n", s.Name)
			}
		}
	}
	remotes, err := repo.Remotes()
	if err != nil {
		return err
	}
	var refused error
	for _, rm := range remotes {
		added, err := share.ConfigureRemote(repo, rm)
		if err != nil {
			fmt.Fprintf(os.Stderr, "sharing: %v\n", err)
			refused = fmt.Errorf("sharing with %s was not configured (see above)", rm)
			continue
		}
		if added {
			fmt.Fprintf(w, "sharing: `git fetch %s` now brings its memory into %s\n", rm, share.TrackingRef(rm))
		}
		if c.Bool("no-fetch") {
			continue
		}
		out, err := share.Fetch(repo, rm)
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "sharing: fetch memory from %s: %v\n", rm, err)
		case out.Result == share.NoRemote:
			fmt.Fprintf(w, "sharing: %s has no memory yet (publish yours with `git konteks push %s`)\n", rm, rm)
		default:
			fmt.Fprintf(w, "sharing: merged memory from %s (%s)\n", rm, out.Result)
		}
		for _, n := range out.Notes {
			fmt.Fprintf(w, "sharing: note: %s\n", n)
		}
	}
	if len(remotes) == 0 {
		fmt.Fprintln(w, "sharing: no remotes yet; run `git konteks init` again after `git remote add`")
	}
	if _, err := repo.Resolve("HEAD"); err != nil {
		fmt.Fprintln(w, "extract: nothing committed yet; the post-commit hook will extract your first commit")
		return refused
	}
	t0 := time.Now()
	res, err := extract.Run(context.Background(), repo, extract.Options{ToolVersion: version})
	if err != nil {
		return err
	}
	m := res.Manifest
	if res.UpToDate {
		fmt.Fprintf(w, "extract: memory is up to date with %s\n", shortHash(m.SourceCommit))
	} else {
		fmt.Fprintf(w, "extract: %s extraction of %s: %d files, %d sections in %s\n", m.Mode, shortHash(m.SourceCommit), m.Totals.Included, m.Totals.Sections, time.Since(t0).Round(time.Millisecond))
	}
	return refused
}
