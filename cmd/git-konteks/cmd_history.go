package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/history"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "recorded commits whose messages match a question, with the files they touched",
		ArgsUsage: "QUESTION",
		Flags: []cli.Flag{jsonFlag,
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Usage: "most commits to show"},
			&cli.IntFlag{Name: "files", Value: 20, Usage: "most files to list per commit"}},
		Action: func(c *cli.Context) error {
			g := globalsOf(c)
			q := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if q == "" {
				return fmt.Errorf(`usage: git konteks history [--json] [--limit N] "question"`)
			}
			repo, mem, err := openMemory(g)
			if err != nil {
				return err
			}
			res, err := history.Ask(repo, mem, q, c.Int("limit"), c.Int("files"))
			if err != nil {
				return err
			}
			links := sessionLinks(repo, mem)
			for i := range res.Hits {
				history.LinkSessions(links, &res.Hits[i].Brief)
			}
			if g.JSON {
				return printJSON(c, res)
			}
			fmt.Fprint(c.App.Writer, res.Text())
			return nil
		},
	}
}
