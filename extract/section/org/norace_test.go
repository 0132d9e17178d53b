//go:build !race

package org

// slow scales time limits in tests (see race_test.go).
const slow = 1
