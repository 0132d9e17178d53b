package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/agent"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/hooks"
	"github.com/konteks/git-konteks/share"
)

// initOptions are init's flags.
type initOptions struct {
	NoHooks, NoFetch bool
	agentOptions
}

func initCommand(g *GlobalOptions) *cli.Command {
	var opts initOptions
	agents := cli.NewStringSlice()
	return &cli.Command{
		Name:  "init",
		Usage: "set up memory for this repository: hooks, sharing with remotes, first extraction",
		Description: "Installs the hooks, adds to each remote the refspec that brings its memory along\n" +
			"with a plain `git fetch` (+refs/konteks-shared/v2/*:refs/konteks-remotes/REMOTE/*: a\n" +
			"remote without memory matches nothing, so `git fetch` keeps working), merges any memory\n" +
			"the remotes already have, and extracts HEAD. Safe to run again.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "no-hooks", Destination: &opts.NoHooks, Usage: "do not install hooks"},
			&cli.BoolFlag{Name: "no-fetch", Destination: &opts.NoFetch, Usage: "do not fetch remote memory"},
			jsonFlag(),
		}, agentFlags(agents, &opts.Remove)...),
		Action: func(c *cli.Context) error {
			opts.Agents = agents.Value()
			return runInit(c.Context, opts, g, c.Args().Slice())
		},
	}
}

// initOutput is `init --json`: what was set up, remote by remote, and the
// extraction (absent when nothing is committed yet).
type initOutput struct {
	Hooks   []hooks.State  `json:"hooks"`
	Remotes []initRemote   `json:"remotes"`
	Extract *extractOutput `json:"extract,omitempty"`
	// Agents is what --agent wired (or --remove undid).
	Agents []*agent.Report `json:"agents,omitempty"`
}

type initRemote struct {
	Name       string `json:"name"`
	Configured bool   `json:"configured"`      // the fetch refspec was added by this run
	Fetch      string `json:"fetch,omitempty"` // the merge's result, or no-remote-memory
	Error      string `json:"error,omitempty"` // why sharing or the fetch failed
}

func runInit(ctx context.Context, opts initOptions, g *GlobalOptions, _ []string) (err error) {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	w := g.Stdout
	js := initOutput{Hooks: []hooks.State{}, Remotes: []initRemote{}}
	if g.JSON {
		w = io.Discard
		defer func() {
			if err == nil {
				err = g.printJSON(js)
			}
		}()
	}
	if opts.Remove || len(opts.Agents) > 0 {
		if js.Agents, err = wireAgents(g, w, repo, opts.Agents, opts.Remove); err != nil || opts.Remove {
			if err == nil && len(opts.Agents) == 0 {
				err = cli.Exit("git-konteks: --remove undoes --agent: name the agent (--agent NAME)", 2)
			}
			return err
		}
	}
	if !opts.NoHooks {
		st, err := hooks.Install(repo, g.executable())
		if err != nil {
			return err
		}
		js.Hooks = st
		warnWorkTreeHooks(g, repo, st)
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
		js.Remotes = append(js.Remotes, initRemote{Name: rm, Configured: added})
		jr := &js.Remotes[len(js.Remotes)-1]
		if err != nil {
			jr.Error = err.Error()
			fmt.Fprintf(g.Stderr, "sharing: %v\n", err)
			refused = fmt.Errorf("sharing with %s was not configured (see above)", rm)
			continue
		}
		if added {
			fmt.Fprintf(w, "sharing: `git fetch %s` now brings its memory into %s\n", rm, share.TrackingRef(rm))
		}
		if opts.NoFetch {
			continue
		}
		fopt, done := g.fetchOptions(ctx, repo)
		out, err := share.FetchWith(repo, rm, fopt)
		done()
		switch {
		case err != nil:
			jr.Error = err.Error()
			fmt.Fprintf(g.Stderr, "sharing: fetch memory from %s: %v\n", rm, err)
		case out.Result == share.NoRemote:
			jr.Fetch = out.Result
			fmt.Fprintf(w, "sharing: %s has no memory yet (publish yours with `git konteks push %s`)\n", rm, rm)
		default:
			jr.Fetch = out.Result
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
	ctx, stop := interruptible(ctx)
	defer stop()
	res, err := extract.Run(ctx, repo, extract.Options{ToolVersion: version})
	if err != nil {
		return stopped(ctx, err, true)
	}
	m := res.Manifest
	js.Extract = &extractOutput{Commit: res.Commit.String(), Previous: hashOrEmpty(res.Previous.String()), UpToDate: res.UpToDate, Manifest: m}
	if res.UpToDate {
		fmt.Fprintf(w, "extract: memory is up to date with %s\n", shortHash(m.SourceCommit))
	} else {
		fmt.Fprintf(w, "extract: %s extraction of %s: %d files, %d sections in %s\n", m.Mode, shortHash(m.SourceCommit), m.Totals.Included, m.Totals.Sections, time.Since(t0).Round(time.Millisecond))
	}
	// The first recall answers from a complete index (see indexMemory).
	t1 := time.Now()
	if ixr, err := indexMemory(ctx, repo, nil, res.Fresh); err != nil {
		if ctx.Err() != nil {
			return stopped(ctx, err, true)
		}
		fmt.Fprintf(g.Stderr, "warning: search index not updated (recall will): %v\n", err)
	} else if ixr.how != "current" {
		fmt.Fprintf(w, "index: search index %s in %s\n", map[string]string{"build": "built", "update": "updated"}[ixr.how], time.Since(t1).Round(time.Millisecond))
	}
	return refused
}
