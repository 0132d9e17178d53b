package memory

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestEncoderPool: compressions one after another use one encoder (its
// state paged in once); concurrent ones get one each, up to one per
// CPU; every encoder compresses alike.
func TestEncoderPool(t *testing.T) {
	text := []byte(strings.Repeat("a record's text, compressed by whichever encoder is free\n", 50))
	want := Compress(text)
	p := newEncoderPool()
	for i := 0; i < 10; i++ {
		if got := p.compress(text); !bytes.Equal(got, want) {
			t.Fatal("an encoder of the pool compresses differently")
		}
	}
	if p.made != 1 {
		t.Fatalf("%d encoders made for compressions one after another, want 1", p.made)
	}

	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < 4*runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < 20; i++ {
				if got := p.compress(text); !bytes.Equal(got, want) {
					t.Error("an encoder of the pool compresses differently")
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	if p.made > runtime.GOMAXPROCS(0) || len(p.idle) != p.made {
		t.Fatalf("%d encoders made, %d idle, at most %d", p.made, len(p.idle), runtime.GOMAXPROCS(0))
	}
}
