package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
)

func manifestCommand(g *GlobalOptions) *cli.Command {
	return &cli.Command{
		Name:   "manifest",
		Usage:  "print the manifest of the current memory",
		Flags:  []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error { return runManifest(c.Context, g) },
	}
}

func runManifest(_ context.Context, g *GlobalOptions) error {
	_, mem, err := openMemory(g)
	if err != nil {
		return err
	}
	m := mem.Manifest
	if g.JSON {
		return g.printJSON(m)
	}
	w := g.Stdout
	fmt.Fprintf(w, "memory commit:  %s\n", mem.Commit)
	fmt.Fprintf(w, "source commit:  %s\n", m.SourceCommit)
	fmt.Fprintf(w, "source tree:    %s\n", m.SourceTree)
	fmt.Fprintf(w, "mode:           %s", m.Mode)
	if m.Requested != "" {
		fmt.Fprintf(w, " (asked for %s)", m.Requested)
	}
	if m.Reason != "" {
		fmt.Fprintf(w, " — %s", m.Reason)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "tool:           git-konteks %s (schema %d, records v%d, gate v%d)\n", m.ToolVersion, m.Schema, m.RecordVersion, m.GateVersion)
	fmt.Fprintf(w, "started:        %s\n", m.Started.Local().Format("2006-01-02 15:04:05.000"))
	fmt.Fprintf(w, "finished:       %s (%s)\n", m.Finished.Local().Format("2006-01-02 15:04:05.000"), m.Finished.Sub(m.Started).Round(1e6))
	t := m.Totals
	fmt.Fprintf(w, "scanned:        %d\n", t.Scanned)
	fmt.Fprintf(w, "included:       %d files, %.1f MB\n", t.Included, float64(t.Bytes)/1e6)
	fmt.Fprintf(w, "skipped:        %d%s\n", sumMap(t.Skipped), formatCounts(t.Skipped))
	fmt.Fprintf(w, "sections:       %d%s\n", t.Sections, formatCounts(t.SectionsByKind))
	fmt.Fprintf(w, "by parser:      %s\n", trimParens(formatCounts(t.SectionsByParser)))
	fmt.Fprintf(w, "files parsed:   %s\n", trimParens(formatCounts(t.Parsers)))
	if len(t.Fallbacks) > 0 {
		fmt.Fprintf(w, "fallbacks:      %s\n", trimParens(formatCounts(t.Fallbacks)))
	}
	if h := m.History; h != nil {
		fmt.Fprintf(w, "history:        %d commits (%d new this run), %d segments\n", h.Commits, h.New, h.Segments)
	}
	r := m.Run
	fmt.Fprintf(w, "this run:       %d considered, %d extracted, %d reused, %d removed, %.1f MB read\n", r.Considered, r.Extracted, r.Reused, r.Removed, float64(r.BytesRead)/1e6)
	if len(m.Timings) > 0 {
		keys := make([]string, 0, len(m.Timings))
		for k := range m.Timings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, "timings:       ")
		for _, k := range keys {
			fmt.Fprintf(w, " %s %.1fms", k, m.Timings[k])
		}
		fmt.Fprintln(w)
	}
	return nil
}

func trimParens(s string) string {
	if len(s) >= 3 {
		return s[2 : len(s)-1]
	}
	return s
}

func mustHash(s string) gitstore.Hash { return gitstore.ParseHash(s) }
