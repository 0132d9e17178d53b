package extract

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// TestWorkerEmbeddingMatchesStage: vectors computed on the sectioning
// workers give exactly the memory the serial embed stage gives, in a full
// run and in the changed run after it.
func TestWorkerEmbeddingMatchesStage(t *testing.T) {
	trees := map[int][]string{}
	for _, min := range []int{1, 1 << 30} {
		r := testgit.New(t)
		r.CopyTree(filepath.Join("..", "testdata", "repos", "mixed"))
		// Some real Go code, with large functions that get chunks.
		goroot := filepath.Join(runtime.GOROOT(), "src", "strings")
		ents, err := os.ReadDir(goroot)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".go") {
				b, err := os.ReadFile(filepath.Join(goroot, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				r.Write("strs/"+e.Name(), string(b))
			}
		}
		r.Commit("files")
		repo, err := gitstore.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		old := workerEmbedMin
		workerEmbedMin = min
		res, err := Run(context.Background(), repo, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Manifest.Run.Embedded == 0 {
			t.Fatal("nothing embedded")
		}
		trees[min] = append(trees[min], memoryListing(t, r))
		r.Write("strs/reader.go", "package strings\n\n// More says more.\nfunc More() int { return 1 }\n")
		r.Write("strs/new.go", "package strings\n\nfunc New() {}\n")
		r.Remove("strs/replace.go")
		r.Commit("edit")
		if _, err := Run(context.Background(), repo, Options{}); err != nil {
			t.Fatal(err)
		}
		workerEmbedMin = old
		trees[min] = append(trees[min], memoryListing(t, r))
	}
	for i := range trees[1] {
		if trees[1][i] != trees[1<<30][i] {
			t.Fatalf("run %d: memory differs between worker and stage embedding", i)
		}
	}
}

// memoryListing lists the memory tree without the manifest (timings).
func memoryListing(t *testing.T, r *testgit.Repo) string {
	var keep []string
	for _, l := range strings.Split(r.Git("ls-tree", "-r", memory.Ref), "\n") {
		if !strings.HasSuffix(l, "\tmanifest.json") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
