package extract

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// providerDim is the dimension of the test provider's vectors: the
// built-in model's tiled three times, a common provider size (768) that
// makes shards hold a handful of vectors.
const providerDim = 3 * embed.LocalDim

// ollama is a real HTTP server speaking Ollama's /api/embed; it counts
// the texts it embeds.
type ollama struct{ texts atomic.Int64 }

func (o *ollama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", 400)
		return
	}
	o.texts.Add(int64(len(req.Input)))
	vs, _ := embed.NewLocal().Embed(r.Context(), req.Input)
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = append(append(append([]float32(nil), v...), v...), v...)
	}
	json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
}

func serveOllama(t *testing.T, r *testgit.Repo) *ollama {
	t.Helper()
	o := &ollama{}
	srv := httptest.NewServer(o) // on 127.0.0.1
	t.Cleanup(srv.Close)
	r.Git("config", "konteks.embed.provider", "ollama")
	r.Git("config", "konteks.embed.url", srv.URL)
	return o
}

// goRepo is a repository of the mixed fixture and the Go toolchain's
// strings package (real code, with functions large enough to be chunked).
func goRepo(t *testing.T) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	r := testgit.New(t)
	r.CopyTree(filepath.Join("..", "testdata", "repos", "mixed"))
	src := filepath.Join(runtime.GOROOT(), "src", "strings")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".go") {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
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
	return r, repo
}

// TestBuiltinModelStoresNoVectors: with the built-in embedder, memory
// holds no vectors/ tree at all; memory that still holds the built-in
// model's vectors (written by older versions) keeps working, and
// memref.DropUnstoredVectors removes them.
func TestBuiltinModelStoresNoVectors(t *testing.T) {
	r, repo := goRepo(t)
	res, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Git("ls-tree", memory.Ref, embed.VectorsDir); out != "" {
		t.Fatalf("memory holds vectors: %s", out)
	}
	if m := res.Manifest; m.EmbedModel != "" || m.Run.Embedded != 0 {
		t.Fatalf("manifest says model %q, %d embedded", m.EmbedModel, m.Run.Embedded)
	}

	// Old memory: the built-in model's vectors in the ref.
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	w := repo.NewWriter()
	shard, err := embed.EncodeShard(embed.LocalDim, []embed.Entry{{Quantized: embed.Quantize(make([]float32, embed.LocalDim))}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := w.Blob(shard)
	if err != nil {
		t.Fatal(err)
	}
	ed := repo.NewTreeEditor(mem.Tree)
	if err := ed.Set(embed.ModelPath(embed.LocalModel)+"/000", gitstore.ModeRegular, h); err != nil {
		t.Fatal(err)
	}
	commitMemory(t, repo, w, ed, mem.Commit, "konteks: old memory")
	r.Write("strs/more.go", "package strings\n\n// More says more.\nfunc More() int { return 1 }\n")
	r.Commit("more")
	if _, err := Run(context.Background(), repo, Options{}); err != nil {
		t.Fatalf("changed run over memory with built-in vectors: %v", err)
	}
	mem, err = memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), repo, mem, index.Options{Model: embed.LocalModel})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Vectors() < ix.Len() {
		t.Fatalf("index over old memory: %d vectors for %d sections", ix.Vectors(), ix.Len())
	}
	ix.Close()

	ed = repo.NewTreeEditor(mem.Tree)
	dropped, err := memref.DropUnstoredVectors(repo, ed, mem.Tree)
	if err != nil || !dropped {
		t.Fatalf("drop: %v %v", dropped, err)
	}
	w = repo.NewWriter()
	tree, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := repo.Lookup(tree, embed.VectorsDir); ok {
		t.Fatal("built-in vectors not dropped")
	}
	if _, _, ok, _ := repo.Lookup(tree, memory.FilePath("strs/more.go")); !ok {
		t.Fatal("drop lost a record")
	}
}

// commitMemory writes the edited tree as a memory commit on parent and
// moves the memory ref to it.
func commitMemory(t *testing.T, repo *gitstore.Repo, w *gitstore.Writer, ed *gitstore.TreeEditor, parent gitstore.Hash, msg string) {
	t.Helper()
	tree, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	c, err := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{parent}, Message: msg + "\n", Author: repo.Identity()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := repo.UpdateRef(memory.Ref, c, parent, "test"); err != nil {
		t.Fatal(err)
	}
}

// vectorShards lists the shards of a model's directory: path under it ->
// blob.
func vectorShards(t *testing.T, r *testgit.Repo, model string) map[string]string {
	t.Helper()
	out := map[string]string{}
	prefix := embed.ModelPath(model) + "/"
	for _, l := range strings.Split(r.Git("ls-tree", "-r", memory.Ref, prefix), "\n") {
		if l == "" {
			continue
		}
		meta, p, _ := strings.Cut(l, "\t")
		out[strings.TrimPrefix(p, prefix)] = strings.Fields(meta)[2]
	}
	return out
}

