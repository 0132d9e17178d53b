//go:build !oniguruma
// +build !oniguruma

package regex

import (
	"regexp"
	"sync"
)

const Name = RE2

// EnryRegexp is an expression compiled on first use (git konteks: the ~600
// expressions of linguist's data were compiled at every process start,
// though a run needs few of them).
type EnryRegexp = *Lazy

// Lazy is a regular expression compiled on first use; safe for concurrent
// use.
type Lazy struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

func (l *Lazy) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *Lazy) Match(b []byte) bool              { return l.get().Match(b) }
func (l *Lazy) MatchString(s string) bool        { return l.get().MatchString(s) }
func (l *Lazy) FindAll(b []byte, n int) [][]byte { return l.get().FindAll(b, n) }
func (l *Lazy) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *Lazy) FindAllSubmatch(b []byte, n int) [][][]byte { return l.get().FindAllSubmatch(b, n) }
func (l *Lazy) FindSubmatch(b []byte) [][]byte             { return l.get().FindSubmatch(b) }
func (l *Lazy) FindStringSubmatch(s string) []string       { return l.get().FindStringSubmatch(s) }
func (l *Lazy) String() string                             { return l.expr }

func MustCompile(str string) EnryRegexp {
	return &Lazy{expr: str}
}

// MustCompileMultiline mimics Ruby defaults for regexp, where ^$ matches begin/end of line.
// I.e. it converts Ruby regexp syntaxt to RE2 equivalent
func MustCompileMultiline(s string) EnryRegexp {
	const multilineModeFlag = "(?m)"
	return &Lazy{expr: multilineModeFlag + s}
}

// MustCompileRuby used for expressions with syntax not supported by RE2.
// Now it's confusing as we use the result as [data/rule.Matcher] and
//
//	(*Matcher)(nil) != nil
//
// What is a better way for an expression to indicate unsupported syntax?
// e.g. add .IsValidSyntax() to both, Matcher interface and EnryRegexp implementations?
func MustCompileRuby(s string) EnryRegexp {
	return nil
}

func QuoteMeta(s string) string {
	return regexp.QuoteMeta(s)
}
