package code

import (
	"os"
	"testing"
	"time"
)

func TestTimeLoad(t *testing.T) {
	if os.Getenv("KONTEKS_TL") == "" {
		t.Skip()
	}
	for _, g := range grammars {
		st := time.Now()
		err := g.load()
		t.Logf("%-10s %v %v", g.key, time.Since(st), err)
	}
}
