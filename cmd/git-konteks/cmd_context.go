package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/recall"
)

func contextCommand() *cli.Command {
	return &cli.Command{
		Name:      "context",
		Usage:     "print a Markdown context pack for a task, fitted to a token budget",
		ArgsUsage: `"task"`,
		Description: "Recalls the sections that matter for the task and writes them as Markdown for an agent:\n" +
			"the project in two lines, the relevant areas, then the best sections with their code or\n" +
			"text and path:line references — full text while the budget allows, then summaries, then\n" +
			"bare references. Tokens are estimated at four bytes each. A task of - is read from\n" +
			"standard input.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "budget", Value: recall.DefaultBudget, Usage: "token `BUDGET` of the pack"},
			&cli.BoolFlag{Name: "refresh", Usage: "run a changed extraction first, so memory describes HEAD"},
			&cli.StringFlag{Name: "mode", Value: recall.Hybrid, Usage: "`MODE`: hybrid, lexical or vector"},
			jsonFlag,
		},
		Action: runContext,
	}
}

func runContext(c *cli.Context) error {
	task, err := taskArg(c)
	if err != nil {
		return err
	}
	if task == "" {
		return cli.Exit("context needs a task, e.g. git konteks context \"add retries to the fetcher\" (or - to read it from standard input)", 2)
	}
	if c.Int("budget") < 100 {
		return cli.Exit("--budget must be at least 100 tokens", 2)
	}
	ctx, stop := interruptible()
	defer stop()
	s, err := openSearcher(ctx, c.Bool("refresh"))
	if err != nil {
		return stopped(ctx, err, c.Bool("refresh"))
	}
	defer s.Close()
	p, err := s.Context(ctx, task, recall.PackOptions{Budget: c.Int("budget"), Mode: c.String("mode")})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		printNotes(p.Notes, p.Memory, false)
		return printJSON(c, p)
	}
	fmt.Fprint(c.App.Writer, p.Markdown)
	printNotes(p.Notes, p.Memory, false)
	return nil
}
