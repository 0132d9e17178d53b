// Package lazyre holds regular expressions compiled on first use.
//
// A package-level regexp.MustCompile runs at every process start. The
// tool's hundred or so cost every command (a hook, a recall) several
// milliseconds before main, most of them for expressions that command
// never uses. A Regexp here is compiled once, when a method is first
// called; CompileAll compiles every one, so a test still fails on an
// expression that does not compile.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use. Its methods
// are those of regexp.Regexp the tool calls; Re gives the compiled one.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns expr, to be compiled on first use (it panics then, as
// regexp.MustCompile does, if expr does not compile). Call it for
// package-level expressions: each one made is kept for CompileAll.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// Re returns the compiled expression.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// CompileAll compiles every expression New has made and reports the
// first that does not compile.
func CompileAll() (err error) {
	mu.Lock()
	rs := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		if _, e := regexp.Compile(r.expr); e != nil {
			return fmt.Errorf("lazyre: %q: %w", r.expr, e)
		}
	}
	return nil
}

// String returns the expression's source text.
func (r *Regexp) String() string { return r.expr }

func (r *Regexp) Match(b []byte) bool                  { return r.Re().Match(b) }
func (r *Regexp) MatchString(s string) bool            { return r.Re().MatchString(s) }
func (r *Regexp) FindStringIndex(s string) []int       { return r.Re().FindStringIndex(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte       { return r.Re().FindSubmatch(b) }
func (r *Regexp) FindSubmatchIndex(b []byte) []int     { return r.Re().FindSubmatchIndex(b) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.Re().FindAllString(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Re().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Re().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
