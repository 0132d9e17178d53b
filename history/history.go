// Package history is the history memory: a record of each commit of the
// source repository (message, author, date, the paths it changed with
// their change kind and line counts, and flags that weigh it), stored in
// the memory tree under history/ as immutable zstd segments plus a small
// tail, appended incrementally by extraction, and queried by `why`,
// `history`, the MCP server and recall.
//
// Everything read from a memory tree may come from a peer: sizes are
// bounded, hashes and paths validated, and a broken history gives an error
// that names `git konteks extract --mode rebuild`, which rewalks it.
package history

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/secret"
)

// Version is the format version of history records and state. A change
// rewalks history (the next run records it anew). Version 2: line counts
// may be unknown (LinesUnknown) in records, counted when shown; older
// history recorded after the first walk (State.Back).
const Version = 2

// Flags of a commit.
const (
	FlagMerge   = "merge"   // more than one parent; no paths recorded
	FlagBot     = "bot"     // authored by a bot (dependabot, renovate, [bot], ...)
	FlagMass    = "mass"    // changed very many files
	FlagFormat  = "format"  // formatting only (by message and line counts)
	FlagRevert  = "revert"  // reverts an earlier commit
	FlagShallow = "shallow" // boundary of a shallow clone: parents absent, no paths
	FlagSecret  = "secret"  // the message, or the author, held a credential and was withheld
)

// Limits of one record.
const (
	MaxSubject = 300  // bytes of a subject
	MaxBody    = 4000 // bytes of a body
	MaxChanges = 1000 // paths kept per commit (Files holds the true count)
	MassFiles  = 100  // a commit changing more files than this is a mass change
	withheld   = "[message withheld: it looks like it holds a credential]"
	// withheldAuthor stands for an author name or email that looks like
	// it holds a credential.
	withheldAuthor = "[author withheld]"
)

// Commit is the record of one commit.
type Commit struct {
	Hash    string   `json:"h"`
	Parents []string `json:"p,omitempty"`
	Author  string   `json:"a"`
	Email   string   `json:"e,omitempty"`
	Time    int64    `json:"t"` // author date, seconds since the epoch
	Subject string   `json:"s"`
	Body    string   `json:"b,omitempty"`
	Changes []Change `json:"c,omitempty"`
	// Files is how many paths the commit changed (Changes keeps at most
	// MaxChanges of them).
	Files int      `json:"n,omitempty"`
	Flags []string `json:"f,omitempty"`
	// Weight scales the commit's evidence: 1 for an ordinary commit, less
	// for merges, bots, mass and formatting changes.
	Weight float64 `json:"w"`

	// enc is the record's JSON line, made by the walk while git lists
	// the next commits (encodeCommits then only joins and compresses).
	// Set only on a record nothing changes after.
	enc []byte
}

// Change is one path a commit changed.
type Change struct {
	Path string `json:"p"`
	Old  string `json:"o,omitempty"` // the path before a rename
	Kind string `json:"k"`           // A, M, D, R, T, C
	Add  int    `json:"add"`         // lines added, LinesBinary for binary, LinesUnknown when not counted
	Del  int    `json:"del"`         // lines deleted, as Add
}

// Line counts that are not counts (Change.Add and Del).
const (
	LinesBinary  = gitstore.LinesBinary  // a binary file
	LinesUnknown = gitstore.LinesUnknown // not counted yet, or the blobs are absent
)

// Has reports whether c carries flag f.
func (c *Commit) Has(f string) bool {
	for _, x := range c.Flags {
		if x == f {
			return true
		}
	}
	return false
}

// Lines is the lines the commit changed (binary files count 0).
func (c *Commit) Lines() int {
	n := 0
	for _, ch := range c.Changes {
		n += max(ch.Add, 0) + max(ch.Del, 0)
	}
	return n
}

var (
	botRe    = lazyre.New(`(?i)\[bot\]|dependabot|renovate|greenkeeper|snyk-bot|github-actions|pre-commit-ci|mergify|imgbot|allcontributors|semantic-release-bot|codecov`)
	revertRe = lazyre.New(`(?m)^Revert "|^This reverts commit [0-9a-f]{7,40}`)
)

