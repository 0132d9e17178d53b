package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// skillAddOptions are the flags of `skill add`.
type skillAddOptions struct {
	Name string
}

// skillListOptions are the flags of `skill list` (and plain `skill`).
type skillListOptions struct {
	All bool
}

// skillRemoveOptions are the flags of `skill remove`.
type skillRemoveOptions struct {
	Reason string
	Purge  bool
}

func skillCommand(g *GlobalOptions) *cli.Command {
	var addOpts skillAddOptions
	var listOpts skillListOptions
	var removeOpts skillRemoveOptions
	listFlags := []cli.Flag{&cli.BoolFlag{Name: "all", Destination: &listOpts.All, Usage: "include removed skills"}, jsonFlag()}
	list := func(c *cli.Context) error { return runSkillList(c.Context, listOpts, g, c.Args().Slice()) }
	return &cli.Command{
		Name:  "skill",
		Usage: "add, list, show and remove skills (SKILL.md documents shared through memory)",
		Description: "A skill is a SKILL.md document: front matter with a name and a description, then\n" +
			"instructions in Markdown. Skills live under durable/ in refs/konteks, travel with push\n" +
			"and fetch, and survive extraction. Adding a skill again stores a new version; the\n" +
			"newest version wins everywhere, and removing writes a tombstone that reaches every clone.",
		Subcommands: []*cli.Command{
			{
				Name: "add", Usage: "add or update a skill from a SKILL.md file, a directory holding one, or - for stdin",
				ArgsUsage: "PATH|-",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "name", Destination: &addOpts.Name, Usage: "the skill's `NAME` when the front matter has none"}, jsonFlag()},
				Action:    func(c *cli.Context) error { return runSkillAdd(c.Context, addOpts, g, c.Args().Slice()) },
			},
			{Name: "list", Usage: "list the skills in memory", Flags: listFlags, Action: list},
			{Name: "show", Usage: "print a skill as its SKILL.md document", ArgsUsage: "NAME", Flags: []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error { return runSkillShow(c.Context, g, c.Args().Slice()) }},
			{
				Name: "remove", Usage: "remove a skill (a tombstone that travels to other clones)", ArgsUsage: "NAME",
				Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Destination: &removeOpts.Reason, Usage: "why it is removed"},
					&cli.BoolFlag{Name: "purge", Destination: &removeOpts.Purge, Usage: "delete every version's text from memory and its history, here and on the remotes"}, jsonFlag()},
				Action: func(c *cli.Context) error { return runSkillRemove(c.Context, removeOpts, g, c.Args().Slice()) },
			},
		},
		Flags:  listFlags,
		Action: list,
	}
}

func runSkillAdd(_ context.Context, opts skillAddOptions, g *GlobalOptions, args []string) error {
	if len(args) != 1 {
		return cli.Exit("usage: git konteks skill add PATH|-", 2)
	}
	arg := args[0]
	var doc []byte
	var err error
	if arg == "-" {
		doc, err = io.ReadAll(io.LimitReader(g.Stdin, durable.MaxEntry+1))
	} else {
		p := g.abs(arg)
		if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
			p = filepath.Join(p, "SKILL.md")
		}
		var fi os.FileInfo
		if fi, err = os.Stat(p); err == nil && fi.Size() > durable.MaxEntry {
			return cli.Exit(fmt.Sprintf("git-konteks: %s is over %d bytes; keep SKILL.md short", p, durable.MaxEntry), 1)
		}
		if err == nil {
			doc, err = os.ReadFile(p)
		}
	}
	if err != nil {
		return err
	}
	s, err := durable.ParseSkill(doc)
	if err != nil {
		return err
	}
	if n := opts.Name; n != "" && s.Name == "" {
		s.Name = n
	} else if n != "" && n != s.Name {
		return cli.Exit(fmt.Sprintf("git-konteks: --name %s differs from the front matter's name %s", n, s.Name), 2)
	}
	if s.Name == "" {
		return cli.Exit("git-konteks: the skill has no name: add `name:` to its front matter (or give --name)", 1)
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	saved, changed, err := durable.AddSkill(repo, s)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(struct {
			Saved bool          `json:"saved"`
			Skill durable.Skill `json:"skill"`
		}{changed, saved})
	}
	switch {
	case !changed:
		fmt.Fprintf(g.Stdout, "skill %s unchanged (version %s)\n", saved.Name, saved.ID[:10])
	case saved.Versions > 1:
		fmt.Fprintf(g.Stdout, "updated skill %s (version %d, %s)\n", saved.Name, saved.Versions, saved.ID[:10])
	default:
		fmt.Fprintf(g.Stdout, "added skill %s (%s)\n", saved.Name, saved.ID[:10])
	}
	return nil
}

func loadSkills(g *GlobalOptions, all bool) ([]durable.Skill, error) {
	repo, err := g.openRepo()
	if err != nil {
		return nil, err
	}
	mem, err := memref.Read(repo, memory.Ref)
	if mem == nil {
		return nil, err
	}
	skills, bad, err := durable.LoadSkills(repo, mem.Tree, all)
	for _, b := range bad {
		fmt.Fprintf(g.Stderr, "warning: skipped a broken skill entry: %s\n", b)
	}
	return skills, err
}

func runSkillList(_ context.Context, opts skillListOptions, g *GlobalOptions, _ []string) error {
	skills, err := loadSkills(g, opts.All)
	if err != nil {
		return err
	}
	if skills == nil {
		skills = []durable.Skill{}
	}
	if g.JSON {
		return g.printJSON(skills)
	}
	w := g.Stdout
	if len(skills) == 0 {
		fmt.Fprintln(w, "no skills yet: add one with `git konteks skill add path/to/SKILL.md`")
		return nil
	}
	for _, s := range skills {
		status := ""
		if s.Type == durable.TypeTombstone {
			status = " [removed]"
		}
		fmt.Fprintf(w, "%-24s %s%s\n", s.Name, clip(s.Description, 100), status)
	}
	return nil
}

func runSkillShow(_ context.Context, g *GlobalOptions, args []string) error {
	return runOnArg(g, args, "usage: git konteks skill show NAME", durable.GetSkill, func(w io.Writer, s durable.Skill) {
		fmt.Fprint(w, s.Document())
	})
}

func runSkillRemove(_ context.Context, opts skillRemoveOptions, g *GlobalOptions, args []string) error {
	repo, err := g.openRepoArg(args, "usage: git konteks skill remove NAME")
	if err != nil {
		return err
	}
	remove := durable.RemoveSkill
	if opts.Purge {
		remove = durable.RemoveSkillPurge
	}
	t, err := remove(repo, args[0], opts.Reason)
	if err != nil {
		return err
	}
	return removed(g, repo, opts.Purge, "skill", t, "removed skill "+t.Name, "removed skill "+t.Name, "purged skill "+t.Name)
}
