package code

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

const fixtureDir = "../../../testdata/sections/code"

// want is one expected section: anchor, symbol kind, name, qualified name
// and line range.
type want struct {
	anchor, symbol, name, qname string
	start, end                  int
}

type fixture struct {
	path     string // under testdata/sections/code
	language string // linguist name given to Split
	sections []want
}

var fixtures = []fixture{
	{"go/server.go", "Go", []want{
		{"preamble", "preamble", "", "", 1, 36},
		{"struct:Server", "struct", "Server", "Server", 12, 18},
		{"func:Server.Start", "method", "Start", "Server.Start", 20, 23},
		{"func:Server.Stop", "method", "Stop", "Server.Stop", 25, 26},
		{"interface:Store", "interface", "Store", "Store", 28, 31},
		{"type:ID", "type", "ID", "ID", 34, 34},
		{"type:Name", "type", "Name", "Name", 35, 35},
		{"func:List.Len", "method", "Len", "List.Len", 38, 39},
		{"func:handle", "function", "handle", "handle", 41, 43},
		{"func:New", "function", "New", "New", 45, 48},
	}},
	{"python/greeter.py", "Python", []want{
		{"preamble", "preamble", "", "", 1, 47},
		{"class:Greeter", "class", "Greeter", "Greeter", 8, 34},
		{"func:Greeter.__init__", "method", "__init__", "Greeter.__init__", 17, 18},
		{"func:Greeter.greet", "method", "greet", "Greeter.greet", 20, 28},
		{"class:Greeter.Config", "class", "Config", "Greeter.Config", 30, 34},
		{"func:Greeter.Config.load", "method", "load", "Greeter.Config.load", 33, 34},
		{"func:lookup", "function", "lookup", "lookup", 37, 41},
		{"func:square", "function", "square", "square", 44, 44},
	}},
	{"javascript/cart.js", "JavaScript", []want{
		{"preamble", "preamble", "", "", 1, 45},
		{"class:Cart", "class", "Cart", "Cart", 5, 25},
		{"func:Cart.add", "method", "add", "Cart.add", 12, 15},
		{"func:Cart.total", "method", "total", "Cart.total", 17, 20},
		{"func:Cart.onClick", "method", "onClick", "Cart.onClick", 22, 24},
		{"func:price", "function", "price", "price", 27, 33},
		{"func:double", "function", "double", "double", 35, 35},
		{"func:legacy", "function", "legacy", "legacy", 37, 39},
		{"class:default", "class", "default", "default", 41, 43},
		{"func:default.run", "method", "run", "default.run", 42, 42},
	}},
	{"typescript/shapes.ts", "TypeScript", []want{
		{"preamble", "preamble", "", "", 1, 53},
		{"interface:Shape", "interface", "Shape", "Shape", 3, 7},
		{"type:Point", "type", "Point", "Point", 9, 9},
		{"enum:Color", "enum", "Color", "Color", 11, 15},
		{"class:Circle", "class", "Circle", "Circle", 17, 37},
		{"func:Circle.constructor", "method", "constructor", "Circle.constructor", 23, 25},
		{"func:Circle.area", "method", "area", "Circle.area", 27, 30},
		{"func:Circle.scale", "method", "scale", "Circle.scale", 34, 36},
		{"class:Base", "class", "Base", "Base", 39, 41},
		{"namespace:Geometry", "namespace", "Geometry", "Geometry", 43, 47},
		{"func:Geometry.distance", "function", "distance", "Geometry.distance", 44, 46},
		{"func:unit", "function", "unit", "unit", 49, 49},
		{"func:external", "function", "external", "external", 51, 51},
	}},
	{"tsx/Button.tsx", "TSX", []want{
		{"preamble", "preamble", "", "", 1, 30},
		{"interface:ButtonProps", "interface", "ButtonProps", "ButtonProps", 3, 7},
		{"func:Button", "function", "Button", "Button", 9, 13},
		{"func:Badge", "function", "Badge", "Badge", 15, 15},
		{"class:Panel", "class", "Panel", "Panel", 17, 28},
		{"func:Panel.toggle", "method", "toggle", "Panel.toggle", 20, 23},
		{"func:Panel.render", "method", "render", "Panel.render", 25, 27},
	}},
	{"java/Account.java", "Java", []want{
		{"preamble", "preamble", "", "", 1, 4},
		{"class:Account", "class", "Account", "Account", 6, 45},
		{"func:Account.Account", "method", "Account", "Account.Account", 14, 17},
		{"func:Account.deposit", "method", "deposit", "Account.deposit", 19, 25},
		{"func:Account.deposit#2", "method", "deposit", "Account.deposit", 27, 29},
		{"func:Account.compareTo", "method", "compareTo", "Account.compareTo", 31, 34},
		{"enum:Account.Kind", "enum", "Kind", "Account.Kind", 36, 44},
		{"func:Account.Kind.isSavings", "method", "isSavings", "Account.Kind.isSavings", 41, 43},
		{"interface:Ledger", "interface", "Ledger", "Ledger", 47, 54},
		{"func:Ledger.size", "method", "size", "Ledger.size", 51, 53},
		{"record:Entry", "record", "Entry", "Entry", 56, 56},
	}},
	{"rust/store.rs", "Rust", []want{
		{"preamble", "preamble", "", "", 1, 6},
		{"struct:Store", "struct", "Store", "Store", 8, 12},
		{"impl:Store", "impl", "Store", "Store", 14, 24},
		{"func:Store.new", "method", "new", "Store.new", 15, 18},
		{"func:Store.get", "method", "get", "Store.get", 20, 23},
		{"impl:Store#2", "impl", "Store", "Store", 26, 30},
		{"func:Store.fmt", "method", "fmt", "Store.fmt", 27, 29},
		{"enum:Error", "enum", "Error", "Error", 32, 36},
		{"trait:Backend", "trait", "Backend", "Backend", 38, 45},
		{"func:Backend.name", "method", "name", "Backend.name", 42, 44},
		{"module:util", "module", "util", "util", 47, 51},
		{"func:util.clamp", "function", "clamp", "util.clamp", 48, 50},
		{"macro:square", "macro", "square", "square", 53, 57},
		{"type:Map", "type", "Map", "Map", 59, 59},
		{"func:main", "function", "main", "main", 61, 64},
	}},
	{"c/list.c", "C", []want{
		{"preamble", "preamble", "", "", 1, 42},
		{"struct:node", "struct", "node", "node", 7, 11},
		{"struct:list", "struct", "list", "list", 13, 16},
		{"enum:color", "enum", "color", "color", 18, 19},
		{"func:push", "function", "push", "push", 23, 31},
		{"func:find", "function", "find", "find", 33, 40},
		{"func:main", "function", "main", "main", 44, 50},
	}},
	{"cpp/shape.cpp", "C++", []want{
		{"preamble", "preamble", "", "", 1, 42},
		{"class:Shape", "class", "Shape", "Shape", 6, 19},
		{"func:Shape.name", "method", "name", "Shape.name", 12, 15},
		{"struct:Square", "struct", "Square", "Square", 21, 25},
		{"func:Square.area", "method", "area", "Square.area", 24, 24},
		{"enum:Color", "enum", "Color", "Color", 27, 27},
		{"func:total", "function", "total", "total", 29, 35},
		{"func:Circle.area", "method", "area", "Circle.area", 37, 40},
		{"func:main", "function", "main", "main", 44, 47},
	}},
	{"csharp/Inventory.cs", "C#", []want{
		{"preamble", "preamble", "", "", 1, 41},
		{"class:Inventory", "class", "Inventory", "Inventory", 6, 25},
		{"func:Inventory.Add", "method", "Add", "Inventory.Add", 13, 18},
		{"func:Inventory.Count", "method", "Count", "Inventory.Count", 20, 20},
		{"func:Inventory.Inventory", "method", "Inventory", "Inventory.Inventory", 22, 24},
		{"interface:IInventory", "interface", "IInventory", "IInventory", 27, 31},
		{"enum:Unit", "enum", "Unit", "Unit", 33, 33},
		{"struct:Item", "struct", "Item", "Item", 35, 38},
		{"record:Sku", "record", "Sku", "Sku", 40, 40},
	}},
	{"ruby/library.rb", "Ruby", []want{
		{"preamble", "preamble", "", "", 1, 49},
		{"module:Library", "module", "Library", "Library", 4, 37},
		{"class:Library.Shelf", "class", "Shelf", "Library.Shelf", 8, 32},
		{"func:Library.Shelf.initialize", "method", "initialize", "Library.Shelf.initialize", 12, 15},
		{"func:Library.Shelf.add", "method", "add", "Library.Shelf.add", 17, 21},
		{"func:Library.Shelf.empty", "method", "empty", "Library.Shelf.empty", 23, 25},
		{"func:Library.Shelf.load", "method", "load", "Library.Shelf.load", 28, 30},
		{"func:Library.version", "function", "version", "Library.version", 34, 36},
		{"class:Library.Catalog", "class", "Catalog", "Library.Catalog", 39, 43},
		{"func:Library.Catalog.size", "method", "size", "Library.Catalog.size", 40, 42},
		{"func:helper", "function", "helper", "helper", 45, 47},
	}},
	{"php/Cart.php", "PHP", []want{
		{"preamble", "preamble", "", "", 1, 52},
		{"class:Cart", "class", "Cart", "Cart", 7, 24},
		{"func:Cart.add", "method", "add", "Cart.add", 14, 18},
		{"func:Cart.count", "method", "count", "Cart.count", 20, 23},
		{"interface:Priced", "interface", "Priced", "Priced", 26, 30},
		{"trait:Discount", "trait", "Discount", "Discount", 32, 38},
		{"func:Discount.discount", "method", "discount", "Discount.discount", 34, 37},
		{"enum:Status", "enum", "Status", "Status", 40, 44},
		{"func:money", "function", "money", "money", 46, 50},
	}},
	{"kotlin/Repo.kt", "Kotlin", []want{
		{"preamble", "preamble", "", "", 1, 3},
		{"class:Repo", "class", "Repo", "Repo", 5, 19},
		{"func:Repo.find", "method", "find", "Repo.find", 9, 12},
		{"func:Repo.save", "method", "save", "Repo.save", 14, 14},
		{"func:Repo.create", "method", "create", "Repo.create", 17, 17},
		{"interface:Store", "interface", "Store", "Store", 21, 24},
		{"class:User", "class", "User", "User", 26, 26},
		{"enum:Role", "enum", "Role", "Role", 28, 28},
		{"object:Registry", "object", "Registry", "Registry", 30, 32},
		{"func:Registry.lookup", "method", "lookup", "Registry.lookup", 31, 31},
		{"func:String.slug", "function", "slug", "String.slug", 34, 35},
		{"func:main", "function", "main", "main", 37, 39},
	}},
	{"swift/Counter.swift", "Swift", []want{
		{"preamble", "preamble", "", "", 1, 48},
		{"class:Counter", "class", "Counter", "Counter", 3, 17},
		{"func:Counter.init", "method", "init", "Counter.init", 7, 10},
		{"func:Counter.increment", "method", "increment", "Counter.increment", 12, 16},
		{"protocol:Countable", "protocol", "Countable", "Countable", 19, 22},
		{"struct:Point", "struct", "Point", "Point", 24, 31},
		{"func:Point.length", "method", "length", "Point.length", 28, 30},
		{"enum:Direction", "enum", "Direction", "Direction", 33, 35},
		{"extension:Point", "extension", "Point", "Point", 37, 41},
		{"func:Point.scaled", "method", "scaled", "Point.scaled", 38, 40},
		{"func:add", "function", "add", "add", 43, 46},
	}},
	{"scala/Shapes.scala", "Scala", []want{
		{"preamble", "preamble", "", "", 1, 3},
		{"trait:Shape", "trait", "Shape", "Shape", 5, 9},
		{"func:Shape.describe", "method", "describe", "Shape.describe", 8, 8},
		{"class:Circle", "class", "Circle", "Circle", 11, 21},
		{"func:Circle.area", "method", "area", "Circle.area", 15, 16},
		{"func:Circle.scale", "method", "scale", "Circle.scale", 18, 20},
		{"class:Square", "class", "Square", "Square", 23, 25},
		{"func:Square.area", "method", "area", "Square.area", 24, 24},
		{"object:Shapes", "object", "Shapes", "Shapes", 27, 29},
		{"func:Shapes.unit", "method", "unit", "Shapes.unit", 28, 28},
		{"enum:Color", "enum", "Color", "Color", 31, 33},
		{"func:total", "function", "total", "total", 35, 35},
	}},
	{"bash/deploy.sh", "Shell", []want{
		{"preamble", "preamble", "", "", 1, 22},
		{"func:log", "function", "log", "log", 6, 9},
		{"func:build", "function", "build", "build", 11, 15},
		{"func:deploy", "function", "deploy", "deploy", 17, 20},
	}},
	{"lua/stack.lua", "Lua", []want{
		{"preamble", "preamble", "", "", 1, 27},
		{"func:Stack.new", "function", "new", "Stack.new", 5, 8},
		{"func:Stack.push", "function", "push", "Stack.push", 10, 13},
		{"func:helper", "function", "helper", "helper", 15, 17},
		{"func:pop", "function", "pop", "pop", 19, 21},
		{"func:M.util.size", "function", "size", "M.util.size", 23, 25},
	}},
	{"elixir/account.ex", "Elixir", []want{
		{"module:Bank.Account", "module", "Account", "Bank.Account", 1, 28},
		{"func:Bank.Account.deposit", "function", "deposit", "Bank.Account.deposit", 10, 16},
		{"func:Bank.Account.balance", "function", "balance", "Bank.Account.balance", 18, 18},
		{"func:Bank.Account.log", "function", "log", "Bank.Account.log", 20, 23},
		{"macro:Bank.Account.debug", "macro", "debug", "Bank.Account.debug", 25, 27},
		{"protocol:Bank.Printable", "protocol", "Printable", "Bank.Printable", 30, 32},
		{"func:Bank.Printable.print", "method", "print", "Bank.Printable.print", 31, 31},
	}},
	{"ocaml/queue.ml", "OCaml", []want{
		{"preamble", "preamble", "", "", 1, 27},
		{"type:t", "type", "t", "t", 4, 5},
		{"func:push", "function", "push", "push", 9, 10},
		{"func:length", "function", "length", "length", 12, 13},
		{"module:Counter", "module", "Counter", "Counter", 15, 19},
		{"func:Counter.incr", "function", "incr", "Counter.incr", 18, 18},
		{"interface:SHOW", "interface", "SHOW", "SHOW", 21, 23},
	}},
	{"protobuf/user.proto", "Protocol Buffer", []want{
		{"preamble", "preamble", "", "", 1, 5},
		{"message:User", "message", "User", "User", 7, 18},
		{"message:User.Address", "message", "Address", "User.Address", 12, 15},
		{"enum:Role", "enum", "Role", "Role", 20, 24},
		{"service:Users", "service", "Users", "Users", 26, 29},
		{"message:GetRequest", "message", "GetRequest", "GetRequest", 31, 33},
	}},
	{"sql/schema.sql", "SQL", []want{
		{"preamble", "preamble", "", "", 1, 25},
		{"table:customers", "table", "customers", "customers", 4, 8},
		{"table:orders", "table", "orders", "orders", 10, 14},
		{"index:orders_customer", "index", "orders_customer", "orders_customer", 16, 16},
		{"view:big_spenders", "view", "big_spenders", "big_spenders", 18, 23},
	}},
	{"hcl/main.tf", "HCL", []want{
		{"terraform:terraform", "terraform", "terraform", "terraform", 1, 3},
		{"provider:aws", "provider", "aws", "aws", 5, 8},
		{"variable:region", "variable", "region", "region", 10, 13},
		{"resource:aws_instance.web", "resource", "aws_instance.web", "aws_instance.web", 15, 23},
		{"locals:locals", "locals", "locals", "locals", 25, 27},
		{"output:ip", "output", "ip", "ip", 29, 31},
	}},
}

