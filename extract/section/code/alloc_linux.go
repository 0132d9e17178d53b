package code

// Compiling a grammar's query is the largest part of a one-file run in a
// Ruby, TypeScript, C++, C#, Kotlin or Swift repository: to analyse any
// query, tree-sitter walks the grammar's whole parse table and fills a
// scratch table of 257 state ids per parse state (Ruby: 3 MB; C# and
// Kotlin: 5 MB), allocated with calloc and touched everywhere. In 4 KB
// pages that is one page fault per page, and page faults are what cost
// most on a virtual machine. tree-sitter lets a program choose its
// allocator (ts_set_allocator): here a calloc of 1 MB or more is mapped
// on its own, aligned to 2 MB and advised to use huge pages, so the table
// faults in a few times instead of some 750. On a 2-core VM, compiling
// Ruby's tags query in a fresh process went from 16.0 to 10.6 ms (median
// of 10). Everything else goes to the C library as before.
//
// Such a block starts 2 MB-aligned and is preceded by a header naming it
// (a magic number and its own address), which is how free and realloc
// tell it from the C library's blocks: those never start 2 MB-aligned
// with that header before them.

/*
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
	void *(*new_realloc)(void *, size_t), void (*new_free)(void *));

#define KX_HUGE ((size_t)2 << 20)
#define KX_MIN ((size_t)1 << 20)
#define KX_MAGIC 0x6b6f6e74656b7331ULL

typedef struct { uint64_t magic; void *self; void *base; size_t len; } kx_head;

static kx_head *kx_head_of(void *p) { return (kx_head *)((char *)p - sizeof(kx_head)); }

static int kx_ours(void *p) {
	if (p == NULL || ((uintptr_t)p & (KX_HUGE - 1)) != 0) return 0;
	kx_head *h = kx_head_of(p);
	return h->magic == KX_MAGIC && h->self == p;
}

static void *kx_calloc_lib(size_t n, size_t size) {
	void *p = calloc(n, size);
	if (n > 0 && size > 0 && p == NULL) {
		fprintf(stderr, "tree-sitter failed to allocate %zu bytes", n * size);
		abort();
	}
	return p;
}

static void *kx_calloc(size_t n, size_t size) {
	if (size != 0 && n > SIZE_MAX / size) return kx_calloc_lib(n, size);
	size_t want = n * size;
	if (want < KX_MIN || want > SIZE_MAX - 2 * KX_HUGE) return kx_calloc_lib(n, size);
	size_t len = want + KX_HUGE + 4096;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) return kx_calloc_lib(n, size);
	uintptr_t p = ((uintptr_t)base + 4096 + KX_HUGE - 1) & ~(uintptr_t)(KX_HUGE - 1);
	madvise((void *)p, want, MADV_HUGEPAGE); // advice: without huge pages it works as before
	kx_head *h = kx_head_of((void *)p);
	h->magic = KX_MAGIC;
	h->self = (void *)p;
	h->base = base;
	h->len = len;
	return (void *)p; // fresh anonymous memory reads as zeros
}

static void kx_free(void *p) {
	if (kx_ours(p)) {
		kx_head *h = kx_head_of(p);
		h->magic = 0;
		munmap(h->base, h->len);
		return;
	}
	free(p);
}

static void *kx_realloc(void *p, size_t size) {
	if (!kx_ours(p)) {
		void *q = realloc(p, size);
		if (size > 0 && q == NULL) {
			fprintf(stderr, "tree-sitter failed to reallocate %zu bytes", size);
			abort();
		}
		return q;
	}
	kx_head *h = kx_head_of(p);
	size_t have = h->len - (size_t)((char *)p - (char *)h->base);
	void *q = malloc(size > 0 ? size : 1);
	if (q == NULL) {
		fprintf(stderr, "tree-sitter failed to reallocate %zu bytes", size);
		abort();
	}
	memcpy(q, p, size < have ? size : have);
	kx_free(p);
	return q;
}

static void kx_install(void) { ts_set_allocator(NULL, kx_calloc, kx_realloc, kx_free); }

static void *kx_test_calloc(size_t n, size_t size) { return kx_calloc(n, size); }
static void *kx_test_realloc(void *p, size_t size) { return kx_realloc(p, size); }
static void kx_test_free(void *p) { kx_free(p); }
static int kx_test_ours(void *p) { return kx_ours(p); }
*/
import "C"

import "unsafe"

// Installed before any parser or query exists: package initialisation
// runs before any code that could parse.
func init() { C.kx_install() }

// The allocator's functions, for its tests.

func hugeCalloc(n, size int) unsafe.Pointer {
	return C.kx_test_calloc(C.size_t(n), C.size_t(size))
}

func hugeRealloc(p unsafe.Pointer, size int) unsafe.Pointer {
	return C.kx_test_realloc(p, C.size_t(size))
}

func hugeFree(p unsafe.Pointer) { C.kx_test_free(p) }

func hugeOwned(p unsafe.Pointer) bool { return C.kx_test_ours(p) != 0 }
