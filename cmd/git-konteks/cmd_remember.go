package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
)

// rememberOptions are remember's flags.
type rememberOptions struct {
	Kind, Supersedes, Scope string
	Tags, Paths             []string
}

func rememberCommand(g *GlobalOptions) *cli.Command {
	var opts rememberOptions
	tags, paths := cli.NewStringSlice(), cli.NewStringSlice()
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
			&cli.StringFlag{Name: "kind", Value: "note", Destination: &opts.Kind, Usage: "`KIND`: " + strings.Join(durable.Kinds, ", ")},
			&cli.StringSliceFlag{Name: "tag", Destination: tags, Usage: "a `TAG` (repeatable)"},
			&cli.StringSliceFlag{Name: "path", Destination: paths, Usage: "a source `PATH` it is about (repeatable)"},
			&cli.StringFlag{Name: "supersedes", Destination: &opts.Supersedes, Usage: "`ID` of a memory this one replaces"},
			&cli.StringFlag{Name: "scope", Destination: &opts.Scope, Usage: "`SCOPE`: " + durable.ScopeRepository + " (a fact about the repository) or " + durable.ScopePersonal + " (your preference)"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			opts.Tags, opts.Paths = tags.Value(), paths.Value()
			return runRemember(c.Context, opts, g, c.Args().Slice())
		},
	}
}

// runRemember saves a durable memory of the text args make.
func runRemember(_ context.Context, opts rememberOptions, g *GlobalOptions, args []string) error {
	return save(g, "remember", durable.Entry{
		Type: durable.TypeMemory, Kind: opts.Kind, Text: strings.Join(args, " "),
		Tags: opts.Tags, Paths: opts.Paths, Supersedes: opts.Supersedes, Scope: opts.Scope,
	})
}

// diaryOptions are diary's flags.
type diaryOptions struct {
	Subject string
}

func diaryCommand(g *GlobalOptions) *cli.Command {
	var opts diaryOptions
	return &cli.Command{
		Name:      "diary",
		Usage:     "add a diary entry: what was done, found or left open in a session",
		ArgsUsage: `"entry"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "subject", Destination: &opts.Subject, Usage: "what the entry is about"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			return runDiary(c.Context, opts, g, c.Args().Slice())
		},
	}
}

// runDiary adds a diary entry of the text args make.
func runDiary(_ context.Context, opts diaryOptions, g *GlobalOptions, args []string) error {
	return save(g, "diary", durable.Entry{Type: durable.TypeDiary, Subject: opts.Subject, Text: strings.Join(args, " ")})
}

type savedJSON struct {
	Saved     bool         `json:"saved"`
	Duplicate bool         `json:"duplicate,omitempty"`
	Entry     durable.Item `json:"entry"`
}

func save(g *GlobalOptions, command string, e durable.Entry) error {
	if strings.TrimSpace(e.Text) == "" {
		return cli.Exit(fmt.Sprintf("usage: git konteks %s \"text\"", command), 2)
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	durable.Annotate(repo, &e)
	it, isNew, err := durable.Save(repo, e)
	if err != nil {
		if errors.Is(err, durable.ErrRejected) {
			return err // main prints it, exit 1, error code "rejected"
		}
		return err
	}
	if g.JSON {
		return g.printJSON(savedJSON{Saved: isNew, Duplicate: !isNew, Entry: it})
	}
	if !isNew {
		fmt.Fprintf(g.Stdout, "already remembered as %s\n", it.ID)
		return nil
	}
	fmt.Fprintf(g.Stdout, "remembered %s", it.ID)
	if len(it.Paths) > 0 {
		fmt.Fprintf(g.Stdout, " (linked to %s)", strings.Join(it.Paths, ", "))
	}
	fmt.Fprintln(g.Stdout)
	return nil
}
