//go:build !race

package html

// slow scales time limits in tests (see race_test.go).
const slow = 1

// bigHTML is the size of the nested-div page in TestNestedDivs.
const bigHTML = 50 << 20
