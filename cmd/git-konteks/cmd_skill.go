package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/share"
)

func skillCommand() *cli.Command {
	list := &cli.Command{
		Name:   "list",
		Usage:  "list the skills in memory",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "include removed skills"}, jsonFlag},
		Action: runSkillList,
	}
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
				Flags:     []cli.Flag{&cli.StringFlag{Name: "name", Usage: "the skill's `NAME` when the front matter has none"}, jsonFlag},
				Action:    runSkillAdd,
			},
			list,
			{Name: "show", Usage: "print a skill as its SKILL.md document", ArgsUsage: "NAME", Flags: []cli.Flag{jsonFlag}, Action: runSkillShow},
			{
				Name: "remove", Usage: "remove a skill (a tombstone that travels to other clones)", ArgsUsage: "NAME",
				Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why it is removed"},
					&cli.BoolFlag{Name: "purge", Usage: "delete every version's text from memory and its history, here and on the remotes"}, jsonFlag},
				Action: runSkillRemove,
			},
		},
		Flags:  list.Flags,
		Action: runSkillList,
	}
}

// skillError turns refusals into exit status 1 with the reason, as
// remember does, and usage errors into 2.
func skillError(err error) error {
	if errors.Is(err, durable.ErrRejected) || errors.Is(err, durable.ErrNoSkill) {
		return err // main prints it with exit 1 and its --json code
	}
	return err
}

func runSkillAdd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return cli.Exit("usage: git konteks skill add PATH|-", 2)
	}
	arg := c.Args().First()
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
		return skillError(err)
	}
	if n := c.String("name"); n != "" && s.Name == "" {
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
		return skillError(err)
	}
	if g.JSON {
		return printJSON(c, struct {
			Saved bool          `json:"saved"`
			Skill durable.Skill `json:"skill"`
		}{changed, saved})
	}
	switch {
	case !changed:
		fmt.Fprintf(c.App.Writer, "skill %s unchanged (version %s)\n", saved.Name, saved.ID[:10])
	case saved.Versions > 1:
		fmt.Fprintf(c.App.Writer, "updated skill %s (version %d, %s)\n", saved.Name, saved.Versions, saved.ID[:10])
	default:
		fmt.Fprintf(c.App.Writer, "added skill %s (%s)\n", saved.Name, saved.ID[:10])
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

func runSkillList(c *cli.Context) error {
	g := globalsOf(c)
	skills, err := loadSkills(g, c.Bool("all"))
	if err != nil {
		return err
	}
	if skills == nil {
		skills = []durable.Skill{}
	}
	if g.JSON {
		return printJSON(c, skills)
	}
	w := c.App.Writer
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

func runSkillShow(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return cli.Exit("usage: git konteks skill show NAME", 2)
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	s, err := durable.GetSkill(repo, c.Args().First())
	if err != nil {
		return skillError(err)
	}
	if g.JSON {
		return printJSON(c, s)
	}
	fmt.Fprint(c.App.Writer, s.Document())
	return nil
}

func runSkillRemove(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return cli.Exit("usage: git konteks skill remove NAME", 2)
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	remove := durable.RemoveSkill
	if c.Bool("purge") {
		remove = durable.RemoveSkillPurge
	}
	t, err := remove(repo, c.Args().First(), c.String("reason"))
	if err != nil {
		return skillError(err)
	}
	if !c.Bool("purge") {
		if g.JSON {
			return printJSON(c, t)
		}
		fmt.Fprintf(c.App.Writer, "removed skill %s\n", t.Name)
		return nil
	}
	res, err := share.Purge(repo)
	if err != nil {
		return fmt.Errorf("removed skill %s, but rewriting memory's history failed: %w (run the purge again)", t.Name, err)
	}
	if g.JSON {
		return printJSON(c, map[string]any{"skill": t, "purge": res})
	}
	fmt.Fprintf(c.App.Writer, "purged skill %s: %s\n", t.Name, res.Note)
	return purgeFailures(g, res)
}
