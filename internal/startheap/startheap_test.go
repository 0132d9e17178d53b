package startheap

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the collector's setting without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestCollectionComesBack starts as every process does (off, under the
// floor), grows the live heap past the floor and checks that the first
// collection brings back the proportional goal and the limit After gave.
func TestCollectionComesBack(t *testing.T) {
	if !Deferred() {
		t.Skip("GOGC or GOMEMLIMIT is set: the package leaves the collector alone")
	}
	if p := gcPercent(); p != -1 {
		t.Fatalf("GC percent at start = %d, want -1 (off until the floor)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != Floor {
		t.Fatalf("memory limit at start = %d, want %d", l, Floor)
	}
	const limit = Floor * 2
	After(limit)
	defer After(math.MaxInt64)
	live := make([]byte, Floor+Floor/4)
	for i := 0; i < len(live); i += 4096 {
		live[i] = 1 // touched, so it is really there
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 {
		if time.Now().After(deadline) {
			t.Fatalf("GC percent still %d with %d MB live", gcPercent(), len(live)>>20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	// The finalizer sets the percentage, then the limit.
	for debug.SetMemoryLimit(-1) != limit {
		if time.Now().After(deadline) {
			t.Fatalf("memory limit = %d after collection came back, want %d", debug.SetMemoryLimit(-1), limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
