package recall

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/index"
)

// TestWarmKeepsVectors: the caches Warm leaves serve recall with the
// configured model's vectors. Warm used to open the index without an
// embedder; the generation it built, holding no vectors, was then
// accepted for the real model and every answer was lexical-only, with a
// note telling the user to run an extraction that could not fix it.
func TestWarmKeepsVectors(t *testing.T) {
	_, repo := repoWithMemory(t)
	rep, err := Warm(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Index != "build" || rep.Model != embed.Builtin().Model() || rep.Vectors == 0 {
		t.Fatalf("warm: %+v", rep)
	}
	s := openS(t, repo, OpenOptions{})
	if s.Index().How != "current" || s.Index().Vectors() == 0 {
		t.Fatalf("after warm: index %s with %d vectors", s.Index().How, s.Index().Vectors())
	}
	res := search(t, s, "how long to wait before the next attempt", Options{Mode: Vector})
	if res.Mode != Vector || len(res.Hits) == 0 {
		t.Fatalf("vector search after warm: mode %s, %d hits, notes %v", res.Mode, len(res.Hits), res.Notes)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "lexical") {
			t.Fatalf("note after warm: %s", n)
		}
	}
}

// TestModelLessGenerationDoesNotServeVectors: a generation built by a
// reader without vectors is not accepted by one with them (it is rebuilt
// with vectors), while a reader without vectors takes any generation.
func TestModelLessGenerationDoesNotServeVectors(t *testing.T) {
	_, repo := repoWithMemory(t)
	lex := openS(t, repo, OpenOptions{NoEmbedder: true})
	if lex.Index().Model() != "" || lex.Index().Vectors() != 0 {
		t.Fatalf("model-less open: %q, %d vectors", lex.Index().Model(), lex.Index().Vectors())
	}
	s := openS(t, repo, OpenOptions{})
	if s.Index().How == "current" || s.Index().Vectors() == 0 || s.Index().Model() != embed.Builtin().Model() {
		t.Fatalf("open with the built-in model after a model-less one: %s, %d vectors of %q", s.Index().How, s.Index().Vectors(), s.Index().Model())
	}
	if len(s.notes) != 0 {
		t.Fatalf("notes: %v", s.notes)
	}
	again := openS(t, repo, OpenOptions{NoEmbedder: true})
	if again.Index().How != "current" {
		t.Fatalf("a reader without vectors rebuilt: %s", again.Index().How)
	}
}

// TestRecallDoesNotWaitForABuild: while another process is in the middle
// of updating the index (here held at its first record), a recall answers
// at once from the newest complete generation and says which memory it
// describes; once the update is done, the next recall is current.
func TestRecallDoesNotWaitForABuild(t *testing.T) {
	r, repo := repoWithMemory(t)
	if _, err := Warm(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	before := openS(t, repo, OpenOptions{}).State().Commit
	r.Write("render/chart.go", "package render\n\n// DrawPie renders a pie chart of the shares.\nfunc DrawPie(shares []float64) string { return \"\" }\n")
	withMemory(t, r) // commits and extracts

	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		var once sync.Once
		_, err := UpdateIndex(context.Background(), repo, index.Options{Progress: func(int, int) {
			once.Do(func() { close(held); <-release })
		}})
		done <- err
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("the update ended before it was held: %v", err)
	}
	t0 := time.Now()
	s, err := Open(context.Background(), repo, OpenOptions{})
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	res, err := s.Search(context.Background(), "bar chart of the values", Options{})
	took := time.Since(t0)
	s.Close()
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if limit := 50 * time.Millisecond * slow; took > limit {
		t.Errorf("recall took %s while the index was being updated (limit %s)", took, limit)
	}
	if st := s.State(); st.Commit != before || !s.Index().Stale {
		t.Errorf("recall during the update: memory %s (stale %v), want the previous generation's %s", st.Commit, s.Index().Stale, before)
	}
	if len(res.Hits) == 0 {
		t.Errorf("no answer from the previous generation")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	after := openS(t, repo, OpenOptions{})
	if after.Index().How != "current" || after.Index().Stale || after.State().Commit == before {
		t.Fatalf("after the update: index %s, stale %v, memory %s", after.Index().How, after.Index().Stale, after.State().Commit)
	}
}
