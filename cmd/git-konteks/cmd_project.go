package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

func projectCommand() *cli.Command {
	return &cli.Command{
		Name:  "project",
		Usage: "show the project portrait: what it is, languages, packages, entry points, scripts, modules",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			repo, mem, err := openMemory()
			if err != nil {
				return err
			}
			var pr extract.Project
			if err := readJSON(repo, mem.Tree, memory.ProjectPath, &pr); err != nil {
				return err
			}
			mods, err := readModules(repo, mem.Tree)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(c, map[string]any{"project": pr, "modules": mods})
			}
			w := c.App.Writer
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
		},
	}
}

func readJSON(repo *gitstore.Repo, tree gitstore.Hash, p string, v any) error {
	h, _, ok, err := repo.Lookup(tree, p)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("memory has no %s yet: run `git konteks extract`", p)
	}
	b, err := repo.BlobBytes(h, 4<<20)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("corrupt %s: %v; `git konteks extract --mode rebuild` rebuilds it", p, err)
	}
	return nil
}

func readModules(repo *gitstore.Repo, tree gitstore.Hash) ([]extract.Module, error) {
	h, isTree, ok, err := repo.Lookup(tree, memory.ModulesDir)
	if err != nil || !ok || !isTree {
		return nil, err
	}
	var mods []extract.Module
	err = repo.WalkTree(h, nil, func(e gitstore.Entry) error {
		var m extract.Module
		if err := readJSON(repo, tree, memory.ModulesDir+"/"+e.Path, &m); err != nil {
			return err
		}
		mods = append(mods, m)
		return nil
	})
	sort.Slice(mods, func(i, j int) bool {
		return mods[i].Files > mods[j].Files || mods[i].Files == mods[j].Files && mods[i].Name < mods[j].Name
	})
	return mods, err
}
