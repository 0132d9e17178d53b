package history

import (
	"bytes"
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

// FuzzAppendCommit: the hand-written encoder writes what encoding/json
// writes, for any strings.
func FuzzAppendCommit(f *testing.F) {
	f.Add("0123456789abcdef0123456789abcdef01234567", "A <a@b>", "Fix \"x\"\n\nbody\t\\", "p/\xff", int64(5), 0.5)
	f.Fuzz(func(t *testing.T, h, a, s, p string, tm int64, w float64) {
		if w != w || w > 1e300 || w < -1e300 {
			return // not a weight; encoding/json refuses NaN and infinities
		}
		c := Commit{Hash: h, Parents: []string{h, a}, Author: a, Email: s, Time: tm, Subject: s, Body: a + s,
			Changes: []Change{{Path: p, Old: s, Kind: a, Add: int(tm % 7), Del: -2}}, Files: int(tm % 3), Flags: []string{p}, Weight: w}
		if got, want := appendCommit(nil, &c), jsonLine(t, &c); !bytes.Equal(got, want) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
}
