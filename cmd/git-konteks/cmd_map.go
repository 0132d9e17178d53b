package main

import (
	"context"
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
func openMemory(g *GlobalOptions) (*gitstore.Repo, *memref.Memory, error) {
	repo, err := g.openRepo()
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

// openMemoryArg starts a command that takes one argument and reads
// derived memory: a usage error (exit 2) for any other count, else as
// openMemory.
func openMemoryArg(g *GlobalOptions, args []string, usage string) (*gitstore.Repo, *memref.Memory, error) {
	if len(args) != 1 {
		return nil, nil, cli.Exit(usage, 2)
	}
	return openMemory(g)
}

func overviewCommand(g *GlobalOptions) *cli.Command {
	return &cli.Command{
		Name:  "overview",
		Usage: "show a directory's summary: L0 (one sentence) and L1 (overview of its children)",
		Description: "DIR is relative to the current directory, as in git (`overview .` is the directory\n" +
			"you are in), or from the top of the repository when no such directory is there.\n" +
			"Without DIR: the repository's top directory.",
		ArgsUsage: "[DIR]",
		Flags:     []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return cli.Exit("usage: git konteks overview [DIR]", 2)
			}
			return runOverview(c.Context, g, c.Args().Slice())
		},
	}
}

func runOverview(_ context.Context, g *GlobalOptions, args []string) error {
	repo, mem, err := openMemory(g)
	if err != nil {
		return err
	}
	cands := []string{""}
	if len(args) == 1 {
		cands = sourcePath(g, repo, args[0])
	}
	var s *memory.DirSummary
	for _, dir := range cands {
		if memory.ValidSourcePath(dir) != nil && dir != "" {
			continue
		}
		h, _, ok, err := repo.Lookup(mem.Tree, memory.DirSummaryPath(dir))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if s, err = memref.DirSummary(repo, h); err != nil {
			return err
		}
		break
	}
	if s == nil {
		return fmt.Errorf("no summary for %q: not a directory with remembered files", cands[0])
	}
	if g.JSON {
		return g.printJSON(s)
	}
	name := s.Path
	if name == "" {
		name = "(root)"
	}
	fmt.Fprintf(g.Stdout, "%s\n\n%s\n", name, s.L1)
	if f := s.Freshness; f.Pending > 0 {
		fmt.Fprintf(g.Stdout, "\n(%d changes since this summary was refreshed)\n", f.Pending)
	}
	return nil
}

func skeletonCommand(g *GlobalOptions) *cli.Command {
	return &cli.Command{
		Name:      "skeleton",
		Usage:     "show a code file at a glance: imports, then each symbol's signature and first doc sentence",
		ArgsUsage: "PATH",
		Flags:     []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			return runSkeleton(c.Context, g, c.Args().Slice())
		},
	}
}

func runSkeleton(_ context.Context, g *GlobalOptions, args []string) error {
	repo, mem, err := openMemoryArg(g, args, "usage: git konteks skeleton PATH")
	if err != nil {
		return err
	}
	for _, p := range sourcePath(g, repo, args[0]) {
		if memory.ValidSourcePath(p) != nil {
			continue
		}
		f, ok, err := memref.Record(repo, mem.Tree, p)
		if err != nil || !ok {
			continue
		}
		if g.JSON {
			return g.printJSON(map[string]any{"path": p, "language": f.Language, "parser": f.Parser, "skeleton": f.Skeleton})
		}
		if f.Skeleton == "" {
			return fmt.Errorf("%s has no skeleton (parser %s: skeletons are made for parser-backed code)", p, f.Parser)
		}
		fmt.Fprintf(g.Stdout, "%s\n", f.Skeleton)
		return nil
	}
	return fmt.Errorf("%s is not in memory", args[0])
}

// graphOptions are graph's flags.
type graphOptions struct {
	Limit int
}

func graphCommand(g *GlobalOptions) *cli.Command {
	var opts graphOptions
	return &cli.Command{
		Name:      "graph",
		Usage:     "show an entity (file, symbol, directory) and its neighbours: what it defines, imports, and what imports it; a symbol's callees and callers",
		ArgsUsage: "NAME",
		Flags:     []cli.Flag{jsonFlag(), &cli.IntFlag{Name: "limit", Value: 10, Destination: &opts.Limit, Usage: "at most `N` matching entities"}},
		Action: func(c *cli.Context) error {
			return runGraph(c.Context, opts, g, c.Args().Slice())
		},
	}
}

func runGraph(_ context.Context, opts graphOptions, g *GlobalOptions, args []string) error {
	repo, mem, err := openMemoryArg(g, args, "usage: git konteks graph NAME")
	if err != nil {
		return err
	}
	name := args[0]
	nodes, err := graph.Find(repo, mem, name, opts.Limit)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(nodes)
	}
	if len(nodes) == 0 {
		return fmt.Errorf("no entity named %q", name)
	}
	w := g.Stdout
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
}
