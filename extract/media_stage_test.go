package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// pngOf returns a small PNG whose pixels depend on seed (so blobs differ).
func pngOf(t *testing.T, seed uint8) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(0, 0, color.RGBA{seed, 1, 2, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mediaRepo(t *testing.T) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	r := testgit.New(t)
	return r, openRepo(t, r)
}

// openRepo opens r for the package's code, with the test's git identity
// and config isolation in the environment (Run starts git processes).
func openRepo(t *testing.T, r *testgit.Repo) *gitstore.Repo {
	t.Helper()
	testgit.Setenv(t)
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func runExtract(t *testing.T, repo *gitstore.Repo, mode string) *Result {
	t.Helper()
	res, err := Run(context.Background(), repo, Options{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func record(t *testing.T, r *testgit.Repo, p string) *memory.File {
	t.Helper()
	// Not r.Git: it trims its output, and a zstd frame may end in a byte
	// that looks like whitespace.
	raw, err := exec.Command("git", "-C", r.Dir, "cat-file", "blob", "refs/konteks:files/"+p).Output()
	if err != nil {
		t.Fatal(err)
	}
	f, err := memory.DecodeFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func sectionOf(f *memory.File, anchor string) *memory.Section {
	for i := range f.Sections {
		if f.Sections[i].Anchor == anchor {
			return &f.Sections[i]
		}
	}
	return nil
}

// assertSameAsRebuild checks that the memory an incremental run left is
// the memory a rebuild makes: records and the media map.
func assertSameAsRebuild(t *testing.T, r *testgit.Repo, repo *gitstore.Repo) {
	t.Helper()
	files := r.Git("rev-parse", "refs/konteks:files")
	media, _ := r.TryGit("rev-parse", "refs/konteks:"+MediaPath)
	runExtract(t, repo, ModeRebuild)
	if got := r.Git("rev-parse", "refs/konteks:files"); got != files {
		t.Errorf("incremental files/ %s differs from rebuilt %s:\n%s", files, got, r.Git("diff", "--stat", files, got))
	}
	if got, _ := r.TryGit("rev-parse", "refs/konteks:"+MediaPath); got != media {
		t.Errorf("incremental media map %s differs from rebuilt %s", media, got)
	}
}

func TestMediaReferences(t *testing.T) {
	r, repo := mediaRepo(t)
	r.WriteFiles(map[string]string{
		"README.md":      "# Tool\n\nHow it works:\n\n![Architecture diagram of the pipeline](img/arch.png \"arch\")\n\nLogo: ![](/img/logo.png)\n",
		"docs/guide.md":  "# Guide\n\n<img src=\"../img/arch.png\" alt=\"Request flow\" width=\"300\">\n\n![remote](https://example.com/x.png)\n![escape](../../outside.png)\n",
		"docs/page.html": "<html><body><h1>Page</h1><p><img src='../img/arch.png' alt='Sequence of stages'></p></body></html>",
		"img/arch.png":   pngOf(t, 1),
		"img/logo.png":   pngOf(t, 2),
		"main.go":        "package main\n\nfunc main() {}\n",
	})
	r.Commit("start")
	runExtract(t, repo, "")

	f := record(t, r, "img/arch.png")
	s := sectionOf(f, refsAnchor)
	if s == nil {
		t.Fatalf("no references section in %+v", f.Sections)
	}
	for _, want := range []string{"README.md: Architecture diagram of the pipeline", "docs/guide.md: Request flow", "docs/page.html: Sequence of stages"} {
		if !strings.Contains(s.Content, want) {
			t.Errorf("references section lacks %q:\n%s", want, s.Content)
		}
	}
	if strings.Contains(s.Content, "example.com") || strings.Contains(s.Content, "escape") {
		t.Errorf("URL or escaping reference kept:\n%s", s.Content)
	}
	if s.LexHash == "" || s.EmbHash == "" {
		t.Errorf("references section has no retrieval hashes: %+v", s)
	}
	if !strings.HasPrefix(f.Abstract, "Architecture diagram of the pipeline") {
		t.Errorf("abstract %q does not lead with the alt text", f.Abstract)
	}
	if s := sectionOf(record(t, r, "img/logo.png"), refsAnchor); s == nil || s.Content != "Shown in:\n- README.md" {
		t.Errorf("logo references: %+v", s)
	}
	if sectionOf(record(t, r, "main.go"), refsAnchor) != nil {
		t.Error("a code file got a references section")
	}

	// An unrelated change leaves the media records alone.
	arch := r.Git("rev-parse", "refs/konteks:files/img/arch.png")
	r.Write("main.go", "package main\n\nfunc main() { println() }\n")
	r.Commit("code")
	runExtract(t, repo, "")
	if got := r.Git("rev-parse", "refs/konteks:files/img/arch.png"); got != arch {
		t.Error("an unrelated change rewrote the image's record")
	}

	// A changed alt text, a removed reference, a reference to an image
	// that does not exist yet.
	r.Write("README.md", "# Tool\n\n![Data flow overview](img/arch.png)\n\n![Soon](img/later.png)\n")
	r.Commit("alt")
	runExtract(t, repo, "")
	s = sectionOf(record(t, r, "img/arch.png"), refsAnchor)
	if s == nil || !strings.Contains(s.Content, "README.md: Data flow overview") || strings.Contains(s.Content, "pipeline") {
		t.Fatalf("references after the edit: %+v", s)
	}
	if sectionOf(record(t, r, "img/logo.png"), refsAnchor) != nil {
		t.Error("logo keeps a references section after its only reference went away")
	}
	assertSameAsRebuild(t, r, repo)

	// The image arrives: its record gets the reference made earlier.
	r.Write("img/later.png", pngOf(t, 3))
	r.Commit("later")
	runExtract(t, repo, "")
	if s := sectionOf(record(t, r, "img/later.png"), refsAnchor); s == nil || !strings.Contains(s.Content, "README.md: Soon") {
		t.Fatalf("new image references: %+v", s)
	}
	// A rename of the image and of a referencing file.
	r.Git("mv", "img/arch.png", "img/flow.png")
	r.Git("mv", "docs/guide.md", "docs/manual.md")
	r.Commit("renames")
	runExtract(t, repo, "")
	if s := sectionOf(record(t, r, "img/flow.png"), refsAnchor); s != nil {
		t.Errorf("renamed image kept references that point at its old path: %s", s.Content)
	}
	assertSameAsRebuild(t, r, repo)
}

func TestMediaVLMDescriptions(t *testing.T) {
	var calls, fail atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		calls.Add(1)
		if fail.Load() == 1 {
			http.Error(w, "broken", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(req.Body)
		var cr struct {
			Model    string `json:"model"`
			Messages []struct {
				Content []map[string]any `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &cr)
		if cr.Model != "eye" || len(cr.Messages) != 1 || len(cr.Messages[0].Content) != 2 {
			http.Error(w, "bad request", 400)
			return
		}
		img, _ := cr.Messages[0].Content[1]["image_url"].(map[string]any)
		if u, _ := img["url"].(string); !strings.HasPrefix(u, "data:image/png;base64,") {
			http.Error(w, "no image", 400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": "A block diagram of the ingest pipeline. Labels read parse and store."}}},
			"usage":   map[string]int{"total_tokens": 50},
		})
	}))
	defer srv.Close()

	r, repo := mediaRepo(t)
	r.WriteFiles(map[string]string{"img/a.png": pngOf(t, 1), "img/b.svg": "<svg xmlns='http://www.w3.org/2000/svg'><text>hi</text></svg>", "x.txt": "x\n"})
	r.Commit("start")
	r.Git("config", "konteks.vlm.url", srv.URL+"/v1")
	r.Git("config", "konteks.vlm.model", "eye")

	fail.Store(1)
	res := runExtract(t, repo, "")
	if res.Manifest.Run.VLMFailures != 1 || res.Manifest.Run.VLMDescribed != 0 {
		t.Fatalf("failing endpoint: run %+v", res.Manifest.Run)
	}
	if sectionOf(record(t, r, "img/a.png"), descAnchor) != nil {
		t.Fatal("description without an answer")
	}

	// The next run (any change) tries again, once.
	fail.Store(0)
	calls.Store(0)
	r.Write("x.txt", "y\n")
	r.Commit("y")
	res = runExtract(t, repo, "")
	if res.Manifest.Run.VLMDescribed != 1 || calls.Load() != 1 {
		t.Fatalf("retry: run %+v calls %d", res.Manifest.Run, calls.Load())
	}
	f := record(t, r, "img/a.png")
	d := sectionOf(f, descAnchor)
	if d == nil || d.Parser != "vlm:eye" || !strings.Contains(d.Content, "ingest pipeline") {
		t.Fatalf("description: %+v", d)
	}
	if !strings.HasPrefix(f.Abstract, "A block diagram of the ingest pipeline.") {
		t.Errorf("abstract %q", f.Abstract)
	}
	if sectionOf(record(t, r, "img/b.svg"), descAnchor) != nil {
		t.Error("SVG sent to the vision model")
	}

	// Later runs, a rename and a rebuild reuse the description.
	r.Git("mv", "img/a.png", "img/c.png")
	r.Commit("rename")
	runExtract(t, repo, "")
	runExtract(t, repo, ModeRebuild)
	if calls.Load() != 1 {
		t.Fatalf("description asked for again: %d calls", calls.Load())
	}
	if d := sectionOf(record(t, r, "img/c.png"), descAnchor); d == nil || d.Parser != "vlm:eye" {
		t.Fatalf("description lost after rename and rebuild: %+v", d)
	}
}

// TestMediaUntouchedByOtherChanges: a changed run that changes no media
// file and no file that can show one does not rewrite the media map (here
// stored in another encoding of the same map, which an update would
// replace with its own); a change that can reference media updates it.
func TestMediaUntouchedByOtherChanges(t *testing.T) {
	r, repo := mediaRepo(t)
	r.WriteFiles(map[string]string{
		"README.md":    "# Tool\n\n![Architecture](img/arch.png)\n",
		"img/arch.png": pngOf(t, 1),
		"main.go":      "package main\n\nfunc main() {}\n",
	})
	r.Commit("start")
	runExtract(t, repo, "")

	// The same map, indented.
	mem, err := repo.Resolve(memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeMediaMap(repo, gitstore.ParseHash(r.Git("rev-parse", memory.Ref+":"+MediaPath)), nil)
	if err != nil || m == nil {
		t.Fatalf("media map: %v %v", m, err)
	}
	raw, _ := json.MarshalIndent(m, "", "  ")
	w := repo.NewWriter()
	blob, _ := w.Blob(memory.Compress(raw))
	ed := repo.NewTreeEditor(mem.TreeHash)
	if err := ed.Set(MediaPath, gitstore.ModeRegular, blob); err != nil {
		t.Fatal(err)
	}
	tree, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	c, err := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{mem.Hash}, Author: repo.Identity(), Message: "the media map, indented\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := repo.UpdateRef(memory.Ref, c, mem.Hash, "test"); err != nil {
		t.Fatal(err)
	}

	r.Write("main.go", "package main\n\nfunc main() { println() }\n")
	r.Commit("code")
	runExtract(t, repo, "")
	if got := r.Git("rev-parse", memory.Ref+":"+MediaPath); got != blob.String() {
		t.Errorf("a change to code rewrote the media map")
	}

	r.Write("README.md", "# Tool\n\n![Data flow](img/arch.png)\n")
	r.Commit("docs")
	runExtract(t, repo, "")
	if got := r.Git("rev-parse", memory.Ref+":"+MediaPath); got == blob.String() {
		t.Errorf("a changed reference left the media map as it was")
	}
	if s := sectionOf(record(t, r, "img/arch.png"), refsAnchor); s == nil || !strings.Contains(s.Content, "README.md: Data flow") {
		t.Errorf("references after the edit: %+v", s)
	}
	assertSameAsRebuild(t, r, repo)
}

func TestMediaMapHostile(t *testing.T) {
	_, repo := mediaRepo(t)
	w := repo.NewWriter()
	for name, raw := range map[string][]byte{
		"not zstd":    []byte("garbage"),
		"not json":    memory.Compress([]byte("{")),
		"bad path":    memory.Compress([]byte(`{"v":1,"files":{"../etc/passwd":{"record":true}}}`)),
		"bad referer": memory.Compress([]byte(`{"v":1,"files":{"a.png":{"refs":[{"from":"/abs"}]}}}`)),
		"null entry":  memory.Compress([]byte(`{"v":1,"files":{"a.png":null}}`)),
	} {
		h, err := w.Blob(raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeMediaMap(repo, h, w); !errors.Is(err, ErrCorruptMemory) || !strings.Contains(err.Error(), "--mode rebuild") {
			t.Errorf("%s: err %v, want a corrupt-memory error naming the fix", name, err)
		}
	}
	// Another version is not an error: the map is rebuilt.
	h, _ := w.Blob(memory.Compress([]byte(`{"v":99,"files":{"../x":{}}}`)))
	if m, err := decodeMediaMap(repo, h, w); m != nil || err != nil {
		t.Errorf("other version: %v %v", m, err)
	}
}

func TestResolveRef(t *testing.T) {
	for _, c := range []struct{ from, src, want string }{
		{"README.md", "img/a.png", "img/a.png"},
		{"docs/x.md", "../img/a.png", "img/a.png"},
		{"docs/x.md", "/img/a%20b.png?raw=1#top", "img/a b.png"},
		{"docs/x.md", "./a.png", "docs/a.png"},
		{"x.md", "../a.png", ""},
		{"x.md", "https://e.com/a.png", ""},
		{"x.md", "//e.com/a.png", ""},
		{"x.md", "data:image/png;base64,AAA", ""},
		{"x.md", "#anchor", ""},
	} {
		got, ok := resolveRef(c.from, c.src)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("resolveRef(%q, %q) = %q %v, want %q", c.from, c.src, got, ok, c.want)
		}
	}
}
