package graph_test

import (
	"slices"
	"testing"

	"github.com/konteks/git-konteks/graph"
)

// reachFixture: Go code with its tests, a TypeScript front end that
// happens to name a Go function, JavaScript that calls the TypeScript, and
// C that Go calls through cgo.
var reachFixture = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"store/store.go": `package store

// Store keeps inventory records.
type Store struct{ items map[string]int }

// OpenInventory makes an empty store.
func OpenInventory() *Store { return &Store{items: map[string]int{}} }

// CountItems says how many items the store holds.
func (s *Store) CountItems() int { return len(s.items) }
`,
	"store/store_test.go": `package store

import "testing"

func newFixtureStore() *Store {
	s := OpenInventory()
	s.items["widget"] = 3
	return s
}

func TestCountItems(t *testing.T) {
	if newFixtureStore().CountItems() != 1 {
		t.Fatal("count")
	}
}
`,
	"api/api.go": `package api

import "example.com/m/store"

// ServeInventory answers an inventory request. Unlike newFixtureStore in
// the tests, it starts empty.
func ServeInventory() int {
	s := store.OpenInventory()
	return s.CountItems()
}
`,
	"web/src/inventory.ts": `// renderInventory draws what the server's OpenInventory returned.
export function renderInventory(count: number): string {
  return "OpenInventory: " + count;
}
`,
	"web/src/page.js": `export function showPage(n) {
  document.body.textContent = renderInventory(n);
}
`,
	"native/checksum.c": `int checksum_block(const char *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += p[i];
  return s;
}
`,
	"native/bind.go": `package native

// #include "checksum.h"
import "C"

// Checksum sums a block in C.
func Checksum(b []byte) int {
	return int(C.checksum_block((*C.char)(nil), C.int(len(b))))
}
`,
}

func TestReferenceEdgesKeepToWhatCanCall(t *testing.T) {
	_, repo, mem := memoryOf(t, reachFixture)
	es := edges(t, openGraph(t, repo, mem))
	for _, want := range []string{
		"api/api.go -> store/store.go",
		"store/store_test.go -> store/store.go", // tests use the code
		"web/src/page.js -> web/src/inventory.ts",
		"native/bind.go -> native/checksum.c", // cgo
	} {
		if es[want] <= 0 {
			t.Errorf("no edge %s; edges: %v", want, es)
		}
	}
	for _, bad := range []string{
		"api/api.go -> store/store_test.go",      // code does not call its tests
		"web/src/inventory.ts -> store/store.go", // TypeScript cannot call Go
	} {
		if es[bad] > 0 {
			t.Errorf("edge %s (%.2f); edges: %v", bad, es[bad], es)
		}
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"store/store_test.go": true, "tests/test_app.py": true, "src/flask/app.py": false, "test_x.py": true,
		"conftest.py": true, "web/a.test.ts": true, "web/a.spec.js": true, "spec/models/user_spec.rb": true,
		"src/test/java/AppTest.java": true, "src/main/java/App.java": false, "internal/testgit/testgit.go": false,
		"testdata/sections/a.md": true, "latest.go": false, "contest/x.go": false, "pkg/Testing.java": false,
		"Tests/FooTests.cs": true, "web/__tests__/x.js": true,
	} {
		if got := graph.IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// links lists a node's link ids of one kind.
func links(n graph.Node, kind string) []string {
	var out []string
	for _, l := range append(append([]graph.Link{}, n.Out...), n.In...) {
		if l.Kind == kind {
			out = append(out, l.ID)
		}
	}
	return out
}

func TestCallersAndCallees(t *testing.T) {
	_, repo, mem := memoryOf(t, reachFixture)
	for _, find := range []struct {
		name string
		fn   func(name string) ([]graph.Node, error)
	}{
		{"cache", func(name string) ([]graph.Node, error) { return graph.Find(repo, mem, name, 5) }},
		{"scan", func(name string) ([]graph.Node, error) { return graph.FindScan(repo, mem, name, 5) }},
	} {
		t.Run(find.name, func(t *testing.T) {
			nodes, err := find.fn("OpenInventory")
			if err != nil || len(nodes) != 1 {
				t.Fatalf("%v %+v", err, nodes)
			}
			callers := links(nodes[0], "called-by")
			for _, want := range []string{"sym:api/api.go#func:ServeInventory", "sym:store/store_test.go#func:newFixtureStore"} {
				if !slices.Contains(callers, want) {
					t.Errorf("OpenInventory callers %q lack %s", callers, want)
				}
			}
			for _, c := range callers {
				if c == "sym:web/src/inventory.ts#function:renderInventory" || c == "file:web/src/inventory.ts" {
					t.Errorf("TypeScript called Go: %q", callers)
				}
			}
			nodes, err = find.fn("ServeInventory")
			if err != nil || len(nodes) != 1 {
				t.Fatalf("%v %+v", err, nodes)
			}
			callees := links(nodes[0], "calls")
			if !slices.Contains(callees, "sym:store/store.go#func:OpenInventory") || !slices.Contains(callees, "sym:store/store.go#func:Store.CountItems") {
				t.Errorf("ServeInventory callees %q", callees)
			}
			for _, c := range callees {
				if c == "sym:store/store_test.go#func:newFixtureStore" {
					t.Errorf("code calls its test: %q", callees)
				}
			}
		})
	}
}
