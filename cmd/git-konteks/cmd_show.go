package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show the memory record of one file: its sections with anchors and line ranges",
		ArgsUsage: "PATH",
		Flags: []cli.Flag{
			jsonFlag,
			&cli.BoolFlag{Name: "content", Usage: "print each section's content too"},
		},
		Action: runShow,
	}
}

type showJSON struct {
	Path string `json:"path"`
	*memory.File
}

func runShow(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("usage: git konteks show PATH", 2)
	}
	repo, err := openRepo()
	if err != nil {
		return err
	}
	mem, err := extract.ReadMemory(repo, memory.Ref)
	if err != nil {
		return err
	}
	if !mem.Derived() {
		return errors.New("no memory yet: run `git konteks extract`")
	}
	var rec *memory.File
	var path string
	for _, p := range sourcePath(repo, c.Args().First()) {
		if memory.ValidSourcePath(p) != nil {
			continue
		}
		f, ok, err := extract.ReadRecord(repo, mem.Tree, p)
		if err != nil {
			return fmt.Errorf("%w; `git konteks extract --mode rebuild` rebuilds memory", err)
		}
		if ok {
			rec, path = f, p
			break
		}
	}
	if rec == nil {
		return notInMemory(repo, mem, c.Args().First())
	}
	if c.Bool("json") {
		return printJSON(c, showJSON{Path: path, File: rec})
	}
	w := c.App.Writer
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
		if c.Bool("content") {
			fmt.Fprintln(w, indent(s.Content, "        "))
		}
	}
	return nil
}

// notInMemory explains why a path has no record: gated, or not in the
// source commit at all.
func notInMemory(repo *gitstore.Repo, mem *extract.Memory, arg string) error {
	skipped, err := extract.ReadSkipped(repo, mem.Tree)
	if err != nil {
		return err
	}
	for _, p := range sourcePath(repo, arg) {
		if reason, ok := skipped[p]; ok {
			return fmt.Errorf("%s is not in memory: skipped by the gate (%s)", p, reason)
		}
	}
	return fmt.Errorf("%s is not in memory: no such file in source commit %s", arg, shortHash(mem.Manifest.SourceCommit))
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pre)
}
