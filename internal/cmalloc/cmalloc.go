// Package cmalloc bounds what the C allocator keeps of memory it has been
// given back. The tree-sitter parsers (cgo) allocate each file's syntax
// tree with the C allocator, outside the Go heap and its soft limit; glibc
// keeps what they free in one arena per thread that ever allocated (up to
// eight per CPU) and returns a freed top of the heap to the system only
// past a threshold that grows with the largest block freed. On a full
// extraction of rails that kept 20-25 MB of resident memory no parser was
// using. Tune caps the arenas at two and trims freed tops past 64 KiB
// (what GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=65536
// does), for no measurable CPU.
package cmalloc

// Tune sets the C allocator's options for the process. It does nothing
// where the C library is not glibc, or without cgo; GLIBC_TUNABLES in the
// environment wins.
func Tune() { tune() }
