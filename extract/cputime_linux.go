package extract

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU starts measuring the CPU time of the calling goroutine's
// work; the returned function ends it. The goroutine stays on its thread
// meanwhile, so the thread's CPU clock is its own: on a loaded machine a
// wall clock would count the time other processes ran.
func threadCPU() func() time.Duration {
	runtime.LockOSThread()
	t0 := rusageThread()
	return func() time.Duration {
		d := rusageThread() - t0
		runtime.UnlockOSThread()
		return d
	}
}

func rusageThread() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
