package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/share"
)

// memoriesListOptions are the flags of `memories list` (and of plain
// `memories`).
type memoriesListOptions struct {
	Kind       string
	Diary, All bool
}

// memoriesVerifyOptions are the flags of `memories verify`.
type memoriesVerifyOptions struct {
	All bool
}

// memoriesForgetOptions are the flags of `memories forget`.
type memoriesForgetOptions struct {
	Reason string
	Purge  bool
}

func memoriesCommand(g *GlobalOptions) *cli.Command {
	var listOpts memoriesListOptions
	var verifyOpts memoriesVerifyOptions
	var forgetOpts memoriesForgetOptions
	listFlags := []cli.Flag{
		&cli.StringFlag{Name: "kind", Destination: &listOpts.Kind, Usage: "only this `KIND`"},
		&cli.BoolFlag{Name: "diary", Destination: &listOpts.Diary, Usage: "list diary entries instead"},
		&cli.BoolFlag{Name: "all", Destination: &listOpts.All, Usage: "include forgotten and superseded entries"},
		jsonFlag(),
	}
	list := func(c *cli.Context) error { return runMemoriesList(c.Context, listOpts, g, c.Args().Slice()) }
	return &cli.Command{
		Name:  "memories",
		Usage: "list, show and forget durable memories",
		Subcommands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "list live durable memories (and diary entries with --diary)",
				Flags:  listFlags,
				Action: list,
			},
			{
				Name: "show", Usage: "show one entry", ArgsUsage: "ID",
				Flags:  []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error { return runMemoriesShow(c.Context, g, c.Args().Slice()) },
			},
			{
				Name: "verify", Usage: "check the code each memory cites: fresh, stale (changed since) or obsolete (gone)",
				Description: "Checks every live memory that cites code against the commit memory describes.\n" +
					"With konteks.memories.expire set to N, uncited memories older than N days are listed\n" +
					"as expired (recall no longer returns them; `memories confirm ID` renews one).",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "all", Destination: &verifyOpts.All, Usage: "also list fresh and uncited memories"}, jsonFlag()},
				Action: func(c *cli.Context) error { return runMemoriesVerify(c.Context, verifyOpts, g, c.Args().Slice()) },
			},
			{
				Name: "confirm", Usage: "re-cite a memory against the current code (it supersedes the old entry)", ArgsUsage: "ID",
				Flags:  []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error { return runMemoriesConfirm(c.Context, g, c.Args().Slice()) },
			},
			{
				Name: "forget", Usage: "forget an entry (writes a tombstone that travels to other clones)", ArgsUsage: "ID",
				Description: "A forgotten entry is hidden but its file stays (memories --all shows it). Only\n" +
					"an entry's author (user.email) can forget it. With --purge its file is deleted,\n" +
					"every clone that merges the tombstone in a memory commit signed by your key, listed\n" +
					"in its konteks.trust, deletes its copy (one that does not forgets it and keeps the\n" +
					"file), and memory's history is rewritten and pushed (with compare-and-swap) to every\n" +
					"remote this clone shares memory with, so no commit reachable from a memory ref\n" +
					"holds the text. Clones that fetched it earlier keep its objects until they gc.",
				Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Destination: &forgetOpts.Reason, Usage: "why it no longer holds", Required: true},
					&cli.BoolFlag{Name: "purge", Destination: &forgetOpts.Purge, Usage: "delete the text from memory and its history, here and on the remotes"}, jsonFlag()},
				Action: func(c *cli.Context) error { return runMemoriesForget(c.Context, forgetOpts, g, c.Args().Slice()) },
			},
		},
		Flags:  listFlags,
		Action: list,
	}
}

func loadDurable(g *GlobalOptions) ([]durable.Item, error) {
	repo, err := g.openRepo()
	if err != nil {
		return nil, err
	}
	mem, err := memref.Read(repo, memory.Ref)
	if mem == nil {
		return nil, err
	}
	items, bad, err := durable.Load(repo, mem.Tree)
	for _, b := range bad {
		fmt.Fprintf(g.Stderr, "warning: skipped a broken durable entry: %s\n", b)
	}
	return items, err
}

