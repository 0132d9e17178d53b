package recall

import (
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/index"
)

// questionWords are English function words and the filler of questions
// ("where is request routing done", "how does it work"). Such a word in a
// query matches text, never a name or a path: that "done" is in the
// question says nothing about Context.Done. (The analyzer drops the
// commonest of them already; these are the rest.)
var questionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above after again against all also am any because before being
	below between both can could did doing done down during each either else few further had having
	he her here hers him his however itself just may me might more most must my no nor not now off
	once only other ours out over own same shall she should some them through too under until up upon
	us very via whom why within without yes yet yours really actually please`) {
		m[w] = true
	}
	return m
}()

// markQuestionWords marks the terms of a query that are question words
// (see questionWords) as TextOnly and scales their weight by w: they
// still tell a section that answers in prose from one that does not, but
// little else. Terms are analysed (stemmed) words, so each question word
// is compared in its analysed form.
func markQuestionWords(terms []index.Term, w float64) {
	for i := range terms {
		if questionStems()[terms[i].Text] {
			terms[i].TextOnly = true
			if w > 0 {
				terms[i].Weight *= w
			}
		}
	}
}

// questionStems are questionWords as the analyzer returns them,
// analysed on first use.
var questionStems = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for w := range questionWords {
		for _, t := range index.QueryTerms(w) {
			m[t.Text] = true
		}
	}
	return m
})

// expandTerms adds to a query the repository's own forms of its words:
// terms of memory's vocabulary that extend a query term ("rout" of
// routing → router; "discov" → discoveri of discovery) or that it
// extends by a letter or two ("evalu" of evaluated → eval). Stemming
// joins route/routes/routing but not router, discovery or Eval; people
// write the one and code the other. Each added term weighs w of its
// source term, at most maxExpansions per term, the most frequent first;
// question words and short or long terms are not expanded.
func (s *Searcher) expandTerms(terms []index.Term, w float64) []index.Term {
	if w <= 0 {
		return terms
	}
	have := make(map[string]bool, len(terms))
	for _, t := range terms {
		have[t.Text] = true
	}
	out := terms
	for _, t := range terms {
		if t.TextOnly || len(t.Text) < minExpandLen || len(t.Text) > maxExpandLen || !isLetters(t.Text) {
			continue
		}
		// One walk of the vocabulary finds both: the terms under the
		// shortest truncation, in order, are the truncations, the term
		// itself, then its extensions.
		var cands []index.TermCount
		short := t.Text[:max(minExpandLen, len(t.Text)-maxTruncation)]
		for _, v := range s.ix.PrefixTerms(short, maxVocabWalk) {
			switch {
			case v.Term == t.Text || have[v.Term] || !isLetters(v.Term):
			case strings.HasPrefix(t.Text, v.Term): // a truncation
				cands = append(cands, v)
			case strings.HasPrefix(v.Term, t.Text) && len(v.Term) <= len(t.Text)+maxExtension:
				cands = append(cands, v)
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Count > cands[j].Count })
		for i, c := range cands {
			if i == maxExpansions {
				break
			}
			have[c.Term] = true
			out = append(out, index.Term{Text: c.Term, Weight: t.Weight * w})
		}
	}
	return out
}

// Bounds of expandTerms.
const (
	minExpandLen  = 4  // shorter terms have too many extensions to mean anything
	maxExpandLen  = 12 // longer ones are identifiers, said exactly
	maxExtension  = 4  // letters a vocabulary term may add (rout → router)
	maxTruncation = 2  // letters it may drop (evalu → eval)
	maxExpansions = 3
	maxVocabWalk  = 96 // vocabulary terms looked at per query term
)

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// withoutQuestionWords is a query's text without its question words, for
// embedding: a vector cannot be told that "done" in "where is routing
// done" is filler, so it is not shown the word.
func withoutQuestionWords(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		if w := q[start:end]; !questionWords[strings.ToLower(w)] {
			b.WriteString(w)
		}
		start = -1
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteByte(c)
	}
	flush(len(q))
	return b.String()
}

// pathMentions are the paths a query names: words with a slash
// ("discovery/ionos", "crates/ignore/src/walk.rs") or a file name with an
// extension ("context.go:173", "base.rb"), without line numbers and
// surrounding punctuation. Issues and agents name the file they mean.
func pathMentions(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(q, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '`' || r == '"' || r == '\'' || r == '(' || r == ')' || r == ',' || r == '[' || r == ']' || r == '<' || r == '>'
	}) {
		f = strings.TrimRight(f, ".:;!?")
		if i := strings.IndexByte(f, ':'); i > 0 {
			f = f[:i] // context.go:173
		}
		f = strings.TrimPrefix(strings.TrimPrefix(f, "./"), "/")
		if len(f) < 3 || len(f) > 200 || strings.Contains(f, "://") || seen[f] {
			continue
		}
		slash := strings.Contains(f, "/")
		ext := path.Ext(f)
		if !slash && (len(ext) < 2 || len(ext) > 6 || !isLetters(ext[1:]) || len(f)-len(ext) < 2) {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// mentioned reports whether a path is one a query names: the path
// itself, a directory it is under, or (for a bare file name) its name.
func mentioned(p string, mentions []string) bool {
	for _, m := range mentions {
		if p == m || strings.HasPrefix(p, m+"/") || strings.HasSuffix(p, "/"+m) {
			return true
		}
	}
	return false
}

// symbolMentions are the identifiers a query spells as code: words in
// CamelCase or snake_case, or parts of a dotted call (NetRCAuth.__init__(),
// Context.Done), lowercased. A section so named is the one meant.
func symbolMentions(q string) map[string]bool {
	var out map[string]bool
	for _, f := range strings.FieldsFunc(q, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.')
	}) {
		for _, p := range strings.Split(f, ".") {
			p = strings.Trim(p, "_")
			if len(p) < 4 || !codeShaped(p) {
				continue
			}
			if out == nil {
				out = map[string]bool{}
			}
			out[strings.ToLower(p)] = true
		}
	}
	return out
}

// codeShaped reports whether a word is written as an identifier: an
// underscore inside, or an upper-case letter after a lower-case one.
func codeShaped(w string) bool {
	for i := 1; i < len(w); i++ {
		c, prev := w[i], w[i-1]
		if c == '_' || c >= 'A' && c <= 'Z' && prev >= 'a' && prev <= 'z' {
			return true
		}
	}
	return false
}

// hyphenMentions are the hyphenated words of a query ("sinatra-contrib",
// "rack-protection", "ui-commits"), lowercased: projects name packages,
// directories and tools that way, and pathMentions takes only words with
// a slash or an extension. A path one of whose directories or whose name
// is such a word is one the query names (see namedComponent).
func hyphenMentions(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		f = strings.Trim(f, "-")
		if len(f) < 5 || len(f) > 64 || seen[f] || !strings.Contains(f, "-") || strings.Contains(f, "--") {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// namedComponent reports whether one of a path's directories, or its
// name, is one of the words (lowercase).
func namedComponent(p string, words []string) bool {
	lp := strings.ToLower(p)
	for _, w := range words {
		if lp == w || strings.HasPrefix(lp, w+"/") || strings.HasSuffix(lp, "/"+w) || strings.Contains(lp, "/"+w+"/") {
			return true
		}
	}
	return false
}

// firstLineTerms are the analysed terms of a task's first line (a
// commit's subject, an issue's title), as a set.
func firstLineTerms(q string) map[string]bool {
	first, _, _ := strings.Cut(q, "\n")
	out := map[string]bool{}
	for _, t := range index.QueryTerms(first) {
		out[t.Text] = true
	}
	return out
}

// fileNamed reports whether every word of a file's name (without its
// extension: "fish_completions.go" is fish and completions) is among
// terms: a task whose first line says "fish shell completion" names
// fish_completions.go as surely as one that spells it, and one that says
// "completions" names completions.go but not bash_completions.go.
func fileNamed(p string, terms map[string]bool) bool {
	base := path.Base(p)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	ts := index.QueryTerms(base)
	if len(ts) > 1 {
		ts = ts[1:] // the analyser gives the whole name first, then its words
	}
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if len(t.Text) < 3 || !terms[t.Text] {
			return false
		}
	}
	return true
}
