package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/memory"
)

// TestRecordBudget: a legitimate 4.6 MB Go file of 130k one-line
// functions made a record over memory's own read limit; its record now
// fits the budget, decodes, and says it was trimmed.
func TestRecordBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("large file")
	}
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; b.Len() < 4_600_000; i++ {
		fmt.Fprintf(&b, "func F%06d() int { return %d }\n", i, i)
	}
	data := []byte(b.String())
	f := buildRecord("big/big.go", "0123456789012345678901234567890123456789", data)
	size := recordSize(f)
	if size > RecordBudget {
		t.Fatalf("record of %d bytes is over the %d budget", size, RecordBudget)
	}
	if !hasWarning(f, trimmedPrefix) {
		t.Fatalf("no trim warning: %v", f.Warnings)
	}
	enc, err := memory.EncodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	back, err := memory.DecodeFile(enc)
	if err != nil {
		t.Fatalf("memory cannot read the record back: %v", err)
	}
	if back.Size != int64(len(data)) || len(back.Sections) == 0 {
		t.Fatalf("size %d sections %d", back.Size, len(back.Sections))
	}
	// The text is kept: the last function is still in a section.
	last := back.Sections[len(back.Sections)-1].Content
	if !strings.Contains(last, "return") {
		t.Fatalf("last section: %.80q", last)
	}
	t.Logf("%d bytes of source: record %d bytes, %d sections; %v", len(data), size, len(back.Sections), f.Warnings)
}
