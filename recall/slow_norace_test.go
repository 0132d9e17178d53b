//go:build !race

package recall

// slow scales time limits in tests (see slow_race_test.go).
const slow = 1
