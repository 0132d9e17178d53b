// Package startheap turns garbage collection off before the packages of
// the command initialise, so that a short command (a recall, a one-file
// extraction, `--version`) runs without a collection.
//
// Go starts collecting at a 4 MB heap, and package initialisation alone
// (bleve's Levenshtein automata, enry's language tables) allocated about
// that much before both were made lazy (third_party), and may again: every call paid one collection before main ran, a third of
// `--version`'s CPU and a tenth of a recall's. Here the collector starts
// off under a soft memory limit of Floor; the first collection, at that
// limit, finalizes a sentinel whose finalizer turns the proportional goal
// (GOGC=100) back on and sets the limit given to After, none by default.
// A run that stays under the floor never collects; a large one (a full
// extraction, a cold index build, the MCP server) collects as usual once
// past it.
//
// A user's own GOGC or GOMEMLIMIT wins: with either set, nothing changes.
//
// The command's main package imports this one. Go initialises, of the
// packages whose imports are done, the one whose import path sorts first;
// this one imports only the runtime's, so it runs early: today after
// enry's tables (under 1 MB allocated in all) and before bleve's automata,
// where the first collection used to start. `GODEBUG=inittrace=1` shows
// the order; a test of the command fails if `--version` collects, which is
// what a new dependency initialised earlier would bring back.
package startheap

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// Floor is the heap, in bytes, a process may reach before its first
// collection.
const Floor = 160 << 20

// on reports whether init turned collection off.
var on bool

// after is the soft memory limit set when collection comes back on.
var after atomic.Int64

func init() {
	after.Store(math.MaxInt64)
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	on = true
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(Floor)
	runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
		// A phase that set its own percentage meanwhile (an index build)
		// keeps it; it restores the default when it ends.
		if p := debug.SetGCPercent(100); p >= 0 {
			debug.SetGCPercent(p)
		}
		debug.SetMemoryLimit(after.Load())
	})
}

// Deferred reports whether collection was turned off at start: neither
// GOGC nor GOMEMLIMIT was set.
func Deferred() bool { return on }

// After sets the soft memory limit, in bytes, of the process once the
// first collection has turned collection back on.
func After(limit int64) { after.Store(limit) }
