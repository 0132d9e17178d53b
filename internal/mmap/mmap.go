// Package mmap maps files read-only for the local caches (the search
// index's tables, the graph cache, the vector cache), so a reader pages in
// only what it touches and processes share the pages, and replaces the
// caches' files (those and history's signals) atomically, so a reader
// sees either the old file or the new one.
package mmap

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// LittleEndian says whether this machine stores values in the byte order
// of the caches' files (little-endian): their arrays can then be used
// where they are mapped, or copied out whole; elsewhere a reader decodes
// them value by value.
var LittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// maxSize is the largest file File maps: far past any cache, and within
// what an int holds on 64-bit hosts.
const maxSize = 1 << 40

// File maps the file at path read-only and returns its bytes and the
// function that unmaps them. Where mmap fails (some filesystems) the file
// is read instead and unmap does nothing. An empty file is an empty slice.
func File(path string) (b []byte, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size > maxSize {
		return nil, nil, fmt.Errorf("%s: too large to map (%d bytes)", path, size)
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		if b, err = os.ReadFile(path); err != nil {
			return nil, nil, err
		}
		return b, func() error { return nil }, nil
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}

// Replace writes the file at path through write and renames it into place:
// a crash or an error leaves the old file, never a part of the new one.
// The temporary file's name is unique, so two goroutines or processes may
// write the same file at once (the last rename wins). The file is
// readable by everyone, as the caches are by whoever shares the
// repository.
func Replace(path string, write func(w *bufio.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Chmod(0o644)
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
