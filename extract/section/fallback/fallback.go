// Package fallback sections source code without a parser: where no
// tree-sitter grammar fits a file, or parsing it failed, recognisable
// declaration lines delimit sections.
//
// A declaration is a line at low indentation (at most MaxIndent columns, a
// tab counting as four) that starts like a definition in one of the common
// languages: func, def, class, function, fn, sub, proc, module, interface,
// struct, impl, trait, enum, a modifier-led method ("public static int
// f(") or, at column 1, a C-style "type name(" definition. Comment,
// decorator and attribute lines directly above a declaration belong to its
// section (and the comment text is its Doc). A declaration indented under
// a container (class, impl, trait, module, ...) is qualified by it:
// "Stack.push".
//
// Each section runs to the line before the next declaration's section;
// lines before the first one are the "preamble". Anchors are name-based,
// "decl:Stack.push", with "#2", "#3", ... for repeated names (overloads),
// so they survive edits elsewhere in the file.
package fallback

import (
	"bytes"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/memory"
)

// MaxIndent is the deepest indentation, in columns, at which a line can
// start a declaration.
const MaxIndent = 8

// scanPrefix is how much of a line is examined; declarations fit in it,
// and minified lines thousands of columns long cost nothing more.
const scanPrefix = 256

type decl struct {
	line      int // the declaration line
	start     int // first line of its section (leading comments)
	indent    int
	symbol    string
	name      string
	qname     string
	scope     string // what declarations nested in it are qualified by, if not qname
	container bool
	signature string
	doc       string
}

// Split sections in by declaration lines. reason says why no parser was
// used; it becomes Result.Fallback. Sections have Kind "code" and Parser
// "fallback". A file with no recognisable declaration is one section
// (Symbol and Anchor "file"); an empty or blank file has none.
func Split(in section.Input, reason string) section.Result {
	res := section.Result{Kind: "code", Language: in.Language, Parser: "fallback", Fallback: reason}
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	total := lines.Count()
	var anchors section.AnchorSet
	add := func(s memory.Section) {
		s.Kind = "code"
		s.Parser = "fallback"
		s.Language = in.Language
		s.Anchor = anchors.Add(s.Anchor)
		res.Sections = append(res.Sections, s)
	}

	var decls []decl
	type open struct {
		indent int
		qname  string
	}
	var stack []open // enclosing containers
	prevLine := 0
	for n := 1; n <= total; n++ {
		raw := src[lines.Start(n):lines.End(n)]
		if len(raw) > scanPrefix {
			raw = raw[:scanPrefix]
		}
		indent, text := measure(raw)
		if indent > MaxIndent || len(text) == 0 {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent && !keepsContainer(text) {
			stack = stack[:len(stack)-1]
		}
		if !candidate(text, indent, len(stack) > 0) {
			continue
		}
		d, ok := match(text, indent)
		if !ok && len(stack) > 0 {
			// Inside a class body, "name(args) {" is a method (JS, TS,
			// Dart, Java constructors, C++ inline members).
			d, ok = memberMatch(text)
		}
		if !ok {
			continue
		}
		d.line = n
		d.indent = indent
		if d.qname == "" {
			d.qname = d.name
			if len(stack) > 0 {
				d.qname = stack[len(stack)-1].qname + "." + d.name
				if d.symbol == "function" {
					d.symbol = "method"
				}
			}
		}
		if d.container {
			scope := d.scope
			if scope == "" {
				scope = d.qname
			}
			stack = append(stack, open{indent, scope})
		}
		d.start, d.doc = leading(src, lines, n, prevLine)
		prevLine = n
		decls = append(decls, d)
	}

	res.Sections = make([]memory.Section, 0, len(decls)+1)
	if len(decls) == 0 {
		if from, to := lines.TrimBlank(src, 1, total); from <= to {
			add(memory.Section{Anchor: "file", Symbol: "file", StartLine: 1, EndLine: total,
				Content: lines.Text(src, 1, total)})
		}
		return res
	}
	if from, to := lines.TrimBlank(src, 1, decls[0].start-1); from <= to {
		add(memory.Section{Anchor: "preamble", Symbol: "preamble", StartLine: from, EndLine: to,
			Content: lines.Text(src, from, to)})
	}
	for i, d := range decls {
		end := total
		if i+1 < len(decls) {
			end = decls[i+1].start - 1
		}
		_, end = lines.TrimBlank(src, d.start, end)
		end = max(end, d.line)
		doc := d.doc
		if doc == "" {
			doc = docstring(src, lines, d.line+1, end)
		}
		add(memory.Section{
			Anchor:    "decl:" + d.qname,
			Symbol:    d.symbol,
			Name:      d.name,
			QName:     d.qname,
			Signature: d.signature,
			Doc:       doc,
			StartLine: d.start,
			EndLine:   end,
			Content:   lines.Text(src, d.start, end),
		})
	}
	return res
}

// measure returns a line's indentation in columns (tab = 4) and its text
// after the indentation, without trailing spaces or CR.
func measure(raw []byte) (int, []byte) {
	indent := 0
	i := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case ' ':
			indent++
		case '\t':
			indent += 4
		default:
			return indent, bytes.TrimRight(raw[i:], " \t\r")
		}
	}
	return indent, nil
}

