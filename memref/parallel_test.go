package memref

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestReadParallel: every record reaches a worker once with its own
// bytes; a record that is not in the object database is ErrCorrupt; a
// worker's error stops the read and is what it returns.
func TestReadParallel(t *testing.T) {
	r := testgit.New(t)
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var refs []RecordRef
	want := map[int]string{}
	for i := 0; i < 300; i++ {
		body := fmt.Sprintf("record %d\n", i)
		id := r.GitStdin(body, "hash-object", "-w", "--stdin")
		refs = append(refs, RecordRef{Path: fmt.Sprintf("f%d.go", i), Blob: gitstore.ParseHash(id)})
		want[i] = body
	}
	var mu sync.Mutex
	got := map[int]string{}
	err = ReadParallel(context.Background(), repo, refs, func() func(int, []byte) error {
		return func(i int, data []byte) error {
			mu.Lock()
			defer mu.Unlock()
			if _, twice := got[i]; twice {
				return fmt.Errorf("record %d twice", i)
			}
			got[i] = string(data)
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range want {
		if got[i] != body {
			t.Fatalf("record %d: %q, want %q", i, got[i], body)
		}
	}

	missing := append(append([]RecordRef{}, refs[:10]...), RecordRef{Path: "gone.go", Blob: gitstore.ParseHash("0123456789012345678901234567890123456789")})
	err = ReadParallel(context.Background(), repo, missing, func() func(int, []byte) error {
		return func(int, []byte) error { return nil }
	})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a missing record: %v, want ErrCorrupt", err)
	}

	stop := errors.New("worker stops")
	err = ReadParallel(context.Background(), repo, refs, func() func(int, []byte) error {
		return func(i int, _ []byte) error {
			if i == 5 {
				return stop
			}
			return nil
		}
	})
	if !errors.Is(err, stop) {
		t.Fatalf("a worker's error: %v", err)
	}
}
