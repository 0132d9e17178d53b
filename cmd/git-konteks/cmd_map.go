package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// openMemory opens the repository and its derived memory, or says how to
// create it.
func openMemory() (*gitstore.Repo, *memref.Memory, error) {
	repo, err := openRepo()
	if err != nil {
		return nil, nil, err
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; `git konteks extract --mode rebuild` rebuilds it", err)
	}
	if !mem.Derived() {
		return nil, nil, errors.New("no memory yet: run `git konteks extract`")
	}
	return repo, mem, nil
}

func overviewCommand() *cli.Command {
	return &cli.Command{
		Name:      "overview",
		Usage:     "show a directory's summary: L0 (one sentence) and L1 (overview of its children)",
		ArgsUsage: "[DIR]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			repo, mem, err := openMemory()
			if err != nil {
				return err
			}
			dir := strings.Trim(c.Args().First(), "/")
			if dir == "." {
				dir = ""
			}
			if dir != "" {
				dir = sourcePath(repo, dir)[0]
			}
			h, _, ok, err := repo.Lookup(mem.Tree, memory.DirSummaryPath(dir))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("no summary for %q: not a directory with remembered files", dir)
			}
			s, err := memref.DirSummary(repo, h)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(c, s)
			}
			name := s.Path
			if name == "" {
				name = "(root)"
			}
			fmt.Fprintf(c.App.Writer, "%s\n\n%s\n", name, s.L1)
			if f := s.Freshness; f.Pending > 0 {
				fmt.Fprintf(c.App.Writer, "\n(%d changes since this summary was refreshed)\n", f.Pending)
			}
			return nil
		},
	}
}

func skeletonCommand() *cli.Command {
	return &cli.Command{
		Name:      "skeleton",
		Usage:     "show a code file at a glance: imports, then each symbol's signature and first doc sentence",
		ArgsUsage: "PATH",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("usage: git konteks skeleton PATH", 2)
			}
			repo, mem, err := openMemory()
			if err != nil {
				return err
			}
			for _, p := range sourcePath(repo, c.Args().First()) {
				f, ok, err := memref.Record(repo, mem.Tree, p)
				if err != nil || !ok {
					continue
				}
				if c.Bool("json") {
					return printJSON(c, map[string]any{"path": p, "language": f.Language, "parser": f.Parser, "skeleton": f.Skeleton})
				}
				if f.Skeleton == "" {
					return fmt.Errorf("%s has no skeleton (parser %s: skeletons are made for parser-backed code)", p, f.Parser)
				}
				fmt.Fprintf(c.App.Writer, "%s\n", f.Skeleton)
				return nil
			}
			return fmt.Errorf("%s is not in memory", c.Args().First())
		},
	}
}

func graphCommand() *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "show an entity (file, symbol, directory) and its neighbours: what it defines, imports, and what imports it; a symbol's callees and callers",
		ArgsUsage: "NAME",
		Flags:     []cli.Flag{jsonFlag, &cli.IntFlag{Name: "limit", Value: 10, Usage: "at most `N` matching entities"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("usage: git konteks graph NAME", 2)
			}
			repo, mem, err := openMemory()
			if err != nil {
				return err
			}
			name := c.Args().First()
			nodes, err := graph.Find(repo, mem, name, c.Int("limit"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(c, nodes)
			}
			if len(nodes) == 0 {
				return fmt.Errorf("no entity named %q", name)
			}
			w := c.App.Writer
			for i, n := range nodes {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%s  (%s)\n", n.Entity.ID, n.Entity.Kind)
				for _, l := range n.Out {
					fmt.Fprintf(w, "  %-12s %s", l.Kind, l.ID)
					if l.Raw != "" && !strings.HasSuffix(l.ID, l.Raw) {
						fmt.Fprintf(w, "  (%s)", l.Raw)
					}
					fmt.Fprintln(w)
				}
				for _, l := range n.In {
					fmt.Fprintf(w, "  %-12s %s\n", l.Kind, l.ID)
				}
				if n.Rank > 0 {
					fmt.Fprintf(w, "  %-12s %.2f (1 = average file)\n", "pagerank", n.Rank)
				}
				for _, l := range n.Linked {
					fmt.Fprintf(w, "  %-12s %s  (%.2f)\n", l.Kind, l.ID, l.Weight)
				}
			}
			return nil
		},
	}
}
