//go:build race

package asciidoc

// slow scales time limits in tests: the race detector makes code 5-20
// times slower, and a limit is there to catch a hang, not to benchmark.
const slow = 20
