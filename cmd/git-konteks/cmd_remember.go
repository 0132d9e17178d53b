package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
)

func rememberCommand() *cli.Command {
	return &cli.Command{
		Name:      "remember",
		Usage:     "save a durable memory (a decision, constraint, preference, insight, fact or note)",
		ArgsUsage: `"text"`,
		Description: "Durable memories live under durable/ in refs/konteks, travel with push and fetch,\n" +
			"and are never removed by extraction. Paths and `symbols` named in the text are linked\n" +
			"and cited: `memories verify` says when the cited code has changed since.\n" +
			"Near-empty text and credentials are refused (exit 1). An exact duplicate is not saved\n" +
			"again: the command names the entry already saved and exits 0 (--json: \"duplicate\": true).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Value: "note", Usage: "`KIND`: " + strings.Join(durable.Kinds, ", ")},
			&cli.StringSliceFlag{Name: "tag", Usage: "a `TAG` (repeatable)"},
			&cli.StringSliceFlag{Name: "path", Usage: "a source `PATH` it is about (repeatable)"},
			&cli.StringFlag{Name: "supersedes", Usage: "`ID` of a memory this one replaces"},
			&cli.StringFlag{Name: "scope", Usage: "`SCOPE`: " + durable.ScopeRepository + " (a fact about the repository) or " + durable.ScopePersonal + " (your preference)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			return save(c, durable.Entry{
				Type: durable.TypeMemory, Kind: c.String("kind"), Text: strings.Join(c.Args().Slice(), " "),
				Tags: c.StringSlice("tag"), Paths: c.StringSlice("path"), Supersedes: c.String("supersedes"), Scope: c.String("scope"),
			})
		},
	}
}

func diaryCommand() *cli.Command {
	return &cli.Command{
		Name:      "diary",
		Usage:     "add a diary entry: what was done, found or left open in a session",
		ArgsUsage: `"entry"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "subject", Usage: "what the entry is about"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			return save(c, durable.Entry{Type: durable.TypeDiary, Subject: c.String("subject"), Text: strings.Join(c.Args().Slice(), " ")})
		},
	}
}

type savedJSON struct {
	Saved     bool         `json:"saved"`
	Duplicate bool         `json:"duplicate,omitempty"`
	Entry     durable.Item `json:"entry"`
}

func save(c *cli.Context, e durable.Entry) error {
	if strings.TrimSpace(e.Text) == "" {
		return cli.Exit(fmt.Sprintf("usage: git konteks %s \"text\"", c.Command.Name), 2)
	}
	repo, err := openRepo()
	if err != nil {
		return err
	}
	durable.LinkMentions(repo, &e)
	if e.Type == durable.TypeMemory {
		durable.CiteMentions(repo, &e)
	}
	it, isNew, err := durable.Save(repo, e)
	if err != nil {
		if errors.Is(err, durable.ErrRejected) {
			return err // main prints it, exit 1, error code "rejected"
		}
		return err
	}
	if c.Bool("json") {
		return printJSON(c, savedJSON{Saved: isNew, Duplicate: !isNew, Entry: it})
	}
	if !isNew {
		fmt.Fprintf(c.App.Writer, "already remembered as %s\n", it.ID)
		return nil
	}
	fmt.Fprintf(c.App.Writer, "remembered %s", it.ID)
	if len(it.Paths) > 0 {
		fmt.Fprintf(c.App.Writer, " (linked to %s)", strings.Join(it.Paths, ", "))
	}
	fmt.Fprintln(c.App.Writer)
	return nil
}
