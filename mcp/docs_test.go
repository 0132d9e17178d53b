package mcp

import (
	"context"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolArgs is every tool's arguments as the server defines them (its
// published input schema), sorted.
func toolArgs(t *testing.T) map[string][]string {
	t.Helper()
	s, err := New(context.Background(), Options{Dir: t.TempDir(), ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tool := range res.Tools {
		out[tool.Name] = schemaProps(tool)
	}
	return out
}

func schemaProps(tool *sdk.Tool) []string {
	m, _ := tool.InputSchema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	names := []string{}
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// documentedArgs reads the arguments a document gives each tool: rows of
// a table "| `tool` | `arg`, `arg` (note) | ..." (docs/mcp.md), or lines
// "- `tool` (`arg`, `arg`): ..." (README.md).
func documentedArgs(doc string) map[string][]string {
	out := map[string][]string{}
	row := regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| ([^|]*) \\|")
	item := regexp.MustCompile("`([a-z]+)` \\(([^)]*)\\)")
	arg := regexp.MustCompile("(?:^|, )`([a-z_]+)`")
	var found [][]string
	found = append(found, row.FindAllStringSubmatch(doc, -1)...)
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "- `") {
			found = append(found, item.FindAllStringSubmatch(line, -1)...)
		}
	}
	for _, m := range found {
		if !slices.Contains(Tools, m[1]) {
			continue
		}
		names := []string{}
		for _, a := range arg.FindAllStringSubmatch(m[2], -1) {
			names = append(names, a[1])
		}
		sort.Strings(names)
		out[m[1]] = names
	}
	return out
}

// TestToolDocs: docs/mcp.md and the README list every tool with exactly
// the arguments the server defines, so the documentation cannot drift
// from the schemas agents are given.
func TestToolDocs(t *testing.T) {
	want := toolArgs(t)
	if len(want) != len(Tools) {
		t.Fatalf("tools/list has %d tools, Tools %d", len(want), len(Tools))
	}
	for _, file := range []string{"../docs/mcp.md", "../README.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got := documentedArgs(string(b))
		for _, name := range Tools {
			g, ok := got[name]
			if !ok {
				t.Errorf("%s does not list the tool %s", file, name)
				continue
			}
			if !slices.Equal(g, want[name]) {
				t.Errorf("%s lists %s(%s); the server defines %s(%s)", file, name, strings.Join(g, ", "), name, strings.Join(want[name], ", "))
			}
		}
	}
}