// newObjectBytes sums the sizes of the objects under dir in the memory
// tree of commit to that the memory tree of from lacks.
func newObjectBytes(t *testing.T, r *testgit.Repo, from, to, dir string) (objects, bytes int) {
	t.Helper()
	list := func(c string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(r.Git("ls-tree", "-r", "-t", c, dir), "\n") {
			if f := strings.Fields(l); len(f) >= 3 {
				m[f[2]] = true
			}
		}
		m[r.Git("rev-parse", c+":"+dir)] = true
		return m
	}
	old := list(from)
	for h := range list(to) {
		if !old[h] {
			n, _ := strconv.Atoi(r.Git("cat-file", "-s", h))
			objects++
			bytes += n
		}
	}
	return objects, bytes
}

// providerMemory is goRepo with the test provider configured and memory
// extracted.
func providerMemory(t *testing.T) (*testgit.Repo, *gitstore.Repo, *ollama, *Result) {
	t.Helper()
	r, repo := goRepo(t)
	o := serveOllama(t, r)
	res, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, repo, o, res
}

// TestProviderVectorsTrie: a provider's vectors are stored in the trie of
// small shards; a one-file change embeds only its new texts, writes a few
// kilobytes of vectors, and leaves exactly the layout a full run makes.
func TestProviderVectorsTrie(t *testing.T) {
	r, repo, o, res := providerMemory(t)
	model := res.Manifest.EmbedModel
	if model != "ollama:nomic-embed-text" || res.Manifest.Run.Embedded == 0 || int(o.texts.Load()) != res.Manifest.Run.Embedded {
		t.Fatalf("model %q, %d embedded, %d texts sent", model, res.Manifest.Run.Embedded, o.texts.Load())
	}
	shards := vectorShards(t, r, model)
	total := 0
	deep := false
	for p, h := range shards {
		digits := strings.ReplaceAll(p, "/", "")
		for _, part := range strings.Split(p, "/") {
			if !embed.IsNodeName(part) {
				t.Fatalf("shard path %q is not in the trie layout", p)
			}
		}
		deep = deep || len(digits) > 1
		b, err := repo.BlobBytes(gitstore.ParseHash(h), memory.MaxCompressedSize)
		if err != nil {
			t.Fatal(err)
		}
		dim, es, err := embed.DecodeShard(b)
		if err != nil || dim != providerDim {
			t.Fatalf("shard %s: dim %d, %v", p, dim, err)
		}
		if len(es) == 0 || len(es) > embed.ShardMax(dim) {
			t.Fatalf("shard %s holds %d vectors (max %d)", p, len(es), embed.ShardMax(dim))
		}
		for _, e := range es {
			if !strings.HasPrefix(e.Key.String(), digits) {
				t.Fatalf("vector %s in shard %s", e.Key, p)
			}
		}
		total += len(es)
	}
	if total != res.Manifest.Run.Embedded || !deep {
		t.Fatalf("%d vectors stored for %d embedded (nested: %v)", total, res.Manifest.Run.Embedded, deep)
	}

	// A one-file change: one function edited, one added.
	before := r.Git("rev-parse", memory.Ref)
	b, err := os.ReadFile(filepath.Join(r.Dir, "strs", "reader.go"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "func (r *Reader) Len() int {", "func (r *Reader) Len() int {\n\t// Len counts what is left.", 1) +
		"\n// Rest returns what the reader has not read yet.\nfunc (r *Reader) Rest() string { return r.s[r.i:] }\n"
	r.Write("strs/reader.go", edited)
	r.Commit("edit reader")
	o.texts.Store(0)
	res, err = Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := res.Manifest.Run.Embedded
	if fresh == 0 || fresh > 4 || int(o.texts.Load()) != fresh {
		t.Fatalf("one-file change embedded %d texts (%d sent)", fresh, o.texts.Load())
	}
	objs, bytes := newObjectBytes(t, r, before, memory.Ref, embed.ModelPath(model))
	// Each new vector rewrites one shard (at most ShardBytes before
	// compression) and the 16-entry trees above it.
	if limit := fresh * (embed.ShardBytes + 4*16*40); bytes > limit {
		t.Fatalf("one-file change wrote %d bytes of vectors in %d objects for %d new vectors (limit %d)", bytes, objs, fresh, limit)
	}
	t.Logf("one-file change: %d new vectors, %d objects, %d bytes under %s", fresh, objs, bytes, embed.ModelPath(model))

	// The changed run's layout is the one a full run lays out from the
	// same vectors (nothing was deleted, so the sets agree but for the
	// edited text's old vector, which a full run drops).
	changed := vectorShards(t, r, model)
	o.texts.Store(0)
	if _, err := Run(context.Background(), repo, Options{Mode: ModeFull}); err != nil {
		t.Fatal(err)
	}
	if o.texts.Load() != 0 {
		t.Fatalf("a full run re-embedded %d texts", o.texts.Load())
	}
	full := vectorShards(t, r, model)
	diff := 0
	for p, h := range full {
		if changed[p] != h {
			diff++
		}
	}
	for p := range changed {
		if _, ok := full[p]; !ok {
			diff++
		}
	}
	if diff > 2 {
		t.Fatalf("full and changed layouts differ in %d shards", diff)
	}
}

// TestProviderVectorsFlatLayoutRead: memory written in the older flat
// layout (vectors/<model>/<xxx>) is read by the index, and the next run
// moves it to the trie without embedding anything again.
func TestProviderVectorsFlatLayoutRead(t *testing.T) {
	r, repo, o, res := providerMemory(t)
	model := res.Manifest.EmbedModel
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	vr, err := memref.NewVectorReader(repo, mem.Tree, model)
	if err != nil {
		t.Fatal(err)
	}
	vecs, dim, err := vr.Vectors(nil)
	if err != nil || len(vecs) != res.Manifest.Run.Embedded {
		t.Fatalf("%d vectors read for %d embedded: %v", len(vecs), res.Manifest.Run.Embedded, err)
	}
	// Rewrite the model's directory in the flat layout.
	flat := map[string][]embed.Entry{}
	for k, q := range vecs {
		n := k.String()[:3]
		flat[n] = append(flat[n], embed.Entry{Key: k, Quantized: q})
	}
	w := repo.NewWriter()
	ed := repo.NewTreeEditor(mem.Tree)
	if err := ed.Delete(embed.ModelPath(model)); err != nil {
		t.Fatal(err)
	}
	for n, es := range flat {
		b, err := embed.EncodeShard(dim, es)
		if err != nil {
			t.Fatal(err)
		}
		h, err := w.Blob(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := ed.Set(embed.ModelPath(model)+"/"+n, gitstore.ModeRegular, h); err != nil {
			t.Fatal(err)
		}
	}
	commitMemory(t, repo, w, ed, mem.Commit, "konteks: flat vectors")
	mem, err = memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), repo, mem, index.Options{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Vectors() == 0 || ix.Model() != model {
		t.Fatalf("flat layout: %d vectors of %q", ix.Vectors(), ix.Model())
	}
	ix.Close()

	r.Write("strs/more.go", "package strings\n\n// More says more.\nfunc More() int { return 1 }\n")
	r.Commit("more")
	o.texts.Store(0)
	res, err = Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if int(o.texts.Load()) != res.Manifest.Run.Embedded || res.Manifest.Run.Embedded > 2 {
		t.Fatalf("after the flat layout: %d embedded, %d sent", res.Manifest.Run.Embedded, o.texts.Load())
	}
	for p := range vectorShards(t, r, model) {
		if !embed.IsNodeName(strings.Split(p, "/")[0]) {
			t.Fatalf("flat shard %q left after a run", p)
		}
	}
}

// TestProviderVectorsFilledLaterReachTheIndex: when a provider was down
// for the first run, the run after it embeds every record, and the index
// (which an update fills only for changed records) gets all of them.
func TestProviderVectorsFilledLaterReachTheIndex(t *testing.T) {
	r, repo := goRepo(t)
	o := serveOllama(t, r)
	url := r.Git("config", "konteks.embed.url")
	r.Git("config", "konteks.embed.url", "http://127.0.0.1:9") // nothing listens
	res, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	model := res.Manifest.EmbedModel
	open := func() (vectors, sections int) {
		mem, err := memref.Read(repo, memory.Ref)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := index.Open(context.Background(), repo, mem, index.Options{Model: model})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		return ix.Vectors(), ix.Len()
	}
	if v, _ := open(); v != 0 {
		t.Fatalf("%d vectors with the provider down", v)
	}
	r.Git("config", "konteks.embed.url", url)
	r.Write("strs/more.go", "package strings\n\n// More says more.\nfunc More() int { return 1 }\n")
	r.Commit("more")
	if _, err := Run(context.Background(), repo, Options{}); err != nil {
		t.Fatal(err)
	}
	if o.texts.Load() == 0 {
		t.Fatal("nothing embedded once the provider was up")
	}
	if v, n := open(); v < n {
		t.Fatalf("index after the provider came back: %d vectors for %d sections", v, n)
	}
}
