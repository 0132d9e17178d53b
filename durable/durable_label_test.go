package durable

import "testing"

func TestItemLabel(t *testing.T) {
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{Entry: Entry{Type: TypeMemory, Kind: "decision"}}, "decision"},
		{Item{Entry: Entry{Type: TypeDiary, Kind: "note"}}, "diary"},
		{Item{Entry: Entry{Type: TypeDiary, Subject: "push retries"}}, "diary (push retries)"},
	} {
		if got := c.it.Label(); got != c.want {
			t.Errorf("%+v: label %q, want %q", c.it, got, c.want)
		}
	}
}
