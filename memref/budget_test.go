package memref

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// TestBudgetCharges: a record is charged what it decompresses to, before
// decompressing when it is one frame that declares its size, by
// measuring otherwise (a frame split in two cannot declare less than it
// holds); a blob decoded once costs nothing again.
func TestBudgetCharges(t *testing.T) {
	repo, err := gitstore.Open(testgit.New(t).Dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("a", 40),
		Sections: []memory.Section{{Anchor: "x", Kind: "text", Content: strings.Repeat("word ", 200_000)}}}
	js, _ := json.Marshal(rec)
	one := memory.Compress(js)
	half := len(js) / 2
	two := append(memory.Compress(js[:half]), memory.Compress(js[half:])...)
	w := repo.NewWriter()
	h1, _ := w.Blob(one)
	h2, _ := w.Blob(two)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var hd zstd.Header
	if hd.Decode(one) != nil || !singleFrame(one, hd) {
		t.Fatal("the codec's own record is not seen as one frame")
	}
	if hd.Decode(two) != nil || singleFrame(two, hd) {
		t.Fatal("two frames seen as one")
	}
	for name, h := range map[string]gitstore.Hash{"one frame": h1, "two frames": h2} {
		b := NewBudget(context.Background(), int64(len(js)))
		if err := DecodeRecordWithin(b, repo, h, "x.txt"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.left != 0 {
			t.Fatalf("%s: charged %d of %d", name, int64(len(js))-b.left, len(js))
		}
		if err := DecodeRecordWithin(b, repo, h, "y.txt"); err != nil {
			t.Fatalf("%s: the same blob charged twice: %v", name, err)
		}
		small := NewBudget(context.Background(), int64(len(js))-1)
		if err := DecodeRecordWithin(small, repo, h, "x.txt"); !errors.Is(err, ErrOverBudget) {
			t.Fatalf("%s over budget: %v", name, err)
		}
		// Charge, for a reader that decodes each path's record itself,
		// charges every call the same amount.
		raw := map[string][]byte{"one frame": one, "two frames": two}[name]
		each := NewBudget(context.Background(), 2*int64(len(js)))
		for i, p := range []string{"x.txt", "y.txt"} {
			if err := each.Charge(raw, p); err != nil {
				t.Fatalf("%s: charge %d: %v", name, i, err)
			}
		}
		if each.left != 0 {
			t.Fatalf("%s: two charges took %d of %d", name, 2*int64(len(js))-each.left, 2*len(js))
		}
		if err := each.Charge(raw, "z.txt"); !errors.Is(err, ErrOverBudget) || !strings.Contains(err.Error(), "z.txt") {
			t.Fatalf("%s: a third charge: %v", name, err)
		}
	}
	if err := NewBudget(context.Background(), 1<<30).Charge([]byte("not zstd"), "bad.go"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a blob that is not a record: %v", err)
	}
}
