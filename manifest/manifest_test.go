package manifest

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	good := &Manifest{Schema: Schema, SourceCommit: strings.Repeat("a", 40), SourceTree: strings.Repeat("b", 40), Mode: "full", Totals: Totals{Skipped: map[string]int{"binary": 2}}}
	b, err := good.Encode()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(b)
	if err != nil || m.Totals.Skipped["binary"] != 2 {
		t.Fatalf("round trip: %+v %v", m, err)
	}
	for name, in := range map[string]string{
		"not json":   "{",
		"no schema":  `{"source_commit":"` + strings.Repeat("a", 40) + `","source_tree":"` + strings.Repeat("b", 40) + `"}`,
		"future":     `{"schema":99,"source_commit":"` + strings.Repeat("a", 40) + `","source_tree":"` + strings.Repeat("b", 40) + `"}`,
		"bad commit": `{"schema":1,"source_commit":"xyz","source_tree":"` + strings.Repeat("b", 40) + `"}`,
		"too large":  `{"schema":1,"pad":"` + strings.Repeat("x", MaxSize) + `"}`,
	} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Decode([]byte(`{"schema":99,"source_commit":"` + strings.Repeat("a", 40) + `","source_tree":"` + strings.Repeat("b", 40) + `"}`)); err == nil || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("a newer schema should say to upgrade: %v", err)
	}
}
