package extract

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/konteks/git-konteks/internal/lazyre"
)

// What a README says about its project, read as a person reads it: the
// first real sentence of prose, past the logo, the badges, the headings,
// the HTML, the table of contents and the news. README authors put a
// release announcement or a sponsor's banner above the description often
// enough (gin's "Gin 1.12.0 is now available!") that the first paragraph
// is not the description.

// maxDescription bounds the portrait's description in runes.
const maxDescription = 300

// isReadme reports whether a file name is a README in a format the
// portrait reads (README, README.md, Readme.rst, readme.txt, ...).
func isReadme(base string) bool {
	lb := strings.ToLower(base)
	if !strings.HasPrefix(lb, "readme") {
		return false
	}
	switch strings.TrimPrefix(lb, "readme") {
	case "", ".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".rdoc":
		return true
	}
	return false
}

var (
	reMdImage    = lazyre.New(`!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]`)
	reMdLink     = lazyre.New(`\[([^\]]*)\]\([^)]*\)`)
	reMdRefLink  = lazyre.New(`\[([^\]]+)\]\[[^\]]*\]`)
	reMdBareRef  = lazyre.New(`\[([^\]]+)\]`)
	reHTMLTag    = lazyre.New(`<[^>]*>`)
	reRstLink    = lazyre.New("`([^`<]*[^`<\\s])\\s*<[^`>]*>`_{1,2}")
	reRstRole    = lazyre.New(":[a-z][\\w:+.-]*:`([^`]*)`")
	reRstRef     = lazyre.New("`([^`]+)`_{1,2}")
	reEmphasis   = lazyre.New(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	reAnnounce   = lazyre.New(`(?i)\b(?:we(?:'re| are)\s+(?:excited|happy|pleased|proud|thrilled|delighted)|(?:is|are)\s+now\s+(?:available|out|live)|announc(?:e|es|ed|ing|ement)|release\s+notes?|has\s+been\s+released|just\s+released|new\s+release|changelog|check\s+out\s+(?:the|our)|sponsored\s+by|our\s+sponsors?|upgrade\s+guide|migration\s+guide|breaking\s+changes?|deprecat(?:ed|ion)\s+notice|looking\s+for\s+maintainers|is\s+(?:no\s+longer|not)\s+maintained)\b`)
	reNewsTitle  = lazyre.New(`(?i)\b(?:news|announcement|announcing|release[sd]?|what'?s\s+new|changelog|changes|sponsors?|backers|contributors|table\s+of\s+contents|contents|toc|status|badges|license|install(?:ation|ing)?|v?\d+\.\d+(?:\.\d+)?)\b|is\s+(?:now\s+)?available|📰|🎉|📢|🚀`)
	reNoteLead   = lazyre.New(`(?i)^(?:\W*)(?:note|warning|important|caution|tip|attention|disclaimer|notice|heads[\s-]up|update|news|deprecated|⚠️?)\b\W`)
	reListLead   = lazyre.New(`^(?:[-*+•]\s|\d+[.)]\s)`)
	reVersionNum = lazyre.New(`\bv?\d+\.\d+(?:\.\d+)?\b`)
)

// readmeText is what a README gives the portrait: its title (the first
// heading) and its description (the first real sentence).
type readmeText struct {
	Title       string
	Description string
}

// readReadme reads a README's title and first real sentence. Markdown,
// reStructuredText, AsciiDoc, Org and plain text are read alike: headings
// in any of their forms end a paragraph and set the section it is in;
// sections titled as news, releases, sponsors, badges or a table of
// contents are skipped whole.
func readReadme(content string) readmeText {
	var out readmeText
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	skipSection := false
	fence := ""
	inHTMLComment := false
	var para []string
	flush := func() bool {
		defer func() { para = para[:0] }()
		if len(para) == 0 || skipSection || out.Description != "" {
			return out.Description != ""
		}
		if s := realSentence(strings.Join(para, " ")); s != "" {
			out.Description = s
			return true
		}
		return false
	}
	heading := func(t string) bool {
		t = cleanInline(t)
		if out.Title == "" && t != "" {
			out.Title = t
		}
		skipSection = reNewsTitle.MatchString(t) && !strings.EqualFold(t, out.Title) || reAnnounce.MatchString(t)
		return false
	}
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		t := strings.TrimSpace(raw)
		if inHTMLComment {
			if strings.Contains(t, "-->") {
				inHTMLComment = false
			}
			continue
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "<!--"):
			if flush() {
				return out
			}
			inHTMLComment = !strings.Contains(t, "-->")
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if flush() {
				return out
			}
			fence = t[:3]
			continue
		case t == "":
			if flush() {
				return out
			}
			continue
		}
		// Headings: ATX, Org and AsciiDoc one-line titles; setext and
		// reStructuredText underlined (and overlined) titles.
		if h, ok := oneLineHeading(t, raw); ok {
			if flush() {
				return out
			}
			heading(h)
			continue
		}
		if isAdornment(t) && len(t) >= 3 {
			if flush() {
				return out
			}
			if i+2 < len(lines) && isAdornment(strings.TrimSpace(lines[i+2])) && strings.TrimSpace(lines[i+1]) != "" {
				// An overline: the title follows, then the underline.
				heading(strings.TrimSpace(lines[i+1]))
				i += 2
			} else {
				// A thematic break ends a banner ("## News ... ---").
				skipSection = false
			}
			continue
		}
		if len(para) == 0 && strings.HasPrefix(t, "<") {
			// An HTML block runs to the next blank line.
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
			}
			continue
		}
		if len(para) == 0 && i+1 < len(lines) && raw == strings.TrimLeft(raw, " \t") {
			if u := strings.TrimSpace(lines[i+1]); isAdornment(u) && len(u) >= 2 && utf8.RuneCountInString(u) >= min(3, utf8.RuneCountInString(t)) {
				heading(t)
				i++
				continue
			}
		}
		// Lines that are never prose: HTML, images and badges, tables,
		// quotes, list items, indented code, directives and attributes.
		if strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[![") || strings.HasPrefix(t, "![") || strings.HasPrefix(t, "|") ||
			strings.HasPrefix(t, ">") || strings.HasPrefix(t, ".. ") || t == ".." || strings.HasPrefix(t, "#+") ||
			reAttrLine.MatchString(t) || len(para) == 0 && (reListLead.MatchString(t) || strings.HasPrefix(raw, "    ") || strings.HasPrefix(raw, "\t")) ||
			strings.HasPrefix(t, "[") && strings.Contains(t, "]: ") {
			if flush() {
				return out
			}
			continue
		}
		para = append(para, t)
	}
	flush()
	return out
}

// oneLineHeading reads an ATX ("## Title"), Org ("** Title") or AsciiDoc
// ("== Title") heading line.
func oneLineHeading(t, raw string) (string, bool) {
	if raw != strings.TrimLeft(raw, " ") && len(raw)-len(strings.TrimLeft(raw, " ")) > 3 {
		return "", false
	}
	for _, c := range []byte{'#', '*', '='} {
		if len(t) < 2 || t[0] != c {
			continue
		}
		k := strings.IndexFunc(t, func(r rune) bool { return r != rune(c) })
		if k <= 0 || k > 6 || t[k] != ' ' && t[k] != '\t' {
			continue
		}
		if c == '*' && raw != t {
			continue // an indented "* item" is a list
		}
		return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[k:]), string(c))), true
	}
	return "", false
}

