//go:build race

package html

// slow scales time limits in tests: the race detector makes code 5-20
// times slower, and a limit is there to catch a hang, not to benchmark.
const slow = 20

// bigHTML is the size of the nested-div page in TestNestedDivs; the race
// detector runs it on a tenth.
const bigHTML = 5 << 20
