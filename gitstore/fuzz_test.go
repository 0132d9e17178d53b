package gitstore

import (
	"bufio"
	"bytes"
	"reflect"
	"testing"
)

// FuzzParseLog: whatever git (or a broken pipe) prints, parseLog returns
// commits or an error, never panics, and parses the same whatever the
// size of its reader's buffer.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte("\x1e0123456789abcdef0123456789abcdef01234567\x00\x00A\x00a@b\x001700000000\x00msg\n\x00\x00:000000 100644 0000000000000000000000000000000000000000 89abcdef0123456789abcdef0123456789abcdef A\x00a.go\x003\t0\ta.go\x00"), false)
	f.Add([]byte("\x1e0123456789abcdef0123456789abcdef01234567\x00\x00A\x00\x00x\x00m\x00\n:100644 100644 0 0 R100\x00old\x00new\x00-\t-\t\x00old\x00new\x00"), true)
	f.Add([]byte("\x1ezz\x00"), false)
	f.Fuzz(func(t *testing.T, out []byte, noCounts bool) {
		parse := func(size int) ([]*LogCommit, error) {
			var cs []*LogCommit
			err := parseLog(bufio.NewReaderSize(bytes.NewReader(out), size), nil, noCounts, func(c *LogCommit) error {
				cs = append(cs, c)
				return nil
			})
			return cs, err
		}
		small, serr := parse(16)
		big, berr := parse(1 << 16)
		if (serr == nil) != (berr == nil) || !reflect.DeepEqual(small, big) {
			t.Fatalf("buffer sizes disagree: %v / %v", serr, berr)
		}
	})
}
