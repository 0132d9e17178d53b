package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRecallEvidence: the command line shows the evidence label in text
// and in --json, and a task nothing matches gets no hit, only "no good
// match in memory".
func TestRecallEvidence(t *testing.T) {
	r := mcpRepo(t)
	run(t, r.Dir, "extract")
	out := run(t, r.Dir, "recall", "get the value stored for a key")
	if !strings.HasPrefix(out, "internal/store/store.go:") || !strings.Contains(out, "evidence: strong evidence") {
		t.Fatalf("recall text:\n%s", out)
	}
	var hits []struct {
		Path     string `json:"path"`
		Strength string `json:"strength"`
	}
	js, errOut, err := tryRun(r.Dir, nil, "recall", "--json", "get the value stored for a key")
	if err != nil || json.Unmarshal([]byte(js), &hits) != nil || len(hits) == 0 || hits[0].Strength != "strong" || !strings.Contains(errOut, "evidence: strong") {
		t.Fatalf("recall --json: %v\n%s\n%s", err, js, errOut)
	}
	out = run(t, r.Dir, "recall", "rotate quokka signing ceremonies")
	if !strings.Contains(out, "no good match in memory (weak evidence") || strings.Contains(out, ".go:") {
		t.Fatalf("recall of something memory lacks:\n%s", out)
	}
	js, _, err = tryRun(r.Dir, nil, "recall", "--json", "rotate quokka signing ceremonies")
	if err != nil || strings.TrimSpace(js) != "[]" {
		t.Fatalf("recall --json of something memory lacks: %v %s", err, js)
	}
	out = run(t, r.Dir, "context", "rotate quokka signing ceremonies")
	if !strings.Contains(out, "no good match in memory") {
		t.Fatalf("context of something memory lacks:\n%s", out)
	}
}
