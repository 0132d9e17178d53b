package cmalloc

import "testing"

// TestTune: setting the options is safe at any time, and twice.
func TestTune(t *testing.T) {
	Tune()
	Tune()
}
