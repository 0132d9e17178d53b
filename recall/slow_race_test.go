//go:build race

package recall

// slow scales time limits in tests: the race detector makes code 5-20
// times slower, and a limit is there to catch waiting, not to benchmark.
const slow = 20
