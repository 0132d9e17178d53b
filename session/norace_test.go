//go:build !race

package session

// slow scales CPU limits in tests (see race_test.go).
const (
	slow       = 1
	bigSession = 20 << 20
)