func runMemoriesList(_ context.Context, opts memoriesListOptions, g *GlobalOptions, _ []string) error {
	items, err := loadDurable(g)
	if err != nil {
		return err
	}
	want := durable.TypeMemory
	if opts.Diary {
		want = durable.TypeDiary
	}
	out := []durable.Item{}
	for _, it := range items {
		if it.Type != want || (!opts.All && it.Status != durable.StatusLive) {
			continue
		}
		if k := opts.Kind; k != "" && it.Kind != k {
			continue
		}
		out = append(out, it)
	}
	if g.JSON {
		return g.printJSON(out)
	}
	w := g.Stdout
	if len(out) == 0 {
		fmt.Fprintln(w, "no durable memories yet: save one with `git konteks remember \"...\"`")
		return nil
	}
	for _, it := range out {
		label := it.Label()
		status := ""
		if it.Status != durable.StatusLive {
			status = " [" + it.Status + "]"
		}
		by := "  (by " + it.Author
		if it.Legacy {
			by += ", id not bound to its author" // saved by an older version
		}
		fmt.Fprintf(w, "%s  %s  %-10s %s%s%s)\n", it.ID[:10], it.Created.Local().Format("2006-01-02"), label, clip(it.Text, 100), status, by)
	}
	return nil
}

func runMemoriesShow(_ context.Context, g *GlobalOptions, args []string) error {
	if len(args) != 1 {
		return cli.Exit("usage: git konteks memories show ID", 2)
	}
	items, err := loadDurable(g)
	if err != nil {
		return err
	}
	it, err := durable.Find(items, args[0])
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(it)
	}
	w := g.Stdout
	fmt.Fprintf(w, "id:       %s\ntype:     %s\n", it.ID, it.Type)
	if it.Kind != "" {
		fmt.Fprintf(w, "kind:     %s\n", it.Kind)
	}
	if it.Subject != "" {
		fmt.Fprintf(w, "subject:  %s\n", it.Subject)
	}
	fmt.Fprintf(w, "status:   %s\n", it.Status)
	if it.ForgottenBy != "" {
		fmt.Fprintf(w, "forgotten: %s (%s)\n", it.ForgetReason, it.ForgottenBy)
	}
	if it.SupersededBy != "" {
		fmt.Fprintf(w, "superseded by: %s\n", it.SupersededBy)
	}
	fmt.Fprintf(w, "author:   %s\ncreated:  %s\n", it.Author, it.Created.Local().Format("2006-01-02 15:04:05"))
	if it.Legacy {
		fmt.Fprintln(w, "id:       not bound to its content and author (saved by an older version)")
	}
	if len(it.Tags) > 0 {
		fmt.Fprintf(w, "tags:     %s\n", strings.Join(it.Tags, ", "))
	}
	if len(it.Paths) > 0 {
		fmt.Fprintf(w, "paths:    %s\n", strings.Join(it.Paths, ", "))
	}
	if len(it.Symbols) > 0 {
		fmt.Fprintf(w, "symbols:  %s\n", strings.Join(it.Symbols, ", "))
	}
	if it.Scope != "" {
		fmt.Fprintf(w, "scope:    %s\n", it.Scope)
	}
	if it.Session != "" {
		fmt.Fprintf(w, "session:  %s\n", it.Session)
	}
	for _, ct := range it.Cites {
		fmt.Fprintf(w, "cites:    %s\n", citeLabel(ct))
	}
	fmt.Fprintf(w, "\n%s\n", it.Text)
	return nil
}

func citeLabel(ct durable.Cite) string {
	s := ct.Path
	if ct.Start > 0 {
		s += fmt.Sprintf(":%d-%d", ct.Start, ct.End)
	}
	if ct.Symbol != "" {
		s += " " + ct.Symbol
	}
	return s + " (blob " + short(ct.Blob) + ")"
}

type verifiedJSON struct {
	durable.Item
	Freshness durable.Freshness `json:"freshness"`
}

