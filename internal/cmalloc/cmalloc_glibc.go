//go:build linux && cgo

package cmalloc

/*
// mallopt is glibc's; declared weak, it is NULL where the C library has
// none (musl), and the options are left as they are. The option numbers
// are glibc's M_TRIM_THRESHOLD and M_ARENA_MAX.
extern int mallopt(int, int) __attribute__((weak));

static void konteks_tune_malloc(void) {
	if (mallopt) {
		mallopt(-1, 64 << 10);
		mallopt(-8, 2);
	}
}
*/
import "C"

import "os"

func tune() {
	if os.Getenv("GLIBC_TUNABLES") != "" {
		return
	}
	C.konteks_tune_malloc()
}
