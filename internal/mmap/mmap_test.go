package mmap

import (
	"bytes"
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
