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
	t.Parallel()
	r := mixedRepo(t)
	run(t, r.Dir, "extract")
	out := run(t, r.Dir, "recall", "get the value stored for a key")
	if !strings.HasPrefix(out, "internal/store/store.go:") || !strings.Contains(out, "evidence: strong evidence") {
		t.Fatalf("recall text:\n%s", out)
	}
	var res struct {
		Hits []struct {
			Path string `json:"path"`
		} `json:"hits"`
		Evidence struct {
			Strength string `json:"strength"`
			NoMatch  bool   `json:"no_match"`
		} `json:"evidence"`
	}
	js, errOut, err := tryRun(r.Dir, nil, "recall", "--json", "get the value stored for a key")
	if err != nil || json.Unmarshal([]byte(js), &res) != nil || len(res.Hits) == 0 || res.Evidence.Strength != "strong" || !strings.Contains(errOut, "evidence: strong") {
		t.Fatalf("recall --json: %v\n%s\n%s", err, js, errOut)
	}
	out = run(t, r.Dir, "recall", "rotate quokka signing ceremonies")
	if !strings.Contains(out, "no good match in memory (weak evidence") || strings.Contains(out, ".go:") {
		t.Fatalf("recall of something memory lacks:\n%s", out)
	}
	js, _, err = tryRun(r.Dir, nil, "recall", "--json", "rotate quokka signing ceremonies")
	res.Hits = nil
	if err != nil || json.Unmarshal([]byte(js), &res) != nil || len(res.Hits) != 0 || res.Evidence.Strength != "weak" {
		t.Fatalf("recall --json of something memory lacks: %v %s", err, js)
	}
	out = run(t, r.Dir, "context", "rotate quokka signing ceremonies")
	if !strings.Contains(out, "no good match in memory") {
		t.Fatalf("context of something memory lacks:\n%s", out)
	}
}
