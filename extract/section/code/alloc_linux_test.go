package code

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHugeCalloc: a calloc of 1 MB or more is the allocator's own block,
// 2 MB-aligned and zeroed; a smaller one is the C library's; realloc
// keeps the content of either and free takes both.
func TestHugeCalloc(t *testing.T) {
	const size = 3 << 20
	p := hugeCalloc(size/2, 2)
	if p == nil || uintptr(p)&(2<<20-1) != 0 || !hugeOwned(p) {
		t.Fatalf("a 3 MB calloc: %p, owned %v", p, hugeOwned(p))
	}
	b := unsafe.Slice((*byte)(p), size)
	for i, c := range b {
		if c != 0 {
			t.Fatalf("byte %d of a fresh block is %d", i, c)
		}
	}
	for i := range b {
		b[i] = byte(i * 7)
	}
	q := hugeRealloc(p, size+100)
	if q == nil || hugeOwned(q) {
		t.Fatalf("realloc of the block: %p, owned %v", q, hugeOwned(q))
	}
	nb := unsafe.Slice((*byte)(q), size+100)
	for i := 0; i < size; i++ {
		if nb[i] != byte(i*7) {
			t.Fatalf("byte %d lost in realloc", i)
		}
	}
	hugeFree(q)

	small := hugeCalloc(100, 8)
	if small == nil || hugeOwned(small) {
		t.Fatalf("an 800-byte calloc: %p, owned %v", small, hugeOwned(small))
	}
	hugeFree(small)
	hugeFree(nil)
	if hugeOwned(nil) {
		t.Fatal("nil is owned")
	}
}

// TestHugeCallocReturnsItsMemory: blocks freed are unmapped, not kept.
// Kept, 200 blocks of 5 MB would hold 1.4 GB of address space (each
// mapping has 2 MB of slack); the bound is half the blocks' own size, far
// above what the runtime (or the race detector) maps meanwhile.
func TestHugeCallocReturnsItsMemory(t *testing.T) {
	before := vmSizeKB(t)
	for i := 0; i < 200; i++ {
		p := hugeCalloc(5<<20, 1)
		*(*byte)(p) = 1
		hugeFree(p)
	}
	if grew := vmSizeKB(t) - before; grew > 500<<10 {
		t.Fatalf("the address space grew by %d KB over 200 blocks of 5 MB allocated and freed", grew)
	}
}

func vmSizeKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no VmSize")
	return 0
}
