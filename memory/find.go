package memory

import (
	"fmt"
	"strings"
)

// FindSection finds the section of f that want names, as a person or an
// agent writes it after "PATH#": an anchor exactly, then a qualified or
// plain name (case-sensitive), then an anchor without its kind prefix,
// then any of them ignoring case. It returns the section's index.
func (f *File) FindSection(want string) (int, bool) {
	want = strings.TrimSpace(want)
	tests := []func(Section) bool{
		func(s Section) bool { return s.Anchor == want },
		func(s Section) bool { return s.QName == want || s.QName == "" && s.Name == want },
		func(s Section) bool { return s.Name == want },
		func(s Section) bool {
			_, rest, ok := strings.Cut(s.Anchor, ":")
			return ok && rest == want
		},
		func(s Section) bool {
			return strings.EqualFold(s.Anchor, want) || strings.EqualFold(s.QName, want) || strings.EqualFold(s.Name, want)
		},
	}
	for _, t := range tests {
		for i, s := range f.Sections {
			if t(s) {
				return i, true
			}
		}
	}
	return 0, false
}

// NoSection is the error for a section want that f (the record of path p)
// does not have: it lists the anchors f does have (at most 40), so that
// the next try can name one.
func (f *File) NoSection(p, want string) error {
	var names []string
	for _, s := range f.Sections {
		if len(names) == 40 {
			names = append(names, "…")
			break
		}
		names = append(names, s.Anchor)
	}
	return fmt.Errorf("%s has no section %q; its anchors: %s", p, want, strings.Join(names, ", "))
}
