package index

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// nearestOf is what Nearest finds for each query (ids and scores), with
// a shortlist short enough to cut inside the vectors and with all of
// them scored.
func nearestOf(t *testing.T, ix *Index, queries []string) map[string][]string {
	t.Helper()
	vs, err := embed.NewLocal().Embed(context.Background(), queries)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	defer func(m int) { shortlistMin = m }(shortlistMin)
	for _, m := range []int{7, 4000} {
		shortlistMin = m
		for i, q := range queries {
			for _, n := range []int{1, 5, 40} {
				k := fmt.Sprint(q, " ", m, " ", n)
				for _, h := range ix.Nearest(embed.Quantize(vs[i]), n) {
					out[k] = append(out[k], fmt.Sprint(ix.Doc(h.Doc).ID, " ", h.Score))
				}
			}
		}
	}
	return out
}

// asRebuilt fails unless up, an updated generation, holds and ranks what
// a generation built anew from the same memory does: docs, vectors,
// statistics, sections, whole files and nearest vectors. The rebuild is
// made in an index directory of its own; up's stays as it was, for the
// updates after it.
func asRebuilt(t *testing.T, repo *gitstore.Repo, up *Index, queries []string) {
	t.Helper()
	dir, err := Dir(repo)
	if err != nil {
		t.Fatal(err)
	}
	aside := dir + ".aside"
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	re := open(t, repo, Options{Model: embed.LocalModel})
	if re.How != "build" {
		t.Fatalf("how %q, want build", re.How)
	}
	sameGeneration(t, up, re)
	if got, want := sectionsOf(t, up, queries), sectionsOf(t, re, queries); !reflect.DeepEqual(got, want) {
		t.Fatal("the updated generation ranks sections otherwise than a rebuild")
	}
	if got, want := filesOf(t, up, queries, 1), filesOf(t, re, queries, 1); !reflect.DeepEqual(got, want) {
		t.Fatal("the updated generation ranks files otherwise than a rebuild")
	}
	if got, want := nearestOf(t, up, queries), nearestOf(t, re, queries); !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Fatalf("nearest %s:\nupdate  %v\nrebuild %v", k, got[k], want[k])
			}
		}
		t.Fatal("the updated generation finds other nearest vectors than a rebuild")
	}
	for i := 0; i < up.Len(); i++ {
		if id := up.Doc(i).ID; up.Find(id) != i || re.Find(id) != i {
			t.Fatalf("doc %d (%s) found at %d, in the rebuild at %d", i, id, up.Find(id), re.Find(id))
		}
	}
	re.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, dir); err != nil {
		t.Fatal(err)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers here")
	}
	return st.Ino
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// layeredRepo is withPackages with four large files the updates leave
// alone, so that the base holds many more docs than a few updates add.
func layeredRepo(t *testing.T) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	return withLargeFiles(t, 120)
}

// withLargeFiles is withPackages and four files lib/largeK.go of funcs
// documented functions each, committed and extracted.
func withLargeFiles(t *testing.T, funcs int) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	r, _ := withPackages(t, 24)
	for k := 0; k < 4; k++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package lib\n\n")
		for j := 0; j < funcs; j++ {
			fmt.Fprintf(&b, "// Large%d_%d computes the wombat total of quokka %d in batch %d.\nfunc Large%d_%d(x int) int { return x * %d }\n\n", k, j, j, k, k, j, j)
		}
		r.Write(fmt.Sprintf("lib/large%d.go", k), b.String())
	}
	r.Commit("large")
	return r, extractAt(t, r)
}