func runMemoriesVerify(_ context.Context, opts memoriesVerifyOptions, g *GlobalOptions, _ []string) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil && mem == nil {
		return err
	}
	items, err := loadDurable(g)
	if err != nil {
		return err
	}
	v := durable.NewVerifier(repo, mem)
	if v == nil {
		return fmt.Errorf("no commit to check memories against")
	}
	out := []verifiedJSON{}
	counts := map[string]int{}
	for _, it := range items {
		if it.Type != durable.TypeMemory || it.Status != durable.StatusLive {
			continue
		}
		f := v.Check(it.Entry)
		counts[f.Status]++
		if opts.All || (f.Status != durable.Fresh && f.Status != durable.Uncited) {
			out = append(out, verifiedJSON{it, f})
		}
	}
	if g.JSON {
		return g.printJSON(map[string]any{"commit": v.Commit().String(), "counts": counts, "memories": out})
	}
	w := g.Stdout
	fmt.Fprintf(w, "checked against %s: %d fresh, %d stale, %d obsolete, %d expired, %d uncited\n", short(v.Commit().String()),
		counts[durable.Fresh], counts[durable.Stale], counts[durable.Obsolete], counts[durable.Expired], counts[durable.Uncited])
	for _, m := range out {
		fmt.Fprintf(w, "%s  %-8s %-10s %s\n", m.ID[:10], m.Freshness.Status, m.Kind, clip(m.Text, 90))
		if m.Freshness.Why != "" {
			fmt.Fprintf(w, "            %s\n", m.Freshness.Why)
		}
	}
	return nil
}

func runMemoriesConfirm(_ context.Context, g *GlobalOptions, args []string) error {
	return runOnArg(g, args, "usage: git konteks memories confirm ID", durable.Confirm, func(w io.Writer, it durable.Item) {
		fmt.Fprintf(w, "confirmed as %s (supersedes %s)\n", it.ID, short(it.Supersedes))
	})
}

func runMemoriesForget(_ context.Context, opts memoriesForgetOptions, g *GlobalOptions, args []string) error {
	repo, err := g.openRepoArg(args, "usage: git konteks memories forget ID --reason \"why\"")
	if err != nil {
		return err
	}
	forget := durable.Forget
	if opts.Purge {
		forget = durable.ForgetPurge
	}
	t, err := forget(repo, args[0], opts.Reason)
	if err != nil {
		return err // a durable.ErrRejected: main prints it, exit 1, error code "rejected"
	}
	return removed(g, repo, opts.Purge, "tombstone", t, "forgot "+t.Forgets,
		fmt.Sprintf("forgot %s (tombstone %s)", t.Forgets, t.ID), fmt.Sprintf("purged %s (tombstone %s)", t.Forgets, t.ID))
}

// removed ends a forget or a skill removal whose tombstone t (v, under key
// in --json) is saved: it prints line, or for a purge rewrites memory's
// history without the text, pushes it and prints purged with the result.
// done is what was done before the purge, for its error.
func removed(g *GlobalOptions, repo *gitstore.Repo, purge bool, key string, v any, done, line, purged string) error {
	if !purge {
		if g.JSON {
			return g.printJSON(v)
		}
		fmt.Fprintln(g.Stdout, line)
		return nil
	}
	res, err := share.Purge(repo)
	if err != nil {
		return fmt.Errorf("%s, but rewriting memory's history failed: %w (run the purge again)", done, err)
	}
	if g.JSON {
		return g.printJSON(map[string]any{key: v, "purge": res})
	}
	fmt.Fprintf(g.Stdout, "%s: %s\n", purged, res.Note)
	return purgeFailures(g, res)
}

// purgeFailures names the remotes a purge could not be pushed to and
// makes the command fail, so a script does not take the purge as done.
func purgeFailures(g *GlobalOptions, res share.PurgeResult) error {
	if len(res.Failed) == 0 {
		return nil
	}
	for rm, why := range res.Failed {
		fmt.Fprintf(g.Stderr, "not pushed to %s: %s\n", rm, why)
	}
	return cli.Exit("git-konteks: the purge is done here but not on every remote", 1)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
