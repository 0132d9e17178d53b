// Package secret recognises credentials in text, so that none reaches
// memory: provider tokens in their published formats, private key blocks
// (with real or escaped newlines), credential URLs, JWTs and values
// assigned to labels such as password=, secret: or token:. File content,
// every text derived from files, commit messages and durable saves pass
// this one detector.
//
// The rule set follows gitleaks (v8): each rule has keywords, and it runs
// only where one of them occurs; one Aho-Corasick pass over the input finds
// every keyword of every rule at once. Each hit costs a bounded amount of
// work (a regexp on a window of the rule's maximum token length), so the
// cost is linear in the input and there is no hit limit to exhaust.
package secret

import (
	"bytes"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Match is one credential found in a text: data[Start:End] is the value.
type Match struct {
	Kind       string // rule id, e.g. "aws-secret-key"
	Start, End int
}

// Rule is one kind of credential.
type Rule struct {
	ID       string   // the kind, as shown in redaction markers and errors
	Keywords []string // matched case-insensitively; the rule runs only at one
	// Pattern is the token's regexp; submatch 1, when present, is the
	// value. It is tried at each keyword hit, on a window reaching Back
	// bytes before it and Max bytes after.
	Pattern string
	Back    int                 // how far before its keyword a token may start
	Max     int                 // longest token (default 256)
	Entropy float64             // minimum Shannon entropy of the value, bits per byte
	Glued   bool                // no word boundary needed before the token (AWS key ids)
	Valid   func(v []byte) bool // an extra check of the value (a JWT's header decodes)
	// Scan replaces Pattern for rules a regexp does not express well; it
	// returns the value's span for the keyword hit at at.
	Scan func(data []byte, at int, keyword string, code bool) (start, end int, kind string, ok bool)
	// Near looks around a match for a companion credential (the secret
	// key next to an AWS key id).
	Near func(data []byte, m Match) []Match

	// True and False are examples the rule must and must not find;
	// {x:n} stands for n random characters of class x (see Expand).
	True, False []string

	// re is Pattern compiled on the rule's first keyword hit: most runs
	// meet the keywords of a few rules, and compiling all of them cost a
	// one-file extraction several milliseconds of its start.
	reOnce sync.Once
	re     *regexp.Regexp
}

// regexp returns the rule's compiled pattern, anchored at the token's
// start unless the rule looks back.
func (r *Rule) regexp() *regexp.Regexp {
	r.reOnce.Do(func() {
		p := r.Pattern
		if r.Back == 0 {
			p = `^(?:` + p + `)`
		}
		r.re = regexp.MustCompile(p)
	})
	return r.re
}

var (
	registry []*Rule
	compiled struct {
		once  sync.Once
		m     *matcher
		owner [][]int  // keyword id -> rule indexes
		kws   []string // keyword id -> keyword (lower case)
	}
)

// register adds rules to the detector; rule files call it from init.
func register(rs ...*Rule) { registry = append(registry, rs...) }

// Rules lists the detector's rules, sorted by id.
func Rules() []*Rule {
	setup()
	return registry
}

func setup() {
	compiled.once.Do(func() {
		sort.SliceStable(registry, func(i, j int) bool { return registry[i].ID < registry[j].ID })
		var kws []string
		index := map[string]int{}
		for ri, r := range registry {
			if r.Max == 0 {
				r.Max = 256
			}
			for _, k := range r.Keywords {
				k = strings.ToLower(k)
				id, ok := index[k]
				if !ok {
					id = len(kws)
					index[k] = id
					kws = append(kws, k)
					compiled.owner = append(compiled.owner, nil)
				}
				compiled.owner[id] = append(compiled.owner[id], ri)
			}
		}
		compiled.m = newMatcher(kws)
		compiled.kws = kws
	})
}

// Find returns the credentials in data, in order and not overlapping.
// Values after labels are judged as in configuration or prose, where an
// unquoted word after password= is the password.
func Find(data []byte) []Match { return find(data, false) }

// FindFile is Find for the content of the file at path p: in source code
// an unquoted word after password= is a variable, not a password, unless
// it looks random.
func FindFile(p string, data []byte) []Match { return find(data, isCode(p)) }

// Contains reports whether data holds a credential.
func Contains(data []byte) bool { return len(find(data, false)) > 0 }

// ContainsString is Contains for a string.
func ContainsString(s string) bool { return Contains([]byte(s)) }

// Kinds lists the distinct kinds of ms, in order of first appearance.
func Kinds(ms []Match) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Kind] {
			seen[m.Kind] = true
			out = append(out, m.Kind)
		}
	}
	return out
}

// Marker is the text that replaces a redacted value of kind.
func Marker(kind string) string { return "«redacted:" + kind + "»" }

// Redact returns data with every match's value replaced by its marker.
// Newlines inside a value are kept after the marker, so line numbers of
// the text around it do not move. It returns data itself when ms is empty.
func Redact(data []byte, ms []Match) []byte {
	if len(ms) == 0 {
		return data
	}
	var b bytes.Buffer
	b.Grow(len(data))
	last := 0
	for _, m := range ms {
		b.Write(data[last:m.Start])
		b.WriteString(Marker(m.Kind))
		for n := bytes.Count(data[m.Start:m.End], []byte{'\n'}); n > 0; n-- {
			b.WriteByte('\n')
		}
		last = m.End
	}
	b.Write(data[last:])
	return b.Bytes()
}

// RedactString finds and redacts the credentials in s.
func RedactString(s string) (string, []Match) {
	ms := Find([]byte(s))
	if len(ms) == 0 {
		return s, nil
	}
	return string(Redact([]byte(s), ms)), ms
}

