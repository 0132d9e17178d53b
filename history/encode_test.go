package history

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
)

// jsonLine is what encoding/json writes for c: the bytes appendCommit
// must reproduce.
func jsonLine(t testing.TB, c *Commit) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(c); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestAppendCommitIsEncodingJSON(t *testing.T) {
	strs := []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline", "cr\r\n", "\x00\x01\x1f\x7f",
		"<html> & more", "\u2028\u2029", "naïve café 日本", "bad \xff\xfe utf8", "\b\f",
		"mixed <\xff> \"\t\\", `\u003c`,
	}
	cs := []Commit{
		{},
		{Hash: "0123456789abcdef0123456789abcdef01234567", Author: "A", Time: 1, Subject: "s", Weight: 1},
		{Hash: "h", Parents: []string{"p1", "p2"}, Author: "A", Email: "a@b", Time: -5, Subject: "s", Body: "b",
			Changes: []Change{{Path: "a", Kind: "M", Add: 1, Del: LinesUnknown}, {Path: "b", Old: "c", Kind: "R", Add: LinesBinary}},
			Files:   3, Flags: []string{FlagMerge, FlagBot}, Weight: 0.04},
		{Weight: 1e-7}, {Weight: 1e22}, {Weight: 0.123456789}, {Weight: 0.001}, {Changes: []Change{}},
	}
	rnd := rand.New(rand.NewSource(1))
	pick := func() string {
		if rnd.Intn(3) == 0 {
			b := make([]byte, rnd.Intn(12))
			for i := range b {
				b[i] = byte(rnd.Intn(256))
			}
			return string(b)
		}
		return strs[rnd.Intn(len(strs))]
	}
	for i := 0; i < 2000; i++ {
		c := Commit{Hash: pick(), Author: pick(), Email: pick(), Time: rnd.Int63() - rnd.Int63(), Subject: pick(), Body: pick(), Files: rnd.Intn(3), Weight: rnd.Float64()}
		for j := rnd.Intn(3); j > 0; j-- {
			c.Parents = append(c.Parents, pick())
		}
		for j := rnd.Intn(3); j > 0; j-- {
			c.Changes = append(c.Changes, Change{Path: pick(), Old: pick(), Kind: pick(), Add: rnd.Intn(100) - 2, Del: rnd.Intn(100) - 2})
		}
		for j := rnd.Intn(2); j > 0; j-- {
			c.Flags = append(c.Flags, pick())
		}
		cs = append(cs, c)
	}
	for i := range cs {
		want := jsonLine(t, &cs[i])
		if got := appendCommit(nil, &cs[i]); !bytes.Equal(got, want) {
			t.Fatalf("commit %d:\n got %q\nwant %q", i, got, want)
		}
	}
}
