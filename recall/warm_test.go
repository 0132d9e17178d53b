package recall

import (
	"context"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
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
	if rep.Index != "build" || rep.Model != embed.LocalModel || rep.Vectors == 0 {
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
	if s.Index().How == "current" || s.Index().Vectors() == 0 || s.Index().Model() != embed.LocalModel {
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
