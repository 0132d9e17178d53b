package history

import (
	"errors"
	"testing"

	"github.com/konteks/git-konteks/memory"
)

// FuzzDecodeCommits: a segment from a hostile peer gives commits that
// validate, or an error that marks memory corrupt; never a panic or a
// hang.
func FuzzDecodeCommits(f *testing.F) {
	good := []Commit{{
		Hash: "0123456789abcdef0123456789abcdef01234567", Parents: []string{"89abcdef0123456789abcdef0123456789abcdef"},
		Author: "A", Time: 1700000000, Subject: "Fix the parser", Files: 1,
		Changes: []Change{{Path: "a/b.go", Kind: "M", Add: 3, Del: 1}},
	}}
	zb, err := encodeCommits(good)
	if err != nil {
		f.Fatal(err)
	}
	raw, err := memory.Decompress(zb)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := decodeCommits(raw, "seed", 1); err != nil {
		f.Fatalf("the seed does not decode: %v", err)
	}
	f.Add(raw, 1)
	f.Add([]byte(`{"h":"x"}`), 1)
	f.Add([]byte(`{"h":"0123456789abcdef0123456789abcdef01234567","c":[{"p":"../x"}]}`), 1)
	f.Add([]byte("[[[[[[[[[[[["), 0)
	f.Fuzz(func(t *testing.T, raw []byte, want int) {
		cs, err := decodeCommits(raw, "fuzz", want)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		if len(cs) != want {
			t.Fatalf("%d commits, want %d", len(cs), want)
		}
		for i := range cs {
			if err := cs[i].validate(); err != nil {
				t.Fatalf("decoded commit %d does not validate: %v", i, err)
			}
		}
	})
}
