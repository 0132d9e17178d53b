package memory

import (
	"errors"
	"strings"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	f := &File{Version: RecordVersion, Blob: strings.Repeat("ab", 20), Size: 12, Lines: 2, Kind: "code", Language: "Go", Parser: "tree-sitter",
		Sections: []Section{{Anchor: "func:F", Kind: "code", Symbol: "function", Name: "F", StartLine: 1, EndLine: 2, Content: "func F() {}\n<html> & \"quotes\""}}}
	b, err := EncodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := DecodeFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if g.Sections[0].Content != f.Sections[0].Content || g.Blob != f.Blob {
		t.Fatalf("round trip changed the record: %+v", g)
	}
	again, _ := EncodeFile(g)
	if string(again) != string(b) {
		t.Fatal("encoding is not deterministic")
	}
}

func TestDecodeRefusesHostileRecords(t *testing.T) {
	valid := `{"v":2,"blob":"` + strings.Repeat("a", 40) + `","size":1,"lines":1,"kind":"text","parser":"whole","sections":[]}`
	cases := map[string][]byte{
		"not zstd":            []byte("plain text"),
		"bomb":                Compress(make([]byte, MaxRecordSize+1)),
		"not json":            Compress([]byte("{{{")),
		"trailing data":       Compress([]byte(valid + valid)),
		"no version":          Compress([]byte(`{"blob":"` + strings.Repeat("a", 40) + `"}`)),
		"bad blob id":         Compress([]byte(`{"v":2,"blob":"../../etc"}`)),
		"inverted lines":      Compress([]byte(`{"v":2,"blob":"` + strings.Repeat("a", 40) + `","sections":[{"start_line":9,"end_line":2}]}`)),
		"negative size":       Compress([]byte(`{"v":2,"blob":"` + strings.Repeat("a", 40) + `","size":-5}`)),
		"oversize compressed": make([]byte, MaxCompressedSize+1),
	}
	for name, b := range cases {
		if _, err := DecodeFile(b); err == nil || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: want ErrCorrupt, got %v", name, err)
		}
	}
	if _, err := DecodeFile(Compress([]byte(valid))); err != nil {
		t.Fatalf("valid record refused: %v", err)
	}
}

func TestValidSourcePath(t *testing.T) {
	for _, ok := range []string{"a", "a/b.go", "dir/.hidden", "ünïcode/файл.txt", "a b/c"} {
		if err := ValidSourcePath(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/abs", "a/../b", "..", "./a", "a//b", "a/", ".git/config", "x/.git/hooks", "a\nb", "a\x00b", strings.Repeat("a", MaxPathLen+1)} {
		if err := ValidSourcePath(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
