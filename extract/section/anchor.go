package section

import "strconv"

// AnchorSet hands out anchors that are unique within one file. The first
// use of an anchor keeps it as is; later identical ones get "#2", "#3", ...
// in order of appearance, so an anchor changes only when an earlier section
// with the same identity is added or removed, never when unrelated parts of
// the file change.
//
// The zero value is ready to use.
type AnchorSet struct {
	seen map[string]int
}

// Add returns a unique anchor for a, recording it.
func (s *AnchorSet) Add(a string) string {
	if s.seen == nil {
		s.seen = make(map[string]int)
	}
	n := s.seen[a]
	if n == 0 {
		s.seen[a] = 1
		return a
	}
	for {
		n++
		cand := a + "#" + strconv.Itoa(n)
		if s.seen[cand] == 0 {
			s.seen[a] = n
			s.seen[cand] = 1
			return cand
		}
	}
}
