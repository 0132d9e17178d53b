package memory

import "strings"

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
