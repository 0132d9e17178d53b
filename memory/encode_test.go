package memory

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// EncodeFile gives the bytes it gave when it compressed a copy of the
// encoding: JSON without HTML escaping, a newline, zstd.
func TestEncodeFileAsBefore(t *testing.T) {
	big := strings.Repeat("<a href=\"x\">&amp; é \u2028 \x01</a>\n", 50000)
	for i, f := range []*File{
		{},
		sampleRecord(),
		{Version: RecordVersion, Blob: strings.Repeat("ab", 20), Kind: "code", Language: "Go",
			Sections: []Section{{Anchor: "A<b>&", Content: big, Name: "x\u2029y"}}},
	} {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(f); err != nil {
			t.Fatal(err)
		}
		want := Compress(buf.Bytes())
		got, err := EncodeFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("record %d: %d bytes, before %d", i, len(got), len(want))
		}
	}
}
