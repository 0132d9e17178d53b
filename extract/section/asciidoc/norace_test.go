//go:build !race

package asciidoc

// slow scales time limits in tests (see race_test.go).
const slow = 1
