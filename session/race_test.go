//go:build race

package session

// slow scales CPU limits in tests: the race detector makes code 5-20
// times slower, and it reads a tenth of the big transcript.
const (
	slow       = 20
	bigSession = 2 << 20
)
