package secret

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Character classes of example templates: {x:n} stands for n random
// characters of class x.
var classes = map[byte]string{
	'a': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	'L': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	'U': "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	'x': "abcdefghijklmnopqrstuvwxyz0123456789",
	'h': "0123456789abcdef",
	'd': "0123456789",
	'w': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
	'b': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
}

// Expand fills an example template with characters drawn from a generator
// seeded with seed, so tests and planted needles are reproducible.
func Expand(tmpl string, seed uint64) string {
	s, _ := expand(tmpl, seed)
	return s
}

// expand is Expand that also returns the random fragments it drew.
func expand(tmpl string, seed uint64) (string, []string) {
	var parts []string
	r := rand.New(rand.NewPCG(seed, 0x6b6f6e74656b73))
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "{")
		if i < 0 {
			b.WriteString(tmpl)
			return b.String(), parts
		}
		j := strings.IndexByte(tmpl[i:], '}')
		cls, n := byte(0), 0
		if j > 3 && tmpl[i+2] == ':' {
			cls = tmpl[i+1]
			n, _ = strconv.Atoi(tmpl[i+3 : i+j])
		}
		set, ok := classes[cls]
		if !ok || n <= 0 {
			b.WriteString(tmpl[:i+1])
			tmpl = tmpl[i+1:]
			continue
		}
		b.WriteString(tmpl[:i])
		part := make([]byte, n)
		for k := range part {
			part[k] = set[r.IntN(len(set))]
		}
		b.Write(part)
		parts = append(parts, string(part))
		tmpl = tmpl[i+j+1:]
	}
}

// Sample is one example credential of a rule.
type Sample struct {
	Kind  string
	Text  string
	Parts []string // the random fragments of Text: parts of the credential
}

// Samples expands every rule's true examples: the credentials the
// detector must find, for tests here and in the packages that call it.
func Samples() []Sample {
	var out []Sample
	for ri, r := range Rules() {
		for i, t := range r.True {
			text, parts := expand(t, uint64(ri*100+i))
			out = append(out, Sample{Kind: r.ID, Text: text, Parts: parts})
		}
	}
	return out
}
