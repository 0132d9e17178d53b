package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// docs/cli.md's flag table is generated from the command definitions, so
// it cannot drift from the code: this test fails when they differ, and
// with KONTEKS_UPDATE_DOCS=1 rewrites the table.
func TestDocsListEveryFlag(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "cli.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin := strings.Index(doc, flagTableBegin)
	end := strings.Index(doc, flagTableEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the markers of the flag table:\n%s\n%s", path, flagTableBegin, flagTableEnd)
	}
	want := flagTableBegin + "\n\n" + flagTable(newApp(&GlobalOptions{})) + "\n"
	got := doc[begin:end]
	if got == want {
		return
	}
	if os.Getenv("KONTEKS_UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(doc[:begin]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/cli.md's flag table differs from the command definitions; regenerate it with\n" +
		"  KONTEKS_UPDATE_DOCS=1 go test -run TestDocsListEveryFlag ./cmd/git-konteks")
}

// The README and docs/cli.md promise that every command takes -C DIR and
// every command that prints for programs takes --json, before or after
// its name. The parser gives every command both; this checks that each
// command the docs mark with --json declares it, and the reverse.
func TestJSONAndDirClaims(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`-C DIR`") || !strings.Contains(string(readme), "`--json`") {
		t.Fatal("the README no longer speaks of --json and -C DIR: update this test")
	}
	app := newApp(&GlobalOptions{})
	eachDocumented(app.Commands, func(name string, c *cli.Command) {
		if len(c.Subcommands) > 0 && len(c.Flags) == 0 {
			return // a group: its subcommands answer
		}
		if !slices.ContainsFunc(c.Flags, isJSONFlag) {
			if !noJSON[name] {
				t.Errorf("%s has no --json and is not listed as a command without it", name)
			}
			return
		}
		path := strings.Fields(name)
		for _, argv := range [][]string{
			append(append([]string{"git-konteks", "--json", "-C", "/"}, path...), "x"),
			append(append([]string{"git-konteks"}, path...), "x", "-C", "/", "--json"),
		} {
			g := &GlobalOptions{}
			rest, err := parseGlobals(app, g, argv)
			if err != nil || !g.JSON || g.Dir != "/" || slices.Contains(rest, "--json") || slices.Contains(rest, "-C") {
				t.Errorf("%q: %v, json %v, dir %q, left %q", argv, err, g.JSON, g.Dir, rest)
			}
		}
	})
}

// noJSON are the commands that print nothing for programs to read, so
// take no --json (docs/cli.md marks them —).
var noJSON = map[string]bool{"mcp": true, "help": true}
