package lazyre

import (
	"strings"
	"sync"
	"testing"
)

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`(\w+)@(\w+)`)
	if r.re != nil {
		t.Fatal("compiled before its first use")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			if m := r.FindStringSubmatch("mail bob@example now"); len(m) != 3 || m[1] != "bob" {
				t.Errorf("submatch: %q", m)
			}
		})
	}
	wg.Wait()
	if r.re == nil || r.String() != `(\w+)@(\w+)` {
		t.Fatalf("after use: %v %q", r.re, r.String())
	}
	if got := r.ReplaceAllString("a@b c@d", "$2"); got != "b d" {
		t.Fatalf("replace: %q", got)
	}
}

func TestCompileAllReportsABadExpression(t *testing.T) {
	if err := CompileAll(); err != nil {
		t.Fatalf("before: %v", err)
	}
	mu.Lock()
	n := len(all)
	mu.Unlock()
	defer func() {
		mu.Lock()
		all = all[:n]
		mu.Unlock()
	}()
	New(`a(b`)
	err := CompileAll()
	if err == nil || !strings.Contains(err.Error(), "a(b") {
		t.Fatalf("a bad expression: %v", err)
	}
}