// realSentence returns the first sentence of a paragraph when it is a
// real one: prose of a few words that is no announcement, note, bare
// label ("**Why choose Gin?**") or link list; else "".
func realSentence(p string) string {
	if reNoteLead.MatchString(p) || reAnnounce.MatchString(p) {
		return ""
	}
	t := cleanInline(p)
	if t == "" || reNoteLead.MatchString(t) {
		return ""
	}
	s := firstSentence(t, maxDescription)
	s = strings.TrimSpace(s)
	words := strings.Fields(s)
	if len(words) < 4 || strings.HasSuffix(s, "?") {
		return ""
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters*2 < utf8.RuneCountInString(s) {
		return "" // mostly symbols, numbers or emoji
	}
	if reVersionNum.MatchString(s) && len(words) < 8 && strings.Contains(strings.ToLower(s), "release") {
		return ""
	}
	if strings.HasSuffix(s, ":") {
		s = strings.TrimSuffix(s, ":") + "."
	}
	return s
}

// cleanInline renders Markdown and reStructuredText inline markup as its
// text: images and HTML go, links keep their text, emphasis and code lose
// their marks.
func cleanInline(s string) string {
	s = reMdImage.ReplaceAllString(s, "")
	s = reMdLink.ReplaceAllString(s, "$1")
	s = reMdRefLink.ReplaceAllString(s, "$1")
	s = reMdBareRef.ReplaceAllString(s, "$1")
	s = reHTMLTag.ReplaceAllString(s, "")
	s = reRstLink.ReplaceAllString(s, "$1")
	s = reRstRole.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "``", "")
	s = reRstRef.ReplaceAllString(s, "$1")
	s = reEmphasis.ReplaceAllString(s, "$2")
	s = strings.ReplaceAll(s, "`", "")
	for _, e := range [][2]string{{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", `"`}, {"&#39;", "'"}, {"&nbsp;", " "}} {
		s = strings.ReplaceAll(s, e[0], e[1])
	}
	return strings.Join(strings.Fields(s), " ")
}

// readmeName is the project name a README title gives ("axum" of
// "# axum", "Rails" of "Welcome to Rails"), or "" when the title is no
// name (too long to be one).
func readmeName(title string) string {
	t := strings.TrimSpace(title)
	for _, p := range []string{"Welcome to ", "welcome to ", "About "} {
		t = strings.TrimPrefix(t, p)
	}
	t = strings.TrimRight(t, "!.: ")
	if t == "" || len(strings.Fields(t)) > 4 || utf8.RuneCountInString(t) > 40 {
		return ""
	}
	if i := strings.Index(t, ": "); i > 0 {
		t = t[:i] // "Zoekt: fast code search"
	}
	return t
}

// readmeRank orders README candidates: Markdown first, then
// reStructuredText, other formats, plain.
func readmeRank(base string) int {
	switch strings.ToLower(path.Ext(base)) {
	case ".md", ".markdown":
		return 0
	case ".rst":
		return 1
	case "":
		return 3
	}
	return 2
}
