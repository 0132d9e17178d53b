// Package killpoint lets tests crash the program at a named point: a
// real SIGKILL where an interrupted run hurts most (between writing
// objects and moving a ref, between moving a local ref and pushing), to
// prove memory stays readable and the next run finishes the work.
//
// It is test-only behaviour and inert in normal use: At does nothing
// unless the environment variable KONTEKS_TEST_KILL_AT names the point.
// The names in use are listed in docs/architecture.md's row for this
// package and by the tests in cmd/git-konteks that set them.
package killpoint

import (
	"os"
	"strconv"
	"syscall"
)

// Env is the variable that names the point to die at.
const Env = "KONTEKS_TEST_KILL_AT"

// CheckpointEnv is the variable that names the checkpoint of a long
// extraction to die after (1 for the first).
const CheckpointEnv = "KONTEKS_TEST_KILL_AFTER_CHECKPOINT"

// At kills the process with SIGKILL when KONTEKS_TEST_KILL_AT is name:
// no deferred function runs, no lock is released, nothing is flushed.
func At(name string) {
	if os.Getenv(Env) == name {
		die()
	}
}

// AfterCheckpoint kills the process when KONTEKS_TEST_KILL_AFTER_CHECKPOINT
// is n, the number of checkpoints an extraction has just written.
func AfterCheckpoint(n int) {
	if v := os.Getenv(CheckpointEnv); v != "" && v == strconv.Itoa(n) {
		die()
	}
}

func die() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
