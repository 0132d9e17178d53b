package main

import (
	"maps"
	"testing"

	"github.com/konteks/git-konteks/recall"
)

// TestVariantLeavesTheDefaultAlone: a variant with its own learned
// weights ranks with them, and the default ranking (every other mode)
// keeps its own.
func TestVariantLeavesTheDefaultAlone(t *testing.T) {
	if recall.DefaultRanking.Learned == nil {
		t.Skip("no learned ranker")
	}
	before := maps.Clone(recall.DefaultRanking.Learned.Weights)
	depth := recall.DefaultRanking.Learned.Depth
	vs, err := parseVariants([]byte(`{"w": {"Learned": {"Depth": 7, "Weights": {"history": 123}}}, "v": {"Vector": 0.25}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].name != "v" || vs[1].name != "w" {
		t.Fatalf("variants %+v", vs)
	}
	if got := vs[1].rk.Learned; got.Depth != 7 || got.Weights["history"] != 123 {
		t.Fatalf("variant's learned ranker: %+v", got)
	}
	if vs[0].rk.Vector != 0.25 || vs[0].rk.Learned.Weights["history"] != before["history"] {
		t.Fatalf("variant v: %+v", vs[0].rk)
	}
	if !maps.Equal(recall.DefaultRanking.Learned.Weights, before) || recall.DefaultRanking.Learned.Depth != depth {
		t.Fatalf("the default's learned ranker changed: depth %d, weights %v", recall.DefaultRanking.Learned.Depth, recall.DefaultRanking.Learned.Weights)
	}
}