// leading finds the comment, decorator and attribute lines directly above
// declaration line n (not reaching prev, the previous declaration) and
// returns the first line of the section and the comment text as its doc.
func leading(src []byte, lines *section.LineIndex, n, prev int) (int, string) {
	start := n
	for start-1 > prev && start > n-40 {
		_, t := measure(src[lines.Start(start-1):lines.End(start-1)])
		if !isAttribute(t) && !isComment(t) {
			break
		}
		start--
	}
	var doc []string
	for i := start; i < n; i++ {
		_, t := measure(src[lines.Start(i):lines.End(i)])
		if !isAttribute(t) && isComment(t) {
			if s := commentText(string(t)); s != "" {
				doc = append(doc, s)
			}
		}
	}
	return start, strings.Join(doc, "\n")
}

func isComment(t []byte) bool {
	if len(t) == 0 {
		return false
	}
	for _, p := range []string{"//", "/*", "*", "--", ";", "'''", `"""`, "(*", "{-", "%", "rem ", "REM "} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	// '#' is a comment unless it starts a C preprocessor line (#include).
	return t[0] == '#' && (len(t) == 1 || !isLetter(t[1]) || bytes.HasPrefix(t, []byte("#region")))
}

func isAttribute(t []byte) bool {
	return len(t) > 1 && (t[0] == '@' && isLetter(t[1]) || // decorators, annotations
		bytes.HasPrefix(t, []byte("#[")) || bytes.HasPrefix(t, []byte("#![")) || // Rust attributes
		t[0] == '[' && t[len(t)-1] == ']' && isLetter(t[1])) // C# attributes
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

// commentText strips a comment line's markers.
func commentText(s string) string {
	s = strings.TrimSpace(s)
	for _, m := range []string{"///", "//!", "//", "/**", "/*", "*/", "(*", "{-", "--", ";;", ";", "##", "#", "*", "%", `"""`, "'''", "rem ", "REM "} {
		if strings.HasPrefix(s, m) {
			s = s[len(m):]
			break
		}
	}
	for _, m := range []string{"*/", "*)", "-}", `"""`, "'''"} {
		s = strings.TrimSuffix(strings.TrimSpace(s), m)
	}
	return strings.TrimSpace(s)
}

// docstring reads a Python-style docstring on the lines right after a
// declaration.
func docstring(src []byte, lines *section.LineIndex, from, to int) string {
	if from > to {
		return ""
	}
	_, t := measure(src[lines.Start(from):lines.End(from)])
	var q string
	switch {
	case bytes.HasPrefix(t, []byte(`"""`)), bytes.HasPrefix(t, []byte(`r"""`)):
		q = `"""`
	case bytes.HasPrefix(t, []byte(`'''`)):
		q = `'''`
	default:
		return ""
	}
	var out []string
	for n := from; n <= to && n < from+30; n++ {
		_, t := measure(src[lines.Start(n):lines.End(n)])
		s := string(t)
		if n == from {
			s = strings.TrimPrefix(strings.TrimPrefix(s, "r"), q)
		}
		closed := strings.Contains(s, q)
		if i := strings.Index(s, q); i >= 0 {
			s = s[:i]
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
		if closed {
			break
		}
	}
	return strings.Join(out, "\n")
}

// ---- declaration patterns ----

const (
	mods = `(?:(?:export|default|public|private|protected|internal|static|final|abstract|sealed|` +
		`open|override|virtual|async|unsafe|extern|inline|partial|readonly|synchronized|native|` +
		`data|case|value|inner|annotation|enum|fileprivate|mutating|suspend|operator|infix|tailrec|` +
		`const|local|pub(?:\([^)]*\))?|declare|@\w+)\s+)*`
	name = `([A-Za-z_$][\w$]*)`
	// qualified is a name with . or :: parts: Foo, a.b.C, std::vector.
	qualified = `([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)`
)

var (
	// Go: func Name(, func (r *T) Name(, func (T[K]) Name[T any](.
	reGoFunc = lazyre.New(`^func\s+(?:\(\s*(?:\w+\s+)?\*?\s*(\w+)(?:\[[^\]]*\])?\s*\)\s*)?(\w+)\s*[\[(]`)
	// Go: type Name struct / interface / other.
	reGoType = lazyre.New(`^type\s+(\w+)(?:\[[^\]]*\])?\s+(struct|interface)?`)
	// Python, Ruby, Elixir, Scala, Groovy: def name, def self.name, defp name.
	reDef = lazyre.New(`^(?:async\s+)?(?:def|defp|defmacro|defmacrop)\s+(?:self\.)?([A-Za-z_][\w]*[?!=]?)`)
	// Elixir modules.
	reDefmodule = lazyre.New(`^defmodule\s+([\w.]+)`)
	// Classes and friends, with modifiers.
	reContainer = lazyre.New(`^` + mods + `(class|interface|trait|struct|enum|object|protocol|record|union|module|mod|namespace|extension|actor)\s+` + qualified)
	// Rust impl blocks: impl Foo, impl<T> Trait for Foo<T>.
	reImpl = lazyre.New(`^(?:unsafe\s+)?impl(?:\s*<[^{]*?>)?\s+([^{]+?)\s*(?:where\b.*)?\{?$`)
	// Rust, Kotlin, Swift, Zig, JS and friends: fn / fun / func / function.
	reFn = lazyre.New(`^` + mods + `(?:extern\s+"[^"]*"\s+)?(?:function|func|fun|fn)\b\s*\*?\s*&?(?:<[^>]*>\s*)?([A-Za-z_$][\w$]*(?:(?:\.|::?)[A-Za-z_$][\w$]*)*)`)
	// JS/TS: const name = (...) => / function / async x =>.
	reArrow = lazyre.New(`^(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>)`)
	// Perl sub, Tcl/Nim proc.
	reSub = lazyre.New(`^(?:sub|proc|method)\s+([\w:]+)`)
	// Type aliases: type Name = (TS, Rust, Swift...).
	reTypeAlias = lazyre.New(`^` + mods + `type(?:alias)?\s+` + name + `\s*(?:<[^=]*>)?\s*=`)
	// SQL DDL.
	reSQL = lazyre.New(`(?i)^create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?(table|view|function|procedure|trigger|index|type|schema)\s+(?:if\s+not\s+exists\s+)?([\w."]+)`)
	// Shell functions: name() {, function name {.
	reShell = lazyre.New(`^(?:function\s+([A-Za-z_][\w.:-]*)\s*(?:\(\))?\s*\{|([A-Za-z_][\w.:-]*)\s*\(\)\s*\{)`)
	// What follows "struct foo" when it is a return type: "*make(", "bar(".
	reReturnsType = lazyre.New(`^\s*\**\s*\w+\s*\(`)
	// Modifier-led methods: public static int foo(.
	reMethod = lazyre.New(`^(?:(?:public|private|protected|internal|static|final|abstract|synchronized|native|virtual|override|async|sealed|extern|inline|unsafe|partial|new|readonly|def)\s+)+[\w<>\[\],.?*&:\s]*?([A-Za-z_][\w]*)\s*(?:<[^>]*>)?\s*\(`)
	// C-style definitions at column 1: int main(, static void *foo(, Foo::bar(.
	reCFunc = lazyre.New(`^[A-Za-z_][\w*&:<>,\s]*?[\s*&]\**(~?[A-Za-z_][\w:~]*)\s*\(`)
)

var containerSymbol = map[string]string{
	"class": "class", "interface": "interface", "protocol": "interface", "trait": "trait",
	"struct": "type", "record": "type", "union": "type", "object": "class", "actor": "class",
	"enum": "enum", "module": "module", "mod": "module", "namespace": "module",
	"extension": "impl",
}

// notType are words that cannot begin a C-style definition line.
var notType = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "else": true,
	"case": true, "do": true, "goto": true, "throw": true, "new": true, "delete": true,
	"export": true, "import": true, "from": true, "await": true, "yield": true, "typedef": true,
	"echo": true, "print": true, "puts": true, "assert": true, "raise": true, "sizeof": true,
	"using": true, "namespace": true, "template": true, "define": true, "let": true, "var": true,
	"const": true, "elif": true, "until": true, "unless": true, "when": true, "not": true,
	"and": true, "or": true, "in": true, "is": true, "then": true, "local": true, "defer": true,
	"go": true, "select": true,
}

// starters are the first words of lines that the keyword patterns of
// match can recognise.
var starters = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`func type typealias def defp defmacro defmacrop async defmodule
		impl unsafe class interface trait struct enum object protocol record union module mod
		namespace extension actor fn fun function sub proc method const let var export default
		public private protected internal static final abstract sealed open override virtual
		extern inline partial readonly synchronized native data case value inner annotation
		fileprivate mutating suspend operator infix tailrec local pub declare new create CREATE Create`) {
		m[w] = true
	}
	return m
}()

