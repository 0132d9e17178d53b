// Package org sections Org documents (Emacs Org mode) by their headlines.
//
// A headline is a line at the margin of one or more "*" and a space; the
// number of stars is its level. Org itself reads such a line as a
// headline even inside a source block (which is why Org escapes one there
// as ",*"), so no block hides one. A headline's name is its title without
// the parts Org keeps beside it: a TODO keyword (TODO and DONE, and those
// the file declares with #+TODO:, #+SEQ_TODO: or #+TYP_TODO:), the
// COMMENT keyword, a priority cookie ("[#A]"), statistics cookies
// ("[2/5]", "[40%]") and trailing tags (":work:urgent:"); links become
// their description and emphasis marks are dropped.
//
// Every section runs from its headline to the line before the next one,
// so no line is indexed twice; its anchor is its headline path ("Project
// > Tasks > Release").
package org

import (
	"bytes"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/doc"
	"github.com/konteks/git-konteks/internal/lazyre"
)

// Kind and Parser of the results.
const (
	Kind   = "org"
	Parser = doc.Parser
)

// Split sections an Org document: the text before the first headline
// (Symbol "preamble"), then one section per headline (Symbol "heading",
// QName and Anchor the headline path). Kind "org", Parser "structural".
//
// Split never fails: if it panics on some input, the file becomes one
// whole-file section and Result.Fallback says why.
func Split(in section.Input) section.Result {
	return doc.Split(in, Kind, headings)
}

// reTodoDecl matches a line declaring TODO keywords.
var reTodoDecl = lazyre.New(`(?im)^[ \t]*#\+(?:SEQ_|TYP_)?TODO:[ \t]*(.*)$`)

// headings finds the headlines of a document, in line order.
func headings(src []byte, lines *section.LineIndex) []doc.Heading {
	keywords := map[string]bool{"TODO": true, "DONE": true}
	if bytes.Contains(src, []byte("TODO:")) || bytes.Contains(src, []byte("todo:")) {
		for _, m := range reTodoDecl.FindAllSubmatch(src, 64) {
			for _, w := range strings.Fields(string(m[1])) {
				if w == "|" {
					continue
				}
				if k := strings.IndexByte(w, '('); k > 0 {
					w = w[:k] // "WAIT(w@/!)"
				}
				keywords[w] = true
			}
		}
	}
	var out []doc.Heading
	for i := 1; i <= lines.Count(); i++ {
		l := bytes.TrimRight(src[lines.Start(i):lines.End(i)], "\r")
		if len(l) == 0 || l[0] != '*' {
			continue
		}
		k := 0
		for k < len(l) && l[k] == '*' {
			k++
		}
		if k == len(l) || l[k] != ' ' && l[k] != '\t' {
			continue // "*bold* text" is a paragraph
		}
		out = append(out, doc.Heading{Line: i, Level: k, Name: title(string(l[k:]), keywords)})
	}
	return out
}

// Parts of a headline beside its title, and inline markup.
var (
	rePriority = lazyre.New(`^\[#[A-Za-z0-9]\][ \t]*`)
	reCookie   = lazyre.New(`[ \t]*\[\d*(?:/\d*|%)\]`)
	reTags     = lazyre.New(`[ \t]+:(?:[\w@#%]+:)+[ \t]*$`)
	reLinkDesc = lazyre.New(`\[\[[^\]]*\]\[([^\]]*)\]\]`)
	reLink     = lazyre.New(`\[\[([^\]]*)\]\]`)
	reEmph     = lazyre.New(`(^|[\s('"{])([*/_=~+])(\S(?:[^\n]*?\S)?)([*/_=~+])($|[\s\-.,:!?;'")}\[])`)
)

// title renders a headline's text (after its stars) as its name.
func title(t string, keywords map[string]bool) string {
	t = strings.TrimSpace(strings.ToValidUTF8(t, "\uFFFD"))
	if w, rest, _ := strings.Cut(t, " "); keywords[w] {
		t = strings.TrimSpace(rest)
	} else if keywords[t] {
		t = ""
	}
	t = rePriority.ReplaceAllString(t, "")
	if w, rest, _ := strings.Cut(t, " "); w == "COMMENT" {
		t = rest
	} else if t == "COMMENT" {
		t = ""
	}
	t = reTags.ReplaceAllString(t, "")
	if strings.HasPrefix(t, ":") && reTags.MatchString(" "+t) {
		t = "" // tags only
	}
	if strings.ContainsAny(t, "[*/_=~+") {
		t = reCookie.ReplaceAllString(t, "")
		t = reLinkDesc.ReplaceAllString(t, "$1")
		t = reLink.ReplaceAllString(t, "$1")
		t = doc.Unmark(reEmph.Re(), t)
	}
	t = strings.Join(strings.Fields(t), " ")
	if t == "" {
		return doc.Untitled
	}
	return t
}
