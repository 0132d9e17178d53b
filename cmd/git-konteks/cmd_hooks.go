package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/hooks"
)

// hooksInstallOptions are the flags of `hooks install`.
type hooksInstallOptions struct {
	agentOptions
}

// sessionStartOptions are the flags of `hooks session-start`.
type sessionStartOptions struct {
	Agent string
}

func hooksCommand(g *GlobalOptions) *cli.Command {
	var installOpts hooksInstallOptions
	var startOpts sessionStartOptions
	agents := cli.NewStringSlice()
	status := func(c *cli.Context) error { return runHooksStatus(c.Context, g, c.Args().Slice()) }
	return &cli.Command{
		Name:  "hooks",
		Usage: "install, remove or inspect the git hooks that keep memory current",
		Description: "The hooks (post-commit, post-merge, post-rewrite, post-checkout on branch switches)\n" +
			"record a request and start one background extraction, so git never waits for memory.\n" +
			"A teammate's memory brought by a plain `git fetch` (refs/konteks-remotes/*) is merged\n" +
			"by the next command that reads memory; no hook runs for each fetched ref.\n" +
			"Existing hooks are kept: they run first, and uninstall restores them exactly.\n" +
			"The background runner logs to $GIT_COMMON_DIR/konteks/log.",
		Subcommands: []*cli.Command{
			{Name: "install", Usage: "install the hooks (core.hooksPath is respected); --agent NAME also wires a coding agent's hooks, as init --agent does",
				Flags: append([]cli.Flag{jsonFlag()}, agentFlags(agents, &installOpts.Remove)...),
				Action: func(c *cli.Context) error {
					installOpts.Agents = agents.Value()
					return runHooksInstall(c.Context, installOpts, g, c.Args().Slice())
				}},
			{Name: "uninstall", Usage: "remove the hooks and restore the ones they chained to", Flags: []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error { return runHooksUninstall(c.Context, g, c.Args().Slice()) }},
			{Name: "status", Usage: "show which hooks are installed", Flags: []cli.Flag{jsonFlag()}, Action: status},
			{Name: "session-start", Hidden: true, Usage: "what agents' session-start hooks run: says which commit memory describes",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "agent", Destination: &startOpts.Agent, Usage: "the agent whose hook output format to use"}},
				Action: func(c *cli.Context) error { return runHooksSessionStart(c.Context, startOpts, g, c.Args().Slice()) }},
			{Name: "run", Hidden: true, Usage: "what the hooks run (records the request, catches memory up)", SkipFlagParsing: true,
				Action: func(c *cli.Context) error { return runHooksRun(c.Context, g, c.Args().Slice()) }},
		},
		Flags:  []cli.Flag{jsonFlag()},
		Action: status,
	}
}

// executable is the program the hooks run: g's (this one, unless a
// caller said otherwise), symlinks resolved.
func (g *GlobalOptions) executable() string {
	p := g.Executable
	if p == "" {
		return "git-konteks"
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}

func runHooksInstall(_ context.Context, opts hooksInstallOptions, g *GlobalOptions, _ []string) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	if opts.Remove || len(opts.Agents) > 0 {
		if len(opts.Agents) == 0 {
			return cli.Exit("git-konteks: --remove undoes --agent: name the agent (--agent NAME)", 2)
		}
		w := g.Stdout
		if g.JSON {
			w = io.Discard
		}
		reps, err := wireAgents(g, w, repo, opts.Agents, opts.Remove)
		if err != nil || opts.Remove {
			if err == nil && g.JSON {
				err = g.printJSON(map[string]any{"agents": reps})
			}
			return err
		}
		st, err := hooks.Install(repo, g.executable())
		if err != nil {
			return err
		}
		warnWorkTreeHooks(g, repo, st)
		if g.JSON {
			return g.printJSON(map[string]any{"hooks": st, "agents": reps})
		}
		return printHooks(g, st)
	}
	st, err := hooks.Install(repo, g.executable())
	if err != nil {
		return err
	}
	warnWorkTreeHooks(g, repo, st)
	return printHooks(g, st)
}