// Updates link the base tables and write an overlay and the order beside
// them; a generation so layered holds and ranks what a rebuild does after
// every update (edits, a deletion, a file back, many files at once),
// until the overlay outgrows its share and an update merges it into a
// new base, which ranks as a rebuild too.
func TestLayeredUpdatesRankAsRebuild(t *testing.T) {
	r, repo := layeredRepo(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	baseDocs := filepath.Join(ix.dir, "docs.bin")
	baseIno := inode(t, baseDocs)
	ix.Close()
	queries := []string{"parse header", "thing number", "other thing", "backoff attempt", "render page template",
		"quokka wombat total", "notes words", "package", "pkg3 thing3", "wait for quokka"}
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	layered, merged := 0, 0
	for i := 0; i < 14; i++ {
		switch i {
		case 3:
			r.Remove("web/page.go")
		case 5:
			r.Write("web/page.go", "package web\n\n// RenderPage writes a page through its template again.\nfunc RenderPage(name string) string { return name }\n")
		case 9: // more than the overlay's share: merged
			for k := 0; k < 24; k++ {
				r.Write(fmt.Sprintf("pkg%d/file.go", k), fmt.Sprintf("package pkg%d\n\n// Other%d does another thing %d.\nfunc Other%d() {}\n\n// More%d is more.\nfunc More%d() {}\n\n// Most%d is most.\nfunc Most%d() {}\n", k, k, i, k, k, k, k, k))
			}
		default:
			k := rng.Intn(24)
			r.Write(fmt.Sprintf("pkg%d/file.go", k), fmt.Sprintf("package pkg%d\n\n// Thing%d waits for quokka number %d.\nfunc Thing%d() int { return %d }\n", k, k, i, k, i))
		}
		r.Write("fetch/wait.go", fmt.Sprintf("package fetch\n\n// Wait%d waits for quokka %d.\nfunc Wait%d() {}\n", i, i, i))
		r.Commit(fmt.Sprint("step ", i))
		up := updated(t, r, repo)
		if exists(filepath.Join(up.dir, orderFile)) {
			layered++
			if inode(t, filepath.Join(up.dir, "docs.bin")) != baseIno {
				t.Fatalf("step %d: a layered generation's base is not the one before's, linked", i)
			}
			if up.ovecs == nil || up.docs.over == nil {
				t.Fatalf("step %d: the overlay is not open", i)
			}
		} else {
			merged++
			baseIno = inode(t, filepath.Join(up.dir, "docs.bin"))
		}
		if i%3 == 0 || i == 9 || i == 13 {
			asRebuilt(t, repo, up, queries)
		}
		up.Close()
	}
	t.Logf("%d layered generations, %d merged", layered, merged)
	if layered < 8 || merged < 1 {
		t.Fatalf("%d layered generations and %d merged: the chain did not try both", layered, merged)
	}
}

// With every update merging (overShare 0), the tables are one base as
// before layers, and rank as a rebuild.
func TestUpdatesMergeLayersWhenAsked(t *testing.T) {
	defer func(s int) { overShare = s }(overShare)
	overShare = 0
	r, repo := layeredRepo(t)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	for i := 0; i < 3; i++ {
		r.Write("fetch/wait.go", fmt.Sprintf("package fetch\n\n// Wait%d waits for quokka %d.\nfunc Wait%d() {}\n", i, i, i))
		r.Commit(fmt.Sprint("step ", i))
		up := updated(t, r, repo)
		if exists(filepath.Join(up.dir, orderFile)) || exists(filepath.Join(up.dir, overDocsFile)) {
			t.Fatal("a merging update left an overlay")
		}
		asRebuilt(t, repo, up, []string{"wait for quokka", "thing number"})
		up.Close()
	}
}

// A damaged overlay or order (cut short, bytes changed, a place out of
// range or repeated, a file missing) is never read as docs: the
// generation fails to open, and the next query builds anew and answers.
func TestDamagedLayersRebuild(t *testing.T) {
	r, repo := layeredRepo(t)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	r.Write("fetch/wait.go", "package fetch\n\n// Wait waits for a quokka.\nfunc Wait() {}\n")
	r.Commit("wait")
	up := updated(t, r, repo)
	gdir := up.dir
	up.Close()
	if !exists(filepath.Join(gdir, orderFile)) {
		t.Fatal("the update wrote no overlay")
	}
	keep := readFiles(t, gdir, []string{orderFile, overDocsFile, overVecsFile}...)
	put := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(gdir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	order := keep[orderFile]
	place := func(k int, v uint32) []byte {
		b := append([]byte(nil), order...)
		b[16+4*k], b[17+4*k], b[18+4*k], b[19+4*k] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return b
	}
	cases := map[string]func(){
		"order cut":             func() { put(orderFile, order[:len(order)-3]) },
		"order magic":           func() { put(orderFile, append([]byte("XXXX"), order[4:]...)) },
		"order count":           func() { b := append([]byte(nil), order...); b[4]++; put(orderFile, b) },
		"base place too far":    func() { put(orderFile, place(0, 1<<30)) },
		"overlay place too far": func() { put(orderFile, place(0, overBit|1<<20)) },
		"place repeated": func() {
			put(orderFile, place(1, uint32(order[16])|uint32(order[17])<<8|uint32(order[18])<<16|uint32(order[19])<<24))
		},
		"overlay docs cut":    func() { put(overDocsFile, keep[overDocsFile][:len(keep[overDocsFile])/2]) },
		"overlay vectors cut": func() { put(overVecsFile, keep[overVecsFile][:len(keep[overVecsFile])-1]) },
		"overlay missing":     func() { os.Remove(filepath.Join(gdir, overDocsFile)) },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			for n, b := range keep {
				put(n, b)
			}
			damage()
			if _, err := openGen(gdir, true); err == nil {
				t.Fatal("a damaged generation opened")
			}
		})
	}
	// The index answers, built anew.
	for n, b := range keep {
		put(n, b)
	}
	put(orderFile, order[:9])
	buildsAndAnswers(t, repo)
}

// readFiles is the content of each named file of dir.
func readFiles(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// buildsAndAnswers fails unless the next query over a damaged generation
// builds anew and finds fetch/wait.go.
func buildsAndAnswers(t *testing.T, repo *gitstore.Repo) {
	t.Helper()
	ix := open(t, repo, Options{Model: embed.LocalModel})
	if ix.How != "build" {
		t.Fatalf("how %q over a damaged generation, want build", ix.How)
	}
	if d, _ := top(t, ix, "wait quokka"); d.Path != "fetch/wait.go" {
		t.Fatalf("top hit %+v", d)
	}
}
