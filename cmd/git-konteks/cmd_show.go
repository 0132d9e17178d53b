package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// showOptions are show's flags.
type showOptions struct {
	Content bool
}

func showCommand(g *GlobalOptions) *cli.Command {
	var opts showOptions
	return &cli.Command{
		Name:      "show",
		Usage:     "show the memory record of one file (its sections with anchors and line ranges), or one section of it with PATH#ANCHOR",
		ArgsUsage: "PATH[#ANCHOR]",
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.BoolFlag{Name: "content", Destination: &opts.Content, Usage: "print each section's content too"},
		},
		Action: func(c *cli.Context) error {
			return runShow(c.Context, opts, g, c.Args().Slice())
		},
	}
}

type showJSON struct {
	Path string `json:"path"`
	*memory.File
}

// showSectionJSON is one section of a record, as `show PATH#ANCHOR --json`
// prints it.
type showSectionJSON struct {
	Path     string         `json:"path"`
	Kind     string         `json:"kind"`
	Language string         `json:"language,omitempty"`
	Blob     string         `json:"blob"`
	Section  memory.Section `json:"section"`
}

// runShow prints the record of the file args[0] names: a path relative
// to the current directory, or from the top of the repository.
func runShow(_ context.Context, opts showOptions, g *GlobalOptions, args []string) error {
	repo, mem, err := openMemoryArg(g, args, "usage: git konteks show PATH[#ANCHOR]")
	if err != nil {
		return err
	}
	arg, anchor := args[0], ""
	rec, path, err := showRecord(g, repo, mem, arg)
	if err != nil {
		return err
	}
	if rec == nil {
		// PATH#ANCHOR, as `why` and the MCP show take it; a path that
		// itself holds a "#" was tried whole first.
		if p, a, ok := strings.Cut(arg, "#"); ok && p != "" {
			if rec, path, err = showRecord(g, repo, mem, p); err != nil {
				return err
			}
			arg, anchor = p, a
		}
	}
	if rec == nil {
		return notInMemory(g, repo, mem, arg)
	}
	if anchor != "" {
		return showSection(g, path, rec, anchor)
	}
	if g.JSON {
		return g.printJSON(showJSON{Path: path, File: rec})
	}
	w := g.Stdout
	lang := rec.Language
	if lang == "" {
		lang = "-"
	}
	fmt.Fprintf(w, "%s  %s  %s  parser=%s", path, rec.Kind, lang, rec.Parser)
	if rec.Fallback != "" {
		fmt.Fprintf(w, " (fallback: %s)", rec.Fallback)
	}
	fmt.Fprintf(w, "  %d lines  blob %s\n", rec.Lines, shortHash(rec.Blob))
	for _, s := range rec.Sections {
		name := s.QName
		if name == "" {
			name = s.Name
		}
		fmt.Fprintf(w, "  %5d-%-5d  %-10s %-12s %s  [%s]\n", s.StartLine, s.EndLine, s.Symbol, s.Parser, name, s.Anchor)
		if opts.Content {
			fmt.Fprintln(w, indent(s.Content, "        "))
		}
	}
	return nil
}

// showRecord reads the record of the file arg names, or nil when there is
// none.
func showRecord(g *GlobalOptions, repo *gitstore.Repo, mem *memref.Memory, arg string) (*memory.File, string, error) {
	for _, p := range sourcePath(g, repo, arg) {
		if memory.ValidSourcePath(p) != nil {
			continue
		}
		f, ok, err := memref.Record(repo, mem.Tree, p)
		if err != nil {
			return nil, "", fmt.Errorf("%w; `git konteks extract --mode rebuild` rebuilds memory", err)
		}
		if ok {
			return f, p, nil
		}
	}
	return nil, "", nil
}

// showSection prints the one section of rec that anchor names: its place,
// name and anchor, then its content.
func showSection(g *GlobalOptions, path string, rec *memory.File, anchor string) error {
	i, ok := rec.FindSection(anchor)
	if !ok {
		return rec.NoSection(path, anchor)
	}
	s := rec.Sections[i]
	if g.JSON {
		return g.printJSON(showSectionJSON{Path: path, Kind: rec.Kind, Language: rec.Language, Blob: rec.Blob, Section: s})
	}
	name := s.QName
	if name == "" {
		name = s.Name
	}
	w := g.Stdout
	fmt.Fprintf(w, "%s:%d-%d  %s  [%s]\n", path, s.StartLine, s.EndLine, name, s.Anchor)
	if s.Summary != "" && s.Summary != name {
		fmt.Fprintf(w, "%s\n", s.Summary)
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimRight(s.Content, "\n"))
	return nil
}

// notInMemory explains why a path has no record: gated, or not in the
// source commit at all.
func notInMemory(g *GlobalOptions, repo *gitstore.Repo, mem *memref.Memory, arg string) error {
	skipped, err := memref.Skipped(repo, mem.Tree)
	if err != nil {
		return err
	}
	for _, p := range sourcePath(g, repo, arg) {
		if reason, ok := skipped[memref.SkipKey(p)]; ok {
			return fmt.Errorf("%s is not in memory: skipped by the gate (%s)", p, reason)
		}
	}
	return fmt.Errorf("%s is not in memory: no such file in source commit %s", arg, shortHash(mem.Manifest.SourceCommit))
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pre)
}