func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustSplit(t testing.TB, in section.Input) section.Result {
	t.Helper()
	res, ok, reason := Split(in)
	if !ok {
		t.Fatalf("Split(%s): ok=false reason=%q", in.Path, reason)
	}
	return res
}

// wantParser is the parser that reads a language: go/parser for Go
// (gosplit.go), tree-sitter otherwise.
func wantParser(language string) string {
	if language == "Go" {
		return ParserGo
	}
	return ParserTreeSitter
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.path, func(t *testing.T) {
			src := readFixture(t, fx.path)
			res := mustSplit(t, section.Input{Path: fx.path, Language: fx.language, Content: src})
			if res.Kind != "code" || res.Parser != wantParser(fx.language) || res.Language != fx.language {
				t.Errorf("result kind/parser/language = %q/%q/%q", res.Kind, res.Parser, res.Language)
			}
			got := make([]want, len(res.Sections))
			for i, s := range res.Sections {
				got[i] = want{s.Anchor, s.Symbol, s.Name, s.QName, s.StartLine, s.EndLine}
			}
			n := max(len(got), len(fx.sections))
			for i := 0; i < n; i++ {
				var g, w want
				if i < len(got) {
					g = got[i]
				}
				if i < len(fx.sections) {
					w = fx.sections[i]
				}
				if g != w {
					t.Errorf("section %d:\n got  %+v\n want %+v", i, g, w)
				}
			}
			checkInvariants(t, src, res)
		})
	}
}

