package mmap

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("konteks\x00"), 4096)
	p := filepath.Join(dir, "t.bin")
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	b, unmap, err := File(p)
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("File: %v, %d bytes", err, len(b))
	}
	if err := unmap(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, unmap, err := File(empty); err != nil || b == nil || len(b) != 0 || unmap() != nil {
		t.Fatalf("empty file: %v %v", b, err)
	}
	if _, _, err := File(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
}

// Replace puts the new file in place whole, or on an error leaves the old
// one and no temporary file.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache")
	write := func(s string, err error) func(*bufio.Writer) error {
		return func(w *bufio.Writer) error {
			w.WriteString(s)
			return err
		}
	}
	if err := Replace(p, write("old", nil)); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Replace(p, write("new", boom)); err != boom {
		t.Fatalf("error %v, want %v", err, boom)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "old" {
		t.Fatalf("after a failed replace: %q %v", b, err)
	}
	if err := Replace(p, write("new", nil)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if b, _ := os.ReadFile(p); err != nil || string(b) != "new" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("after a replace: %q %v", b, err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("%d files left, want 1", len(es))
	}
}
