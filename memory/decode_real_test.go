package memory_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/memtest"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// extracted is memory extracted from a copy of this project's own
// sources (Go, Markdown, shell, Python, JSON): real records with
// entities, edges, skeletons and chunks.
func extracted(t testing.TB) *gitstore.Repo {
	t.Helper()
	r := testgit.New(t)
	for _, d := range []string{"../memory", "../index", "../docs", "../scripts"} {
		dst := filepath.Join(r.Dir, filepath.Base(d))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		testgit.At(t, dst).CopyTree(d)
	}
	r.Commit("sources")
	repo := memtest.Extract(t, r.Dir)
	return repo
}

// records reads every record blob of the memory in repo (at most max).
func records(t testing.TB, repo *gitstore.Repo, max int) map[string][]byte {
	t.Helper()
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil || mem == nil {
		t.Fatalf("no memory: %v", err)
	}
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]byte)
	for _, r := range refs {
		if len(out) == max {
			break
		}
		b, err := repo.BlobBytes(r.Blob, memory.MaxCompressedSize)
		if err != nil {
			t.Fatal(err)
		}
		out[r.Path] = b
	}
	return out
}

// sameOnRecords compares the decoders with encoding/json on every record.
func sameOnRecords(t *testing.T, recs map[string][]byte) {
	t.Helper()
	var sections, entities int
	for path, b := range recs {
		want, err := memory.DecodeJSON(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := memory.DecodeFile(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: DecodeFile differs from encoding/json", path)
		}
		lean, err := memory.DecodeSections(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(lean, memory.Lean(want)) {
			t.Fatalf("%s: DecodeSections differs from encoding/json", path)
		}
		// What extraction indexes without reading its record back.
		if as, ok := memory.AsDecoded(want); !ok || !reflect.DeepEqual(as, lean) {
			t.Fatalf("%s: AsDecoded (ok %v) differs from DecodeSections", path, ok)
		}
		sections += len(want.Sections)
		entities += len(want.Entities)
	}
	t.Logf("%d records, %d sections, %d entities", len(recs), sections, entities)
}

func TestDecodeRealRecords(t *testing.T) {
	recs := records(t, extracted(t), -1)
	if len(recs) < 50 {
		t.Fatalf("only %d records", len(recs))
	}
	sameOnRecords(t, recs)
}

// TestDecodeRealMemory compares the decoders with encoding/json on every
// record of a larger memory (KONTEKS_BENCH_REPO, a repository with memory
// extracted, see scripts/bench-recall.sh).
func TestDecodeRealMemory(t *testing.T) {
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		t.Skip("KONTEKS_BENCH_REPO not set")
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameOnRecords(t, records(t, repo, -1))
}

// BenchmarkDecode decodes 500 records (of KONTEKS_BENCH_REPO's memory if
// set, else of this project's sources), zstd included, per op.
func BenchmarkDecode(b *testing.B) {
	var repo *gitstore.Repo
	if dir := os.Getenv("KONTEKS_BENCH_REPO"); dir != "" {
		var err error
		if repo, err = gitstore.Open(dir); err != nil {
			b.Fatal(err)
		}
	} else {
		repo = extracted(b)
	}
	var blobs [][]byte
	size := 0
	for _, blob := range records(b, repo, 500) {
		blobs = append(blobs, blob)
		size += len(blob)
	}
	for _, d := range []struct {
		name   string
		decode func([]byte) (*memory.File, error)
	}{
		{"encoding-json", memory.DecodeJSON},
		{"DecodeFile", memory.DecodeFile},
		{"DecodeSections", memory.DecodeSections},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, blob := range blobs {
					if _, err := d.decode(blob); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(blobs)), "records/op")
		})
	}
}
