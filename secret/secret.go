// Package secret recognises credentials in text: private key blocks with
// key material and tokens in well-known formats. File content and durable
// memories pass the same filter, so no credential reaches memory.
package secret

import (
	"bytes"
	"regexp"
)

// Each pattern has a cheap literal prefilter so ordinary files cost
// one pass of bytes.Index per literal.
var secretPatterns = []struct {
	lits []string // any of these must occur before the regexp runs
	re   *regexp.Regexp
}{
	// A PEM private key block followed by real key material (a bare header
	// in parsing code or docs is not a key).
	{[]string{"PRIVATE KEY"}, regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----\r?\n(?:[A-Za-z-]+: [^\n]*\r?\n)*\s*[A-Za-z0-9+/=]{40,}`)},
	{[]string{"AKIA", "ASIA"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`)},
	{[]string{"github_pat_"}, regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{60,255}\b`)},
	{[]string{"glpat-"}, regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}\b`)},
	{[]string{"xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"}, regexp.MustCompile(`\bxox[baprs]-[A-Za-z0-9-]{10,}\b`)},
	{[]string{"AIza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{[]string{"sk_live_", "rk_live_"}, regexp.MustCompile(`\b[sr]k_live_[0-9a-zA-Z]{20,}\b`)},
	{[]string{"sk-"}, regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{40,}\b`)},
	{[]string{"npm_"}, regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
}

// exampleMarkers are substrings of documented placeholder credentials.
var exampleMarkers = [][]byte{[]byte("EXAMPLE"), []byte("example"), []byte("xxxxxxxx"), []byte("XXXXXXXX")}

// Contains reports whether data holds a private key or a token in a
// well-known format. The regexps run only on a window around each hit of a
// pattern's literals, never over a whole file.
func Contains(data []byte) bool {
	for _, p := range secretPatterns {
		for _, l := range p.lits {
			lit := []byte(l)
			for off, hits := 0, 0; hits < 64; hits++ {
				i := bytes.Index(data[off:], lit)
				if i < 0 {
					break
				}
				at := off + i
				lo, hi := max(at-48, 0), min(at+4096, len(data))
				if m := p.re.Find(data[lo:hi]); m != nil && !isPlaceholder(m) {
					return true
				}
				off = at + len(lit)
			}
		}
	}
	return false
}

func isPlaceholder(m []byte) bool {
	for _, ex := range exampleMarkers {
		if bytes.Contains(m, ex) {
			return true
		}
	}
	return false
}
