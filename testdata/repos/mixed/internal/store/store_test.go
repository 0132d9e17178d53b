package store

import "testing"

func TestPutGet(t *testing.T) {
	s := New()
	s.Put("a", "1")
	if v, ok := s.Get("a"); !ok || v != "1" {
		t.Fatalf("got %q %v", v, ok)
	}
}