func find(data []byte, code bool) []Match {
	ms := findKeywords(data, code)
	if d := disguised(data); len(d) > 0 {
		ms = merge(append(ms, d...))
	}
	return ms
}

// findKeywords is the keyword pass: every rule at each of its keywords.
func findKeywords(data []byte, code bool) []Match {
	setup()
	var ms []Match
	lastEnd := make([]int, len(registry)) // per rule: end of its last match
	compiled.m.each(data, func(id, at int) {
		for _, ri := range compiled.owner[id] {
			if at < lastEnd[ri] {
				continue // inside a token this rule already found
			}
			r := registry[ri]
			m, ok := r.try(data, at, compiled.kws[id], code)
			if !ok {
				continue
			}
			lastEnd[ri] = m.End
			ms = append(ms, m)
			if r.Near != nil {
				ms = append(ms, r.Near(data, m)...)
			}
		}
	})
	return merge(ms)
}

// try applies rule r at the keyword hit at.
func (r *Rule) try(data []byte, at int, kw string, code bool) (Match, bool) {
	if r.Scan != nil {
		s, e, kind, ok := r.Scan(data, at, kw, code)
		if !ok {
			return Match{}, false
		}
		if kind == "" {
			kind = r.ID
		}
		return Match{Kind: kind, Start: s, End: e}, true
	}
	lo := max(at-r.Back, 0)
	hi := min(at+r.Max+32, len(data)) // slack: Max is a bound, not a contract
	loc := r.regexp().FindSubmatchIndex(data[lo:hi])
	if loc == nil || lo+loc[0] > at || lo+loc[1] <= at {
		return Match{}, false
	}
	ts, te := lo+loc[0], lo+loc[1] // the token
	vs, ve := ts, te               // the value
	if len(loc) >= 4 && loc[2] >= 0 {
		vs, ve = lo+loc[2], lo+loc[3]
	}
	if !r.Glued && !leftBoundary(data, ts) || !rightBoundary(data, te, r.Glued) {
		return Match{}, false
	}
	v := data[vs:ve]
	if r.Entropy > 0 && entropy(v) < r.Entropy || placeholder(v) || r.Valid != nil && !r.Valid(v) {
		return Match{}, false
	}
	return Match{Kind: r.ID, Start: vs, End: ve}, true
}

func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// leftBoundary reports whether a token may start at s: after a non-word
// byte, or right after an escape such as \n in a JSON or Go string.
func leftBoundary(data []byte, s int) bool {
	if s == 0 || !isWord(data[s-1]) {
		return true
	}
	return escapedAt(data, s)
}

// escapedAt reports whether data[s-2:s] is a backslash escape (\n, \r, \t).
func escapedAt(data []byte, s int) bool {
	if s < 2 || data[s-2] != '\\' {
		return false
	}
	switch data[s-1] {
	case 'n', 'r', 't':
		return s < 3 || data[s-3] != '\\'
	}
	return false
}

// rightBoundary reports whether a token may end at e. A glued token (an
// AWS key id) only may not run on into more of its own upper-case class.
func rightBoundary(data []byte, e int, glued bool) bool {
	if e >= len(data) {
		return true
	}
	c := data[e]
	if glued {
		return !('A' <= c && c <= 'Z' || '0' <= c && c <= '9')
	}
	return !isWord(c)
}

// entropy is the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var freq [256]int
	for _, c := range b {
		freq[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholder reports values documentation uses in place of a credential.
func placeholder(v []byte) bool {
	lv := bytes.ToLower(v)
	for _, w := range placeholderWords {
		if bytes.Contains(lv, []byte(w)) {
			return true
		}
	}
	// A mask: only x or * (xxxxx, the password a redacted URL shows).
	if len(v) >= 3 && len(bytes.Trim(v, "xX*")) == 0 {
		return true
	}
	// A run of one repeated character (xxxxxxxx, 00000000, ********).
	run := 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			run++
			if run >= 8 {
				return true
			}
		} else {
			run = 1
		}
	}
	return false
}

var placeholderWords = []string{"example", "placeholder", "redacted", "«"}

// generic kinds come from labels; a provider's kind for the same value
// names it better.
var generic = map[string]bool{"password": true, "secret": true, "token": true, "api-key": true, "access-key": true, "private-key-data": true}

// merge sorts matches and joins overlapping ones.
func merge(ms []Match) []Match {
	if len(ms) < 2 {
		return ms
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Start != ms[j].Start {
			return ms[i].Start < ms[j].Start
		}
		if ms[i].End != ms[j].End {
			return ms[i].End > ms[j].End
		}
		return generic[ms[j].Kind] && !generic[ms[i].Kind] || ms[i].Kind < ms[j].Kind && generic[ms[i].Kind] == generic[ms[j].Kind]
	})
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.Start < last.End {
			if m.End > last.End {
				last.End = m.End
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// codeExt lists extensions of source code, where an unquoted word after a
// label is an expression. Shell scripts, Makefiles and Dockerfiles are not
// in it: there PASSWORD=word assigns the word itself.
var codeExt = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`.go .py .pyi .js .jsx .mjs .cjs .ts .tsx .mts .cts .rb .java .kt .kts .scala .groovy .gradle
		.c .h .cc .cpp .cxx .hpp .hh .cs .fs .swift .m .mm .rs .php .pl .pm .lua .dart .ex .exs .erl .hs .ml .mli
		.clj .cljs .r .jl .zig .nim .v .vue .svelte .sol .elm .cr .d .pas .vb .nix .proto .graphql .s .asm`) {
		codeExt[e] = true
	}
}

func isCode(p string) bool {
	if codeExt[strings.ToLower(path.Ext(p))] {
		return true
	}
	switch path.Base(p) {
	case "Rakefile", "Gemfile", "Jenkinsfile", "Vagrantfile":
		return true
	}
	return false
}
