package gitstore

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Rule files (.gitignore, .gitattributes) are git formats, read from
// blobs of a source tree; gitstore parses and matches them (with go-git's
// matchers) so callers decide what to do with a path without knowing
// which library reads the rules.

// IgnorePattern is one pattern of a .gitignore-style file, bound to the
// directory that holds the file.
type IgnorePattern struct{ p gitignore.Pattern }

// ParseIgnore reads the patterns of a .gitignore-style file found in the
// directory domain (its path split at "/", nil for the root). Blank lines
// and comments are skipped.
func ParseIgnore(b []byte, domain []string) []IgnorePattern {
	var out []IgnorePattern
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, IgnorePattern{gitignore.ParsePattern(line, domain)})
	}
	return out
}

// IgnoreMatcher tells whether a path is excluded by a list of patterns,
// the later patterns winning as in git (a "!" pattern re-includes).
type IgnoreMatcher struct{ m gitignore.Matcher }

// NewIgnoreMatcher matches against ps, outermost directory's patterns
// first.
func NewIgnoreMatcher(ps []IgnorePattern) IgnoreMatcher {
	gs := make([]gitignore.Pattern, len(ps))
	for i, p := range ps {
		gs[i] = p.p
	}
	return IgnoreMatcher{gitignore.NewMatcher(gs)}
}

// Match reports whether the path (split at "/"; isDir for a directory) is
// ignored.
func (m IgnoreMatcher) Match(path []string, isDir bool) bool { return m.m.Match(path, isDir) }

// AttributeRule is one line of a .gitattributes file: a pattern and the
// attributes it gives, or a macro definition.
type AttributeRule struct{ m gitattributes.MatchAttribute }

// ParseAttributes reads a .gitattributes file found in the directory
// domain (nil for the root; root tells whether it is the top-level file,
// the only one allowed to define macros) line by line, as git does: a line
// git would refuse (a bad attribute name, a macro outside the root, a
// negative pattern) is skipped without losing the others, and a pattern
// ending in "/" is dropped because in an attributes file it matches no
// file (and go-git's matcher indexes past its end on it).
func ParseAttributes(b []byte, domain []string, root bool) []AttributeRule {
	var out []AttributeRule
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := parseAttributeLine(line, domain, root); ok {
			out = append(out, AttributeRule{m})
		}
	}
	return out
}

func parseAttributeLine(line string, domain []string, root bool) (m gitattributes.MatchAttribute, ok bool) {
	defer func() {
		if recover() != nil { // go-git indexes a quoted empty pattern
			ok = false
		}
	}()
	m, err := gitattributes.ParseAttributesLine(line, domain, root)
	if err != nil || m.Name == "" || strings.HasPrefix(m.Name, "!") {
		return m, false
	}
	if m.Pattern != nil && strings.HasSuffix(m.Name, "/") {
		return m, false
	}
	return m, true
}

// AttrState is what a .gitattributes line does to one attribute.
type AttrState uint8

const (
	AttrUnspecified AttrState = iota // "!name": as if no line named it
	AttrSet                          // "name": set (true)
	AttrUnset                        // "-name": unset (false)
	AttrValue                        // "name=value": set to Value
)

// Attribute is the state of one attribute for a path.
type Attribute struct {
	State AttrState
	Value string // with AttrValue
}

// AttributeMatcher gives the attributes of paths under a list of rules.
type AttributeMatcher struct{ m gitattributes.Matcher }

// NewAttributeMatcher matches against rules, outermost directory's rules
// first (later lines win, as in git).
func NewAttributeMatcher(rules []AttributeRule) AttributeMatcher {
	ms := make([]gitattributes.MatchAttribute, len(rules))
	for i, r := range rules {
		ms[i] = r.m
	}
	return AttributeMatcher{gitattributes.NewMatcher(ms)}
}

// Match returns the attributes named in names (all, when names is empty)
// that the rules give path (split at "/"); matched is false when no
// pattern applies. A path go-git's matcher cannot handle (it has panicked
// on some patterns) gets no attributes rather than ending the caller.
func (m AttributeMatcher) Match(path []string, names []string) (attrs map[string]Attribute, matched bool) {
	defer func() {
		if recover() != nil {
			attrs, matched = nil, false
		}
	}()
	res, ok := m.m.Match(path, names)
	if !ok {
		return nil, false
	}
	attrs = make(map[string]Attribute, len(res))
	for name, a := range res {
		var v Attribute
		switch {
		case a.IsSet():
			v.State = AttrSet
		case a.IsUnset():
			v.State = AttrUnset
		case a.IsValueSet():
			v = Attribute{State: AttrValue, Value: a.Value()}
		}
		attrs[name] = v
	}
	return attrs, true
}
