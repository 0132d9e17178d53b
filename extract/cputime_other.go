//go:build !linux

package extract

import "time"

// threadCPU measures wall time where no per-thread CPU clock is at hand.
func threadCPU() func() time.Duration {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }
}
