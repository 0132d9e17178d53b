// Package mmap maps files read-only for the local caches (the search
// index's tables, the graph cache), so a reader pages in only what it
// touches and processes share the pages.
package mmap

import (
	"fmt"
	"os"
	"syscall"
)

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