// candidate is a cheap test that lets most lines of a body skip the
// regular expressions of match: only lines whose first word can start a
// declaration, or that have the shape of a C-style definition, a shell
// function or a class member, go on.
func candidate(t []byte, indent int, inContainer bool) bool {
	if starters[firstWord(t)] || t[0] == '@' {
		return true
	}
	paren := bytes.IndexByte(t, '(')
	if paren < 0 {
		return false
	}
	last := t[len(t)-1]
	return bytes.Contains(t, []byte("()")) ||
		indent == 0 && last != ';' && last != ',' ||
		inContainer && last == '{'
}

// match recognises a declaration in a line's text (after indentation).
func match(t []byte, indent int) (decl, bool) {
	sig := signature(t)
	if m := reGoFunc.FindSubmatch(t); m != nil {
		d := decl{symbol: "function", name: string(m[2]), signature: sig}
		if len(m[1]) > 0 {
			d.symbol = "method"
			d.qname = string(m[1]) + "." + d.name
		}
		return d, true
	}
	if m := reGoType.FindSubmatch(t); m != nil && !bytes.Contains(t, []byte("=")) {
		sym := "type"
		if string(m[2]) == "interface" {
			sym = "interface"
		}
		return decl{symbol: sym, name: string(m[1]), signature: sig}, true
	}
	if m := reDef.FindSubmatch(t); m != nil {
		return decl{symbol: "function", name: string(m[1]), signature: sig}, true
	}
	if m := reDefmodule.FindSubmatch(t); m != nil {
		return decl{symbol: "module", name: string(m[1]), signature: sig, container: true}, true
	}
	if m := reImpl.FindSubmatch(t); m != nil {
		what := strings.Join(strings.Fields(string(m[1])), " ")
		return decl{symbol: "impl", name: what, qname: "impl " + what, scope: implTarget(what),
			signature: sig, container: true}, true
	}
	if m := reContainer.FindSubmatchIndex(t); m != nil && !bytes.HasSuffix(t, []byte(";")) &&
		!reReturnsType.Match(t[m[1]:]) {
		kw, nm := string(t[m[2]:m[3]]), string(t[m[4]:m[5]])
		return decl{symbol: containerSymbol[kw], name: nm, signature: sig, container: true}, true
	}
	if m := reFn.FindSubmatch(t); m != nil {
		return qualify(decl{symbol: "function", name: string(m[1]), signature: sig}), true
	}
	if m := reArrow.FindSubmatch(t); m != nil {
		return decl{symbol: "function", name: string(m[1]), signature: sig}, true
	}
	if m := reSub.FindSubmatch(t); m != nil {
		return decl{symbol: "function", name: string(m[1]), signature: sig}, true
	}
	if m := reTypeAlias.FindSubmatch(t); m != nil {
		return decl{symbol: "type", name: string(m[1]), signature: sig}, true
	}
	if m := reSQL.FindSubmatch(t); m != nil {
		return decl{symbol: strings.ToLower(string(m[1])), name: strings.Trim(string(m[2]), `"`), signature: sig}, true
	}
	if bytes.HasSuffix(t, []byte(";")) || bytes.HasSuffix(t, []byte(",")) {
		return decl{}, false // a statement or a prototype, not a definition
	}
	if m := reShell.FindSubmatch(t); m != nil {
		return decl{symbol: "function", name: string(m[1]) + string(m[2]), signature: sig}, true
	}
	first := firstWord(t)
	if notType[first] {
		return decl{}, false
	}
	if m := reMethod.FindSubmatch(t); m != nil && beforeParen(t) {
		return decl{symbol: "function", name: string(m[1]), signature: sig}, true
	}
	if indent == 0 {
		if m := reCFunc.FindSubmatch(t); m != nil && beforeParen(t) && !notType[lastWord(m[1])] {
			name := string(m[1])
			d := decl{symbol: "function", name: name, signature: sig}
			if i := strings.LastIndex(name, "::"); i > 0 {
				d.name = name[i+2:]
				d.qname = strings.ReplaceAll(name, "::", ".")
				d.symbol = "method"
			}
			return d, true
		}
	}
	return decl{}, false
}

