package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
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

// decodeCommitsJSON is the reference decodeCommits follows: encoding/json's
// Decoder over the JSON lines.
func decodeCommitsJSON(raw []byte, name string, want int) ([]Commit, error) {
	if want < 0 || want > maxPerSegment {
		return nil, corrupt("%s: %d commits expected", name, want)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	out := make([]Commit, 0, want)
	for {
		var c Commit
		err := d.Decode(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, corrupt("%s: %v", name, err)
		}
		if len(out) >= maxPerSegment {
			return nil, corrupt("%s: more than %d commits", name, maxPerSegment)
		}
		if err := c.validate(); err != nil {
			return nil, corrupt("%s: commit %d: %v", name, len(out), err)
		}
		out = append(out, c)
	}
	if len(out) != want {
		return nil, corrupt("%s: %d commits, the state says %d", name, len(out), want)
	}
	return out, nil
}

// FuzzDecodeCommitsLikeJSON: the hand-written decoder accepts what
// encoding/json accepts and decodes the same commits from it.
func FuzzDecodeCommitsLikeJSON(f *testing.F) {
	h := "0123456789abcdef0123456789abcdef01234567"
	for _, s := range []string{
		`{"h":"` + h + `","p":["` + h + `"],"a":"A","t":1700000000,"s":"Fix","c":[{"p":"a.go","k":"M","add":3,"del":1}],"n":1,"w":1}`,
		`{"h":"` + h + `","t":1,"w":0.25,"f":["bot","mass"]}` + "\n" + `{"h":"` + h + `","s":"caf\u00e9 \ud83d\ude00 \ud800","b":"x\ny"}`,
		`{"H":"` + h + `","W":0.5,"C":[{"P":"a","K":"R","O":"b","ADD":-2}],"x":{"y":[1,2,{"z":null}]}}`,
		`{"h":"` + h + `","c":[{"p":"a","k":"M"}],"c":[{"p":"b"}]}`,
		`{"h":"` + h + `","c":null,"p":[],"t":null,"w":1e-3}`,
		`null`, `{"h":"` + h + `"}{"h":"` + h + `"}`, `{"h":"` + h + `","t":1.5}`, `{"h":"` + h + `","w":"1"}`,
		`{"h":"` + h + `","s":"` + "\xff\xfe" + `"}`, `{"h":"` + h + `","t":99999999999999999999}`, `[` + `{}]`, ` `, ``,
	} {
		f.Add([]byte(s), strings.Count(s, `{"h"`)+strings.Count(s, `{"H"`))
	}
	f.Fuzz(func(t *testing.T, raw []byte, want int) {
		got, err := decodeCommits(raw, "fuzz", want)
		ref, rerr := decodeCommitsJSON(raw, "fuzz", want)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("decodeCommits: %v; encoding/json: %v", err, rerr)
		}
		if err == nil && !reflect.DeepEqual(got, ref) {
			t.Fatalf("decodeCommits:\n%#v\nencoding/json:\n%#v", got, ref)
		}
	})
}
