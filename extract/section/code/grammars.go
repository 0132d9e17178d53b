package code

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/elixir"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/hcl"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/ocaml"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/protobuf"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/sql"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	lua "github.com/konteks/git-konteks/third_party/tree-sitter-lua"
)

// queryFS holds one tags-style query per grammar, queries/<key>.scm. The
// queries are the maintained description of what a section is in each
// language; see queries/README.md for the capture names.
//
//go:embed queries/*.scm
var queryFS embed.FS

// grammar is one tree-sitter language with its definitions query. The
// language and the compiled query are made once, on first use.
type grammar struct {
	key      string   // grammar key, also the query file name: "go" -> queries/go.scm
	queryKey string   // query file when shared with another grammar (TSX uses typescript.scm)
	language string   // linguist name reported for the grammar
	aliases  []string // further linguist names that use this grammar
	exts     []string // file extensions (with dot) used when the linguist name is missing
	get      func() *sitter.Language

	// maxDepth, when not 0, is the deepest level below the root where a
	// query match may start: all of the grammar's definitions and their doc
	// comments sit at most that deep (Go: source_file > type_declaration >
	// type_spec), so function bodies need not be walked.
	maxDepth uint32

	once    sync.Once
	lang    *sitter.Language
	query   *sitter.Query
	caps    []capRole     // by capture index
	preds   [][]predicate // by pattern index
	initErr error
	parsers sync.Pool // *sitter.Parser with lang set
}

type capRole struct {
	// "def", "name", "receiver", "body", "kind", "doc", "comment", "attr",
	// "wrapper"; "" for helper captures used only by predicates.
	role string
	kind string // symbol kind, for role "def"
}

// predicate is a compiled #eq?, #not-eq?, #match?, #not-match? or #any-of?
// on one capture.
type predicate struct {
	op      string
	capture uint32
	values  []string
	re      *regexp.Regexp
}

