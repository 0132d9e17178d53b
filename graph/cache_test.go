package graph_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/internal/memtest"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// fixture: a Go module and a Python package whose files use each other by
// name, some through imports, some only by naming a definition.
var fixture = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"store/store.go": `package store

// Store keeps inventory records.
type Store struct{ items map[string]int }

// NewInventoryStore makes an empty store.
func NewInventoryStore() *Store { return &Store{items: map[string]int{}} }

// LookupQuantity returns how many of an item are in stock.
func (s *Store) LookupQuantity(item string) int { return s.items[item] }

// Close releases the store.
func (s *Store) Close() error { return nil }
`,
	// Same package, no import: only a reference links it to store.go.
	"store/audit.go": `package store

// AuditInventory counts every item of a store.
func AuditInventory(s *Store) int {
	n := 0
	for k := range s.items {
		n += s.LookupQuantity(k)
	}
	return n
}
`,
	"api/handler.go": `package api

import "example.com/m/store"

// ServeQuantity answers a quantity request.
func ServeQuantity(item string) int {
	s := store.NewInventoryStore()
	return s.LookupQuantity(item)
}
`,
	"cli/main.go": `package main

import "example.com/m/store"

func main() {
	s := store.NewInventoryStore()
	_ = store.AuditInventory(s)
}
`,
	// Names only common words another file defines: no edge.
	"misc/closer.go": `package misc

type thing struct{}

func (thing) Close() error { return nil }

func shutdown(t thing) { t.Close() }
`,
	"py/models.py": `class UserAccount:
    def __init__(self, name):
        self.name = name


def load_user_accounts(path):
    return [UserAccount(line) for line in open(path)]
`,
	// No static import: the reference alone links it.
	"py/report.py": `import importlib

models = importlib.import_module("models")


def print_report(path):
    for account in models.load_user_accounts(path):
        print(account.name)
`,
	"py/leaf.py": `def standalone_helper():
    return 42
`,
}

func memoryOf(t *testing.T, files map[string]string) (*testgit.Repo, *gitstore.Repo, *memref.Memory) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(files)
	r.Commit("fixture")
	repo, mem := extractMemory(t, r)
	return r, repo, mem
}

func extractMemory(t *testing.T, r *testgit.Repo) (*gitstore.Repo, *memref.Memory) {
	t.Helper()
	repo := memtest.Extract(t, r.Dir)
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	return repo, mem
}