// reMember is a method in a class body: name(args) {, async name() {,
// static *gen() {, get size(): number {.
var reMember = lazyre.New(`^(?:(?:async|static|get|set|public|private|protected|override|readonly)\s+|\*\s*)*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\([^)]*\)\s*(?::\s*[^{=]+)?\{$`)

func memberMatch(t []byte) (decl, bool) {
	m := reMember.FindSubmatch(t)
	if m == nil || notType[string(m[1])] || controlWords[string(m[1])] {
		return decl{}, false
	}
	return decl{symbol: "function", name: string(m[1]), signature: signature(t)}, true
}

var controlWords = map[string]bool{"catch": true, "function": true, "constructor": false, "super": true}

// keepsContainer reports a line that does not end the enclosing container
// even at its indentation: comments, preprocessor lines and C++ access
// labels ("public:").
func keepsContainer(t []byte) bool {
	if isComment(t) || t[0] == '#' {
		return true
	}
	switch string(t) {
	case "public:", "private:", "protected:":
		return true
	}
	return false
}

// qualify splits a dotted or colon-qualified name (Lua "M.g", "M:g",
// Kotlin extension "String.pad", C++ "Foo::bar") into its last part as the
// name and the whole, dot-separated, as the qualified name.
func qualify(d decl) decl {
	q := strings.NewReplacer("::", ".", ":", ".").Replace(d.name)
	if i := strings.LastIndexByte(q, '.'); i > 0 && i < len(q)-1 {
		d.name, d.qname = q[i+1:], q
		if d.symbol == "function" {
			d.symbol = "method"
		}
	}
	return d
}

// beforeParen reports that nothing before the first '(' makes the line an
// assignment or a call chain rather than a definition.
func beforeParen(t []byte) bool {
	i := bytes.IndexByte(t, '(')
	if i < 0 {
		return false
	}
	return !bytes.ContainsAny(t[:i], "=.\"'")
}

func firstWord(t []byte) string {
	i := 0
	for i < len(t) && (isLetter(t[i]) || t[i] >= '0' && t[i] <= '9') {
		i++
	}
	return string(t[:i])
}

func lastWord(name []byte) string {
	if i := bytes.LastIndexAny(name, ":~"); i >= 0 {
		return string(name[i+1:])
	}
	return string(name)
}

// implTarget is the type an impl block is for: "Foo" in "impl<T> Display
// for Foo<T>", "Foo" in "impl Foo".
func implTarget(s string) string {
	if i := strings.LastIndex(s, " for "); i >= 0 {
		s = s[i+5:]
	}
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "<({ "); i > 0 {
		s = s[:i]
	}
	return s
}

// signature is the declaration line without a trailing opening brace or
// colon, bounded in length.
func signature(t []byte) string {
	s := strings.TrimSpace(string(t))
	s = strings.TrimSpace(strings.TrimSuffix(s, "{"))
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
