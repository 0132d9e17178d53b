package durable

import (
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// TestExpireAndConfirm: with konteks.memories.expire set, an uncited
// memory older than that is expired, a cited one is not, and confirming
// the old one renews it; a cited file that is gone makes its memory
// obsolete.
func TestExpireAndConfirm(t *testing.T) {
	repo := openRepo(t)
	old, _, err := Save(repo, Entry{Type: TypeMemory, Kind: "fact", Text: "the nightly job rotates the logs at two", Created: time.Now().Add(-40 * 24 * time.Hour).UTC().Truncate(time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{Type: TypeMemory, Kind: "fact", Text: "a.txt holds the sample input", Paths: []string{"a.txt"}, Created: old.Created}
	CiteMentions(repo, &e)
	if len(e.Cites) != 1 || e.Cites[0].Path != "a.txt" || len(e.Cites[0].Blob) != 40 {
		t.Fatalf("cites %+v", e.Cites)
	}
	cited, _, err := Save(repo, e)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.SetConfig("konteks.memories.expire", "30"); err != nil {
		t.Fatal(err)
	}
	mem, _ := memref.Read(repo, memory.Ref)
	v := NewVerifier(repo, mem)
	if f := v.Check(old.Entry); f.Status != Expired || !strings.Contains(f.Why, "30 days") {
		t.Errorf("old uncited memory: %+v", f)
	}
	if f := v.Check(cited.Entry); f.Status != Fresh {
		t.Errorf("old cited memory: %+v", f)
	}
	renewed, err := Confirm(repo, old.ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	if renewed.Supersedes != old.ID || v.Check(renewed.Entry).Status != Uncited {
		t.Errorf("renewed %+v: %+v", renewed, v.Check(renewed.Entry))
	}
	if _, err := Confirm(repo, old.ID[:8]); err == nil {
		t.Error("a superseded memory was confirmed again")
	}
	gone := cited.Entry
	gone.Cites = []Cite{{Path: "b/gone.txt", Blob: strings.Repeat("0", 40)}}
	if f := v.Check(gone); f.Status != Obsolete || !strings.Contains(f.Why, "b/gone.txt is gone") {
		t.Errorf("a memory citing a missing file: %+v", f)
	}
	// A scope outside the two is refused.
	if _, _, err := Save(repo, Entry{Type: TypeMemory, Kind: "fact", Text: "the scope here is not a known one", Scope: "team"}); err == nil {
		t.Error("an unknown scope was saved")
	}
}