func openGraph(t *testing.T, repo *gitstore.Repo, mem *memref.Memory) *graph.Graph {
	t.Helper()
	g, err := graph.Open(context.Background(), repo, mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// edges maps "from -> to" to weight, both directions checked for symmetry.
func edges(t *testing.T, g *graph.Graph) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for i := 0; i < g.Len(); i++ {
		for _, n := range g.Neighbors(i) {
			if n.Out {
				out[g.Path(i)+" -> "+g.Path(n.File)] = n.Weight
			}
		}
	}
	for i := 0; i < g.Len(); i++ {
		for _, n := range g.Neighbors(i) {
			if !n.Out && out[g.Path(n.File)+" -> "+g.Path(i)] != n.Weight {
				t.Fatalf("in-edge %s <- %s has no matching out-edge", g.Path(i), g.Path(n.File))
			}
		}
	}
	return out
}

func TestReferenceEdges(t *testing.T) {
	_, repo, mem := memoryOf(t, fixture)
	g := openGraph(t, repo, mem)
	if g.How != "build" {
		t.Fatalf("first open: %s", g.How)
	}
	es := edges(t, g)
	for _, want := range []string{
		"store/audit.go -> store/store.go", // same package, names Store and LookupQuantity
		"api/handler.go -> store/store.go", // import + NewInventoryStore
		"cli/main.go -> store/audit.go",    // AuditInventory
		"py/report.py -> py/models.py",     // load_user_accounts, no import
	} {
		if es[want] <= 0 {
			t.Errorf("no edge %s; edges: %v", want, es)
		}
	}
	// The import of package store reaches its files; naming its symbols
	// makes the edge to the file defining them stronger.
	if es["cli/main.go -> store/store.go"] <= 0 || es["api/handler.go -> store/store.go"] <= es["api/handler.go -> store/audit.go"] {
		t.Errorf("import and references: %v", es)
	}
	// Common names (Close) make no edge, nor do a file's own definitions.
	for e := range es {
		switch e {
		case "misc/closer.go -> store/store.go", "store/store.go -> misc/closer.go":
			t.Errorf("edge by a common name: %s", e)
		}
	}
	for e := range es {
		if e == "py/leaf.py -> py/models.py" || e == "py/models.py -> py/report.py" {
			t.Errorf("unexpected edge %s", e)
		}
	}
}

func TestPageRankCentralAboveLeaf(t *testing.T) {
	_, repo, mem := memoryOf(t, fixture)
	g := openGraph(t, repo, mem)
	store, leaf := g.File("store/store.go"), g.File("cli/main.go")
	if store < 0 || leaf < 0 {
		t.Fatal("files missing from the graph")
	}
	if g.Rank(store) <= g.Rank(leaf) || g.Rank(store) <= 1 {
		t.Fatalf("rank of store.go %.3f, of the leaf main.go %.3f", g.Rank(store), g.Rank(leaf))
	}
	// Personalised on the handler, the store it uses outranks an unrelated file.
	ppr := g.Personalized(map[int]float64{g.File("api/handler.go"): 1}, 1e-6)
	if ppr[store] <= ppr[g.File("py/models.py")] {
		t.Fatalf("personalised rank: store %.4f, models %.4f", ppr[store], ppr[g.File("py/models.py")])
	}
}

// TestFindFromCacheMatchesScan: the graph command answers from the cache
// exactly what it answered by decoding the records.
func TestFindFromCacheMatchesScan(t *testing.T) {
	_, repo, mem := memoryOf(t, fixture)
	for _, name := range []string{"store", "store/store.go", "store.go", "Store.LookupQuantity", "LookupQuantity",
		"sym:store/store.go#func:NewInventoryStore", "file:api/handler.go", "py/models.py", "UserAccount", "nothing-here"} {
		want, err := graph.FindScan(repo, mem, name, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := graph.Find(repo, mem, name, 10)
		if err != nil {
			t.Fatal(err)
		}
		// The file graph's links and rank come only from the cache.
		for i := range got {
			if name == "py/models.py" {
				if len(got[i].Linked) == 0 || got[i].Linked[0] != (graph.Link{Kind: "used-by", ID: "file:py/report.py", Weight: got[i].Linked[0].Weight}) || got[i].Rank <= 0 {
					t.Errorf("models.py links %+v rank %v, want used-by py/report.py first", got[i].Linked, got[i].Rank)
				}
			}
			got[i].Linked, got[i].Rank = nil, 0
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ncache %+v\nscan  %+v", name, got, want)
		}
	}
}

func TestCacheUpdateAndDamage(t *testing.T) {
	r, repo, mem := memoryOf(t, fixture)
	openGraph(t, repo, mem)
	// A change: the leaf now names the models; a new file names the store.
	r.WriteFiles(map[string]string{
		"py/leaf.py":     "def standalone_helper():\n    return load_user_accounts('x')\n",
		"api/reports.go": "package api\n\nfunc Report() int { return AuditInventory(nil) }\n",
	})
	r.Commit("change")
	repo, mem2 := extractMemory(t, r)
	g := openGraph(t, repo, mem2)
	if g.How != "update" {
		t.Fatalf("after a small change: %s", g.How)
	}
	updated := edges(t, g)
	if updated["py/leaf.py -> py/models.py"] <= 0 || updated["api/reports.go -> store/audit.go"] <= 0 {
		t.Fatalf("update missed new references: %v", updated)
	}
	// The update equals a build from scratch.
	dir, _ := graph.CacheDir(repo)
	os.RemoveAll(dir)
	fresh := openGraph(t, repo, mem2)
	if fresh.How != "build" {
		t.Fatalf("fresh: %s", fresh.How)
	}
	if built := edges(t, fresh); !reflect.DeepEqual(built, updated) {
		t.Fatalf("update and build differ:\nupdate %v\nbuild  %v", updated, built)
	}
	// Damage the file: the next open rebuilds it.
	p := filepath.Join(dir, mem2.Commit.String())
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) - 64; i < len(b); i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	again := openGraph(t, repo, mem2)
	if again.How == "current" {
		t.Fatal("a damaged cache file was used")
	}
	if got := edges(t, again); !reflect.DeepEqual(got, updated) {
		t.Fatalf("rebuilt graph differs: %v", got)
	}
	// Damage in a section only Find reads (the blocks): Find notices,
	// rebuilds the file and answers.
	b, err = os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	for i := 0; i < n; i++ {
		e := b[16+i*24:]
		if binary.LittleEndian.Uint32(e) == 3 {
			off, ln := binary.LittleEndian.Uint64(e[4:]), binary.LittleEndian.Uint64(e[12:])
			b[off+ln/2] ^= 0xff
		}
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := graph.FindScan(repo, mem2, "AuditInventory", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := graph.Find(repo, mem2, "AuditInventory", 10); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("find with damaged blocks: %+v %v", got, err)
	}
	if fixed, err := os.ReadFile(p); err != nil || bytes.Equal(fixed, b) {
		t.Fatalf("the damaged file was not rebuilt (%v)", err)
	}
	// Truncated to nothing useful: rebuilt too, and graph NAME still answers.
	if err := os.WriteFile(p, []byte("KGRAPH2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nodes, err := graph.Find(repo, mem2, "AuditInventory", 10)
	if err != nil || len(nodes) != 1 || len(nodes[0].In) == 0 {
		t.Fatalf("find after damage: %+v %v", nodes, err)
	}
}