// FromLog makes the record of a commit read by gitstore.Log: the message
// is split, trimmed and passed through the secret filter, and the commit
// is classified and weighted.
func FromLog(lc *gitstore.LogCommit) Commit {
	c := Commit{
		Hash:   lc.Hash.String(),
		Author: clean(lc.AuthorName, 200),
		Email:  clean(lc.AuthorEmail, 200),
		Time:   lc.AuthorTime,
	}
	who := authorFacts(lc.AuthorName, lc.AuthorEmail)
	if who.secret {
		// A credential pasted into user.name or user.email would reach
		// every clone with the memory, as one in a message would.
		c.Author, c.Email = withheldAuthor, ""
		c.Flags = append(c.Flags, FlagSecret)
	}
	for _, p := range lc.Parents {
		c.Parents = append(c.Parents, p.String())
	}
	msg := strings.ReplaceAll(lc.Message, "\r\n", "\n")
	if secret.Contains([]byte(msg)) {
		c.Subject = withheld
		if !c.Has(FlagSecret) {
			c.Flags = append(c.Flags, FlagSecret)
		}
	} else {
		subj, body, _ := strings.Cut(strings.TrimSpace(msg), "\n")
		c.Subject = clean(strings.TrimSpace(subj), MaxSubject)
		c.Body = clean(trimBody(body), MaxBody)
	}
	c.Files = len(lc.Changes)
	for i, ch := range lc.Changes {
		if i >= MaxChanges {
			break
		}
		if !validPath(ch.Path) || (ch.OldPath != "" && !validPath(ch.OldPath)) {
			continue
		}
		// A credential in a path (a token as a file name) is left out, as
		// a message holding one is withheld; Files still counts it.
		if secret.ContainsString(ch.Path) || (ch.OldPath != "" && secret.ContainsString(ch.OldPath)) {
			continue
		}
		c.Changes = append(c.Changes, Change{Path: ch.Path, Old: ch.OldPath, Kind: string(ch.Kind), Add: ch.Added, Del: ch.Deleted})
	}
	classify(&c, lc.Message, len(lc.Parents) > 1, lc.Shallow, who.bot)
	return c
}

// classify sets flags and weight.
func classify(c *Commit, msg string, merge, shallow, bot bool) {
	w := 1.0
	if merge {
		c.Flags = append(c.Flags, FlagMerge)
		w *= 0.2
	}
	if shallow {
		c.Flags = append(c.Flags, FlagShallow)
	}
	if bot {
		c.Flags = append(c.Flags, FlagBot)
		w *= 0.2
	}
	if c.Files > MassFiles {
		c.Flags = append(c.Flags, FlagMass)
		w *= 0.1
	}
	if isFormatting(c, msg) {
		c.Flags = append(c.Flags, FlagFormat)
		w *= 0.1
	}
	if (strings.Contains(msg, "Revert \"") || strings.Contains(msg, "This reverts commit ")) && revertRe.MatchString(msg) {
		c.Flags = append(c.Flags, FlagRevert)
		w *= 0.5
	}
	c.Weight = float64(int(w*1000+0.5)) / 1000
}

// A formatting commit says so in the action its subject names: "gofmt",
// "Reformat code", "style: black", "Fix indentation", "Remove trailing
// whitespace", "lint fixes". A subject that only mentions a format ("new
// chunk format", "fix the log format of X", "bump prettier to 3.5") or a
// tool in passing ("remove leftover fmt.Println") does not: such commits
// change behaviour, and weighing them as formatting would hide them.
var (
	formatTools = `(gofmt|gofumpt|goimports|go ?fmt|cargo ?fmt|rustfmt|prettier|black|isort|autopep8|yapf|ruff ?format|clang-format|standardrb|rubocop -a|eslint --fix|golangci-lint fmt)`
	formatRe    = lazyre.New(`(?i)^(?:` +
		// style: anything (conventional commits' type for formatting)
		`style(?:\([^)]*\))?!?:` +
		// a tool as the action, optionally run or applied
		`|(?:(?:re-?)?run |ran |apply |applied |make )?` + formatTools + `(?:\W|$)` +
		// a formatting verb first
		`|(?:re-?)?format(?:ted|ting|s)?(?: (?:code|sources?|files?|all|everything|with|using|by|according)\b|:|$)` +
		`|re-?format(?:ted|ting|s)?\b|(?:re-?)?indent(?:ed|ation)?\b|whitespace\b|fmt(?::|$)` +
		// fixing, removing or cleaning up formatting, whitespace, style, lint
		`|(?:fix(?:ed|es)?|clean ?up|cleanup|tidy|remove|removed|strip|trim|correct)(?: up)? (?:the |some |minor |more )?` +
		`(?:code |import |go )?(?:format(?:ting)?|whitespace|white space|indentation|indents?|trailing (?:white ?)?spaces?|code style|style)(?: (?:issues?|nits?))?(?:\W*$| in | of (?:the )?(?:code|files?|sources?)\b)` +
		`|lint(?:ing)? fix(?:es)?\b)`)
	// formatPrefix is a conventional-commit type or a path scope before
	// the subject's action ("chore: ", "docs(api): ", "tsdb: ").
	formatPrefix = lazyre.New(`^(?:[\w./-]+(?:\([^)]*\))?!?:\s*)`)
)

