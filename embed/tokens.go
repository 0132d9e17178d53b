package embed

import (
	"github.com/konteks/git-konteks/text"
)

// maxModelTokenLen bounds the words the static model reads: longer runs are
// hashes, base64 or generated names that carry no meaning it could learn.
const maxModelTokenLen = 40

// ModelTokens calls fn with every token the static model reads in s, in
// order, repeats included: for each word (a run of letters, digits and
// underscores), its lowercased whole form when it is a compound identifier
// (parseHTTPRequest → parsehttprequest), then each of its parts of two or
// more characters, Porter-stemmed (parse, http, request). The trainer
// (scripts/model) and the embedder share this function, so a model is
// always read the way it was trained; changing its output needs a new
// model (make model).
func ModelTokens(s string, fn func(tok string)) {
	var wt wordTokens
	text.Words(s, func(w string) { wt.each(w, fn) })
}

// wordTokens gives the tokens of one word (see ModelTokens), with scratch
// space kept from one word to the next.
type wordTokens struct {
	parts []string
	lower []byte
}

func (t *wordTokens) each(w string, fn func(tok string)) {
	if len(w) > maxModelTokenLen {
		return
	}
	t.parts = appendParts(t.parts[:0], w)
	if len(t.parts) > 1 {
		t.lower = text.AppendLower(t.lower[:0], w)
		fn(string(t.lower))
	}
	for _, p := range t.parts {
		if len(p) < 2 || isDigits(p) {
			continue
		}
		fn(text.Stem(p))
	}
}

// appendParts appends the lowercase parts of an identifier.
func appendParts(dst []string, w string) []string {
	return text.AppendParts(dst, w, text.KeepDigits)
}