// warnWorkTreeHooks says so when the hooks were written inside the work
// tree (core.hooksPath pointing at a tracked directory such as .husky):
// they may be committed, so they name no path of this machine.
func warnWorkTreeHooks(g *GlobalOptions, repo *gitstore.Repo, st []hooks.State) {
	if len(st) == 0 {
		return
	}
	if rel, ok := hooks.InWorkTree(repo, filepath.Dir(st[0].Path)); ok {
		fmt.Fprintf(g.Stderr, "warning: core.hooksPath %s is inside the work tree, so the hooks written there may be committed: "+
			"they name no path of this machine and run git-konteks from %s, else from PATH\n", rel, hooks.BinKey)
	}
}

func runHooksUninstall(_ context.Context, g *GlobalOptions, _ []string) error {
	return runHooksOp(g, hooks.Uninstall)
}

func runHooksStatus(_ context.Context, g *GlobalOptions, _ []string) error {
	return runHooksOp(g, hooks.Status)
}

// runHooksOp runs op on the repository and prints the hooks' states.
func runHooksOp(g *GlobalOptions, op func(*gitstore.Repo) ([]hooks.State, error)) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	st, err := op(repo)
	if err != nil {
		return err
	}
	return printHooks(g, st)
}

func printHooks(g *GlobalOptions, st []hooks.State) error {
	if g.JSON {
		return g.printJSON(st)
	}
	for _, s := range st {
		state := "not installed"
		switch {
		case s.Installed && s.Chained:
			state = "installed (runs your previous hook first)"
		case s.Installed:
			state = "installed"
		case s.Foreign:
			state = "not installed (another hook is there)"
		}
		fmt.Fprintf(g.Stdout, "%-14s %s  %s\n", s.Name, state, s.Path)
	}
	return nil
}

// runHooksRun is what a hook starts in the background. It detaches from
// the terminal's session, records the request and serves it. It always
// exits 0: memory must never fail a git command.
func runHooksRun(_ context.Context, g *GlobalOptions, args []string) error {
	if len(args) == 0 || !hooks.Wanted(args[0], args[1:]) {
		return nil
	}
	if g.ownsProcess {
		// The session is the process's: a caller running this
		// in-process keeps its own.
		syscall.Setsid()
	}
	repo, err := g.openRepo()
	if err != nil {
		return nil
	}
	if err := hooks.Request(repo, args[0]); err != nil {
		return nil
	}
	hooks.Serve(repo, version)
	return nil
}

// warmInBackground starts the hooks' background runner when the hooks are
// installed (the user chose background work): after fetch or sync moved
// memory, it brings the local caches recall reads up to date, so the first
// question does not pay for building them. Without the hooks it does
// nothing; errors are ignored like a hook's.
func (g *GlobalOptions) warmInBackground(repo *gitstore.Repo, why string) {
	st, err := hooks.Status(repo)
	if err != nil {
		return
	}
	installed := false
	for _, s := range st {
		installed = installed || s.Installed
	}
	if !installed {
		return
	}
	g.startRunner(repo, why)
}

// startRunner starts the background runner (`hooks run WHY`), detached;
// it serves one pass and whatever it was asked meanwhile.
func (g *GlobalOptions) startRunner(repo *gitstore.Repo, why string) {
	self := g.Executable
	if self == "" {
		return
	}
	// The request is recorded before the runner starts (it records it
	// again): whoever looks right after this returns sees background work
	// pending, not nothing while the process is still starting.
	if err := hooks.Request(repo, why); err != nil {
		return
	}
	cmd := exec.Command(self, "hooks", "run", why)
	cmd.Dir = repo.WorkTree
	if cmd.Dir == "" {
		cmd.Dir = repo.GitDir
	}
	if cmd.Start() == nil {
		// Reaped when it ends, should this process still be running
		// then: a caller that runs commands in-process and lives on
		// (the tests) would otherwise keep a zombie per runner, which
		// still answers kill(pid, 0) as if alive. The program exits
		// first and leaves the runner to init, as before.
		go cmd.Wait()
	}
}
