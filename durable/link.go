package durable

import (
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// LinkMentions adds to e the source paths its text names (tokens that are
// paths in the HEAD tree) and the symbols it names (identifiers written in
// backticks or called with "()"), so an entry is found from the code it is
// about.
func LinkMentions(repo *gitstore.Repo, e *Entry) {
	head, err := repo.Resolve("HEAD")
	if err != nil {
		head = nil
	}
	for _, raw := range strings.Fields(e.Text) {
		quoted := strings.Contains(raw, "`")
		tok := strings.Trim(raw, "`'\".,;:!?()[]{}<>")
		called := strings.HasSuffix(strings.TrimRight(raw, ".,;:!?`'\""), "()")
		if tok == "" || len(tok) > 200 {
			continue
		}
		if head != nil && (strings.Contains(tok, "/") || strings.Contains(tok, ".")) && memory.ValidSourcePath(tok) == nil {
			if _, _, ok, _ := repo.Lookup(head.TreeHash, tok); ok {
				e.Paths = append(e.Paths, tok)
				continue
			}
		}
		if (quoted || called) && isIdentPath(tok) {
			e.Symbols = append(e.Symbols, tok)
		}
	}
	if len(e.Paths) > MaxList {
		e.Paths = e.Paths[:MaxList]
	}
	if len(e.Symbols) > MaxList {
		e.Symbols = e.Symbols[:MaxList]
	}
}

// isIdentPath accepts Name, pkg.Name, Type.Method, a::b.
func isIdentPath(s string) bool {
	if s == "" || len(s) > 120 {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' || r == '.' || r == ':':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