// checkInvariants checks what holds for every file: fields filled, line
// ranges nested or disjoint, and every non-blank byte of the file in
// exactly one section's content.
func checkInvariants(t *testing.T, src []byte, res section.Result) {
	t.Helper()
	lines := strings.Count(string(src), "\n") + 1
	for _, s := range res.Sections {
		if s.Kind != "code" || s.Parser != res.Parser || s.Language != res.Language {
			t.Errorf("%s: kind/parser/language = %q/%q/%q", s.Anchor, s.Kind, s.Parser, s.Language)
		}
		if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > lines {
			t.Errorf("%s: bad line range %d-%d of %d", s.Anchor, s.StartLine, s.EndLine, lines)
		}
		if strings.Contains(s.Content, "\r") || !utf8.ValidString(s.Content) || !utf8.ValidString(s.Doc) || !utf8.ValidString(s.Signature) {
			t.Errorf("%s: content has CR or invalid UTF-8", s.Anchor)
		}
		if s.Anchor == "" || strings.TrimSpace(s.Content) == "" {
			t.Errorf("%s: empty anchor or content", s.Anchor)
		}
		if len(s.Signature) > maxSignature {
			t.Errorf("%s: signature longer than %d", s.Anchor, maxSignature)
		}
		if s.Topics != nil || s.Summary != "" || s.LexHash != "" || s.EmbHash != "" || s.Chunks != nil {
			t.Errorf("%s: fields of the finishing step are set", s.Anchor)
		}
	}
	// Definition sections: ranges are nested or disjoint; each direct
	// member leaves one marker line in its container.
	defs := []memory.Section{}
	for _, s := range res.Sections {
		if s.Symbol != "preamble" {
			defs = append(defs, s)
		}
	}
	markers := 0
	for i, a := range defs {
		for j, b := range defs {
			if i == j {
				continue
			}
			inside := b.StartLine >= a.StartLine && b.EndLine <= a.EndLine
			apart := b.StartLine > a.EndLine || b.EndLine < a.StartLine
			if !inside && !apart && !(b.StartLine <= a.StartLine && b.EndLine >= a.EndLine) {
				t.Errorf("sections %s [%d-%d] and %s [%d-%d] overlap", a.Anchor, a.StartLine, a.EndLine, b.Anchor, b.StartLine, b.EndLine)
			}
		}
	}
	for i, b := range defs {
		// direct parent: the smallest earlier section containing b
		for k := i - 1; k >= 0; k-- {
			a := defs[k]
			if b.StartLine >= a.StartLine && b.EndLine <= a.EndLine {
				if !strings.HasPrefix(b.QName, a.QName+".") {
					t.Errorf("%s nested in %s but qname %q lacks its prefix", b.Anchor, a.Anchor, b.QName)
				}
				markers++
				break
			}
		}
	}
	// Line ownership: a definition owns the lines of its range not inside
	// a member's range, the preamble its non-blank lines outside every
	// definition. No line may have two owners.
	owner := map[int]string{}
	srcLines := strings.Split(strings.ReplaceAll(strings.TrimPrefix(string(src), "\ufeff"), "\r", ""), "\n")
	for i, a := range defs {
		for l := a.StartLine; l <= a.EndLine; l++ {
			member := false
			for j, b := range defs {
				if j != i && b.StartLine >= a.StartLine && b.EndLine <= a.EndLine && l >= b.StartLine && l <= b.EndLine &&
					!(b.StartLine == a.StartLine && b.EndLine == a.EndLine) {
					member = true
					break
				}
			}
			if member {
				continue
			}
			if o, ok := owner[l]; ok {
				t.Errorf("line %d indexed twice: %s and %s", l, o, a.Anchor)
			}
			owner[l] = a.Anchor
		}
	}
	for _, s := range res.Sections {
		if s.Symbol != "preamble" {
			continue
		}
		for l := s.StartLine; l <= s.EndLine && l <= len(srcLines); l++ {
			if strings.TrimSpace(srcLines[l-1]) == "" {
				continue
			}
			if _, inDef := owner[l]; inDef {
				continue // a definition's line: its own section has it
			}
			owner[l] = s.Anchor
			if !strings.Contains(s.Content, strings.TrimRight(srcLines[l-1], " \t")) {
				t.Errorf("preamble lacks line %d %q", l, srcLines[l-1])
			}
		}
	}
	for l, text := range srcLines {
		if strings.TrimSpace(text) != "" {
			if _, ok := owner[l+1]; !ok {
				inside := false
				for _, d := range defs {
					if l+1 >= d.StartLine && l+1 <= d.EndLine {
						inside = true
					}
				}
				if !inside {
					t.Errorf("line %d %q in no section", l+1, text)
				}
			}
		}
	}

	// Every non-blank byte once: count non-space bytes.
	var total int
	for _, s := range res.Sections {
		total += nonSpace(s.Content)
	}
	total -= markers * len(Marker)
	if want := nonSpace(strings.TrimPrefix(string(src), "\ufeff")); total != want {
		t.Errorf("sections hold %d non-blank bytes, file has %d (text lost or indexed twice)", total, want)
	}
}

func nonSpace(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			n++
		}
	}
	return n
}
