package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/recall"
)

// contextOptions are context's flags.
type contextOptions struct {
	Budget  int
	Refresh bool
	Mode    string
}

func contextCommand(g *GlobalOptions) *cli.Command {
	var opts contextOptions
	return &cli.Command{
		Name:      "context",
		Usage:     "print a Markdown context pack for a task, fitted to a token budget",
		ArgsUsage: `"task"`,
		Description: "Recalls the sections that matter for the task and writes them as Markdown for an agent:\n" +
			"the project in two lines, the relevant areas, then the best sections with their code or\n" +
			"text and path:line references — full text while the budget allows, then summaries, then\n" +
			"bare references. Saved memories that match the task close the pack, a cited one marked\n" +
			"stale when its code has changed since. Tokens are estimated at four bytes each. A task of - is read from\n" +
			"standard input; a task that starts with a dash goes after --.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "budget", Value: recall.DefaultBudget, Destination: &opts.Budget, Usage: "token `BUDGET` of the pack"},
			&cli.BoolFlag{Name: "refresh", Destination: &opts.Refresh, Usage: "run a changed extraction first, so memory describes HEAD"},
			&cli.StringFlag{Name: "mode", Value: recall.Hybrid, Destination: &opts.Mode, Usage: "`MODE`: hybrid, lexical or vector"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			return runContext(c.Context, opts, g, c.Args().Slice())
		},
	}
}

func runContext(ctx context.Context, opts contextOptions, g *GlobalOptions, args []string) error {
	task, err := needTask(g, args, "context needs a task, e.g. git konteks context \"add retries to the fetcher\" (or - to read it from standard input)")
	if err != nil {
		return err
	}
	if opts.Budget < 100 {
		return cli.Exit("--budget must be at least 100 tokens", 2)
	}
	if err := checkMode(opts.Mode); err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	s, err := openSearcher(ctx, g, repo, opts.Refresh)
	if err != nil {
		return stopped(ctx, err, opts.Refresh)
	}
	defer s.Close()
	p, err := s.Context(ctx, task, recall.PackOptions{Budget: opts.Budget, Mode: opts.Mode})
	if err != nil {
		return err
	}
	if g.JSON {
		printNotes(g.Stderr, p.Notes, p.Memory, false)
		return g.printJSON(p)
	}
	fmt.Fprint(g.Stdout, p.Markdown)
	printNotes(g.Stderr, p.Notes, p.Memory, false)
	return nil
}