var grammars = []*grammar{
	{key: "go", language: "Go", exts: []string{".go"}, get: golang.GetLanguage, maxDepth: 2},
	{key: "python", language: "Python", exts: []string{".py", ".pyi", ".pyw"}, get: python.GetLanguage},
	{key: "javascript", language: "JavaScript", aliases: []string{"JSX"}, exts: []string{".js", ".mjs", ".cjs", ".jsx"}, get: javascript.GetLanguage},
	{key: "typescript", language: "TypeScript", exts: []string{".ts", ".mts", ".cts"}, get: typescript.GetLanguage},
	{key: "tsx", queryKey: "typescript", language: "TSX", exts: []string{".tsx"}, get: tsx.GetLanguage},
	{key: "java", language: "Java", exts: []string{".java"}, get: java.GetLanguage},
	{key: "rust", language: "Rust", exts: []string{".rs"}, get: rust.GetLanguage},
	{key: "c", language: "C", exts: []string{".c", ".h"}, get: c.GetLanguage},
	{key: "cpp", language: "C++", exts: []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tpp"}, get: cpp.GetLanguage},
	{key: "csharp", language: "C#", exts: []string{".cs"}, get: csharp.GetLanguage},
	{key: "ruby", language: "Ruby", exts: []string{".rb", ".rake", ".gemspec"}, get: ruby.GetLanguage},
	{key: "php", language: "PHP", exts: []string{".php", ".phtml"}, get: php.GetLanguage},
	{key: "kotlin", language: "Kotlin", exts: []string{".kt", ".kts"}, get: kotlin.GetLanguage},
	{key: "swift", language: "Swift", exts: []string{".swift"}, get: swift.GetLanguage},
	{key: "scala", language: "Scala", exts: []string{".scala", ".sc"}, get: scala.GetLanguage},
	{key: "bash", language: "Shell", exts: []string{".sh", ".bash"}, get: bash.GetLanguage},
	{key: "lua", language: "Lua", exts: []string{".lua"}, get: lua.GetLanguage},
	{key: "elixir", language: "Elixir", exts: []string{".ex", ".exs"}, get: elixir.GetLanguage},
	{key: "ocaml", language: "OCaml", exts: []string{".ml"}, get: ocaml.GetLanguage},
	{key: "protobuf", language: "Protocol Buffer", exts: []string{".proto"}, get: protobuf.GetLanguage},
	{key: "sql", language: "SQL", exts: []string{".sql"}, get: sql.GetLanguage},
	{key: "hcl", language: "HCL", exts: []string{".hcl", ".tf", ".tfvars", ".nomad"}, get: hcl.GetLanguage, maxDepth: 2},
}

var (
	byKey  = map[string]*grammar{}
	byName = map[string]*grammar{}
	byExt  = map[string]*grammar{}
)

func init() {
	for _, g := range grammars {
		byKey[g.key] = g
		byName[strings.ToLower(g.language)] = g
		for _, a := range g.aliases {
			byName[strings.ToLower(a)] = g
		}
		for _, e := range g.exts {
			if _, dup := byExt[e]; !dup {
				byExt[e] = g
			}
		}
	}
}

// Languages lists the linguist language names this package has a grammar
// for, sorted.
func Languages() []string {
	out := make([]string, 0, len(grammars))
	for _, g := range grammars {
		out = append(out, g.language)
	}
	sort.Strings(out)
	return out
}

// LanguageFor maps a path and its go-enry language name to the grammar key
// used ("" if none). The linguist name wins when it is known (enry already
// tells C from C++ in .h files by content); a .tsx path always gets the TSX
// grammar; with no linguist name the extension decides. A known linguist
// name without a grammar here ("Objective-C", "Markdown") gives "".
func LanguageFor(p, language string) string {
	ext := strings.ToLower(path.Ext(p))
	if ext == ".mli" {
		return "" // OCaml interfaces need the interface grammar, which is not bundled
	}
	if ext == ".tsx" && (language == "" || language == "TypeScript" || language == "TSX") {
		return "tsx"
	}
	if language != "" {
		if g, ok := byName[strings.ToLower(language)]; ok {
			return g.key
		}
		return ""
	}
	if g, ok := byExt[ext]; ok {
		return g.key
	}
	switch strings.ToLower(path.Base(p)) {
	case "rakefile", "gemfile", "guardfile", "vagrantfile":
		return "ruby"
	case ".bashrc", ".bash_profile", ".profile", "pkgbuild":
		return "bash"
	}
	return ""
}

// load compiles the grammar's query once.
func (g *grammar) load() error {
	g.once.Do(func() {
		g.lang = g.get()
		qk := g.key
		if g.queryKey != "" {
			qk = g.queryKey
		}
		src, err := queryFS.ReadFile("queries/" + qk + ".scm")
		if err != nil {
			g.initErr = err
			return
		}
		q, err := sitter.NewQuery(src, g.lang)
		if err != nil {
			g.initErr = fmt.Errorf("query %s.scm: %w", g.key, err)
			return
		}
		g.query = q
		n := q.CaptureCount()
		g.caps = make([]capRole, n)
		for i := uint32(0); i < n; i++ {
			name := q.CaptureNameForId(i)
			switch {
			case strings.HasPrefix(name, "definition."):
				g.caps[i] = capRole{role: "def", kind: strings.TrimPrefix(name, "definition.")}
			case name == "name", name == "receiver", name == "body", name == "kind",
				name == "doc", name == "comment", name == "attr", name == "wrapper", name == "skip":
				g.caps[i] = capRole{role: name}
			}
		}
		pc := q.PatternCount()
		g.preds = make([][]predicate, pc)
		for i := uint32(0); i < pc; i++ {
			for _, steps := range q.PredicatesForPattern(i) {
				p, err := compilePredicate(q, steps)
				if err != nil {
					g.initErr = fmt.Errorf("query %s.scm pattern %d: %w", g.key, i, err)
					return
				}
				g.preds[i] = append(g.preds[i], p)
			}
		}
		g.parsers.New = func() any {
			p := sitter.NewParser()
			p.SetLanguage(g.lang)
			return p
		}
	})
	return g.initErr
}

func compilePredicate(q *sitter.Query, steps []sitter.QueryPredicateStep) (predicate, error) {
	// steps: op, args..., done
	if len(steps) < 3 || steps[0].Type != sitter.QueryPredicateStepTypeString || steps[1].Type != sitter.QueryPredicateStepTypeCapture {
		return predicate{}, fmt.Errorf("unsupported predicate shape")
	}
	p := predicate{op: q.StringValueForId(steps[0].ValueId), capture: steps[1].ValueId}
	for _, s := range steps[2:] {
		if s.Type == sitter.QueryPredicateStepTypeString {
			p.values = append(p.values, q.StringValueForId(s.ValueId))
		} else if s.Type == sitter.QueryPredicateStepTypeCapture {
			return predicate{}, fmt.Errorf("capture-to-capture predicates are not supported")
		}
	}
	switch p.op {
	case "eq?", "not-eq?":
		if len(p.values) != 1 {
			return predicate{}, fmt.Errorf("#%s wants one value", p.op)
		}
	case "match?", "not-match?":
		if len(p.values) != 1 {
			return predicate{}, fmt.Errorf("#%s wants one value", p.op)
		}
		re, err := regexp.Compile(p.values[0])
		if err != nil {
			return predicate{}, err
		}
		p.re = re
	case "any-of?":
	default:
		return predicate{}, fmt.Errorf("unsupported predicate #%s", p.op)
	}
	return p, nil
}

// holds reports whether the predicate is true of the captured node's text.
func (p *predicate) holds(text []byte) bool {
	switch p.op {
	case "eq?":
		return string(text) == p.values[0]
	case "not-eq?":
		return string(text) != p.values[0]
	case "match?":
		return p.re.Match(text)
	case "not-match?":
		return !p.re.Match(text)
	case "any-of?":
		for _, v := range p.values {
			if string(text) == v {
				return true
			}
		}
		return false
	}
	return false
}