// saysFormat reports whether a subject says it is a formatting change
// (formatRe), after a conventional-commit type or scope.
func saysFormat(subj string) bool {
	s := strings.TrimSpace(subj)
	if !mayFormat(s) {
		return false
	}
	if formatRe.MatchString(s) {
		return true
	}
	if loc := formatPrefix.FindStringIndex(s); loc != nil && loc[1] < len(s) {
		return formatRe.MatchString(strings.TrimSpace(s[loc[1]:]))
	}
	return false
}

// formatWords are the words one of which every subject formatRe matches
// contains (each alternative of formatRe holds one).
var formatWords = []string{"style", "fmt", "format", "gofumpt", "goimports", "prettier", "black", "isort", "autopep8", "yapf", "standardrb", "rubocop", "eslint", "indent", "whitespace", "white space", "trailing", "lint"}

// mayFormat reports whether s may match formatRe: it holds one of
// formatWords, in any case. Most subjects hold none, and this is far
// cheaper than the regular expression. A subject with bytes beyond ASCII
// (which case folding may map onto ASCII letters) always may.
func mayFormat(s string) bool {
	var buf [256]byte
	if len(s) > len(buf) {
		return true
	}
	low := buf[:len(s)]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for _, w := range formatWords {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return false
}

// An author is one of a history's few hundred people and bots: what
// FromLog decides about one (authorFacts) is decided once.
type author struct {
	secret bool // the name or email holds a credential (the secret detector)
	bot    bool // the name or email is a bot's (botRe)
}

var (
	authorMu    sync.Mutex
	authorCache = map[string]author{}
)

// authorFacts returns what FromLog needs to know of an author, remembering
// the answer.
func authorFacts(name, email string) author {
	k := name + "\x00" + email
	authorMu.Lock()
	a, ok := authorCache[k]
	authorMu.Unlock()
	if ok {
		return a
	}
	a.secret = secret.Contains([]byte(k))
	a.bot = !a.secret && (botRe.MatchString(name) || botRe.MatchString(email))
	authorMu.Lock()
	if len(authorCache) > 1<<14 {
		clear(authorCache)
	}
	authorCache[k] = a
	authorMu.Unlock()
	return a
}

// isFormatting recognises a formatting-only commit cheaply: its subject
// says so and every change is a modification whose added and deleted line
// counts are close (a reflow moves lines, it does not grow the file).
func isFormatting(c *Commit, msg string) bool {
	subj, _, _ := strings.Cut(msg, "\n")
	if len(c.Changes) == 0 || !saysFormat(subj) {
		return false
	}
	for _, ch := range c.Changes {
		if ch.Kind != "M" || ch.Add < 0 {
			return false
		}
		d := ch.Add - ch.Del
		if d < 0 {
			d = -d
		}
		if d > max(3, (ch.Add+ch.Del)/5) {
			return false
		}
	}
	return true
}

// trimBody drops trailers (Signed-off-by, Co-authored-by, Change-Id, ...)
// and surrounding blank lines.
func trimBody(b string) string {
	lines := strings.Split(strings.TrimSpace(b), "\n")
	out := lines[:0]
	for _, l := range lines {
		k, _, ok := strings.Cut(l, ":")
		if ok && isTrailer(strings.ToLower(strings.TrimSpace(k))) {
			continue
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func isTrailer(k string) bool {
	switch k {
	case "signed-off-by", "co-authored-by", "change-id", "reviewed-by", "reviewed-on", "acked-by",
		"tested-by", "cc", "reported-by", "suggested-by", "helped-by", "pr-url", "git-svn-id":
		return true
	}
	return false
}

// clean bounds s to n bytes of valid UTF-8 without control characters
// other than newline and tab.
func clean(s string, n int) string {
	if !cleanText(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		s = strings.Map(func(r rune) rune {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
				return -1
			}
			return r
		}, s)
	}
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// cleanText reports whether clean would keep every byte of s: valid UTF-8
// without control characters other than newline and tab (nearly every
// name and message, which then need no copy).
func cleanText(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= 0x80:
			ascii = false
		case (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f:
			return false
		}
	}
	return ascii || utf8.ValidString(s)
}

func validPath(p string) bool {
	if p == "" || len(p) > 4096 || strings.HasPrefix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

func validHash(h string) bool {
	return len(h) == 40 && strings.Trim(h, "0123456789abcdef") == ""
}
