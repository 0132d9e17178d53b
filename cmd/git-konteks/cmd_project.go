package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/memref"
	"github.com/urfave/cli/v2"
)

func projectCommand(g *GlobalOptions) *cli.Command {
	return &cli.Command{
		Name:   "project",
		Usage:  "show the project portrait: what it is, languages, packages, entry points, scripts, modules",
		Flags:  []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error { return runProject(c.Context, g) },
	}
}

func runProject(_ context.Context, g *GlobalOptions) error {
	repo, mem, err := openMemory(g)
	if err != nil {
		return err
	}
	pr, err := memref.Project(repo, mem.Tree)
	if err != nil {
		return err
	}
	mods, err := memref.Modules(repo, mem.Tree)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(map[string]any{"project": pr, "modules": mods})
	}
	w := g.Stdout
	fmt.Fprintf(w, "%s\n", pr.Name)
	if pr.Description != "" {
		fmt.Fprintf(w, "%s\n", pr.Description)
	}
	var langs []string
	for _, l := range pr.Languages {
		langs = append(langs, fmt.Sprintf("%s %d%%", l.Language, l.Percent))
	}
	fmt.Fprintf(w, "\nlanguages:    %s\n", strings.Join(langs, ", "))
	if len(pr.Tech) > 0 {
		fmt.Fprintf(w, "tech:         %s\n", strings.Join(pr.Tech, ", "))
	}
	for _, p := range pr.Packages {
		loc := p.Path
		if loc == "" {
			loc = "."
		}
		fmt.Fprintf(w, "package:      %s (%s) at %s %s\n", p.Name, p.Manager, loc, p.Version)
	}
	for _, pg := range pr.PackageGroups {
		names := strings.Join(pg.Names, ", ")
		if pg.Count > len(pg.Names) {
			names += ", …"
		}
		fmt.Fprintf(w, "%-13s %d %s packages under %s/ (%s)\n", pg.Role+":", pg.Count, pg.Manager, pg.Path, names)
	}
	if len(pr.EntryPoints) > 0 {
		fmt.Fprintf(w, "entry points: %s\n", strings.Join(pr.EntryPoints, ", "))
	}
	if len(pr.Workspaces) > 0 {
		fmt.Fprintf(w, "workspaces:   %s\n", strings.Join(pr.Workspaces, ", "))
	}
	if len(pr.Scripts) > 0 {
		var names []string
		for _, s := range pr.Scripts {
			names = append(names, s.Name)
		}
		fmt.Fprintf(w, "scripts:      %s\n", strings.Join(names, ", "))
	}
	if len(pr.CI) > 0 {
		fmt.Fprintf(w, "ci:           %s\n", strings.Join(pr.CI, ", "))
	}
	fmt.Fprintln(w, "\nmodules:")
	for _, m := range mods {
		fmt.Fprintf(w, "  %-16s %5d files %6d sections  %s\n", m.Name, m.Files, m.Sections, m.Abstract)
	}
	return nil
}
