package code

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/konteks/git-konteks/extract/section"
)

// Go files are read with the standard library's go/parser instead of
// tree-sitter: about five times faster on Go code (tree-sitter's parse was
// ~85% of a full extraction's sectioning time on the Go tree), with
// sections identical to those queries/go.scm gives. That is proved file by
// file on real code (TestGoParserMatchesTreeSitter, all of $GOROOT/src):
// splitGo finds the same definitions, comments and wrappers the query
// captures, and hands them to the same splitter, which widens, nests and
// renders them as for every other language.
//
// What the query sees is reproduced exactly:
//   - definitions: top-level functions; methods whose receiver type is T,
//     *T, T[...] or *T[...]; type specs of a top-level type declaration
//     (struct, interface, other; aliases are "type"); a top-level
//     `var name = func(...) {...}` without parentheses (in `var (...)` the
//     spec sits one level deeper than the query's depth bound, see
//     grammars.go's maxDepth);
//   - wrappers: every top-level type, var and const declaration;
//   - comments: only those the depth-bounded query reaches, that is those
//     that are children of the file or of a top-level declaration in
//     tree-sitter's tree: not inside a spec, a parameter or result list, a
//     body, or the parentheses of a var or import group.
//
// A file go/parser rejects, or one with a construct this reading does not
// cover (a method receiver of another shape, several names bound to one
// function literal, a generic alias), goes to tree-sitter as before.
var useGoParser = true

// splitGo sections Go source with go/parser; ok=false sends the file to
// tree-sitter.
func splitGo(src []byte, language string) (section.Result, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return section.Result{}, false
	}
	tf := fset.File(f.Package)
	if tf == nil || tf.Size() != len(src) {
		return section.Result{}, false
	}
	off := func(p token.Pos) int { return tf.Offset(p) }
	s := splitter{g: byKey["go"], src: src, lines: lineStarts(src), lang: language, parser: ParserGo}
	// opaque holds the ranges whose comments tree-sitter places deeper
	// than the query looks.
	var opaque []span
	hide := func(lo, hi token.Pos) {
		if lo.IsValid() && hi.IsValid() {
			opaque = append(opaque, span{off(lo), off(hi)})
		}
	}
	hideList := func(l *ast.FieldList) {
		if l != nil {
			if l.Opening.IsValid() {
				hide(l.Opening, l.Closing+1)
			} else {
				hide(l.Pos(), l.End())
			}
		}
	}
	addDef := func(node ast.Node, kind string, name *ast.Ident, body *ast.BlockStmt) {
		d := def{node: s.trim(off(node.Pos()), off(node.End())), kind: kind, body: -1, parent: -1, outer: -1, nameParts: 1}
		d.name = cleanName(src[off(name.Pos()):off(name.End())])
		if body != nil {
			d.body = off(body.Lbrace)
		}
		s.defs = append(s.defs, d)
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			hideList(d.Recv)
			hideList(d.Type.TypeParams)
			hideList(d.Type.Params)
			hideList(d.Type.Results)
			if d.Body != nil {
				hide(d.Body.Lbrace, d.Body.Rbrace+1)
			}
			if d.Recv == nil {
				addDef(d, "function", d.Name, d.Body)
				break
			}
			if len(d.Recv.List) != 1 || len(d.Recv.List[0].Names) > 1 {
				return section.Result{}, false
			}
			recv := receiverIdent(d.Recv.List[0].Type)
			if recv == nil {
				return section.Result{}, false
			}
			addDef(d, "method", d.Name, d.Body)
			s.defs[len(s.defs)-1].receiver = cleanName(src[off(recv.Pos()):off(recv.End())])
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE, token.VAR, token.CONST:
				s.wrappers = append(s.wrappers, span{off(d.Pos()), off(d.End())})
			}
			if d.Lparen.IsValid() && (d.Tok == token.VAR || d.Tok == token.IMPORT) {
				// var_spec_list and import_spec_list: one level deeper.
				hide(d.Lparen, d.Rparen+1)
				continue
			}
			for _, sp := range d.Specs {
				hide(sp.Pos(), sp.End())
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if sp.Assign.IsValid() {
						if sp.TypeParams != nil {
							return section.Result{}, false
						}
						addDef(sp, "type", sp.Name, nil)
						continue
					}
					kind := "type"
					switch sp.Type.(type) {
					case *ast.StructType:
						kind = "struct"
					case *ast.InterfaceType:
						kind = "interface"
					}
					addDef(sp, kind, sp.Name, nil)
				case *ast.ValueSpec:
					if d.Tok != token.VAR || len(sp.Values) != 1 {
						continue
					}
					lit, ok := sp.Values[0].(*ast.FuncLit)
					if !ok {
						continue
					}
					if len(sp.Names) != 1 {
						return section.Result{}, false
					}
					addDef(sp, "function", sp.Names[0], lit.Body)
				}
			}
		}
	}
	// Comments the query captures: those in no opaque range. Both lists
	// are in source order.
	k := 0
	for _, g := range f.Comments {
		for _, c := range g.List {
			lo := off(c.Pos())
			hi := commentEnd(src, lo)
			for k < len(opaque) && opaque[k].hi <= lo {
				k++
			}
			if k < len(opaque) && opaque[k].lo <= lo {
				continue
			}
			s.comments = append(s.comments, s.trim(lo, hi))
			s.attrs = append(s.attrs, false)
		}
	}
	s.arrange()
	res := section.Result{Kind: "code", Language: language, Parser: ParserGo}
	res.Sections = s.sections()
	return res, true
}

// receiverIdent is the type name of a receiver of the shapes the query
// matches (T, *T, T[...], *T[...]), or nil.
func receiverIdent(t ast.Expr) *ast.Ident {
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch x := t.(type) {
	case *ast.Ident:
		return x
	case *ast.IndexExpr:
		id, _ := x.X.(*ast.Ident)
		return id
	case *ast.IndexListExpr:
		id, _ := x.X.(*ast.Ident)
		return id
	}
	return nil
}

// commentEnd is the end of the comment starting at lo (go/ast's End drops
// carriage returns from the text it measures).
func commentEnd(src []byte, lo int) int {
	if lo+1 < len(src) && src[lo+1] == '*' {
		if i := bytes.Index(src[lo+2:], []byte("*/")); i >= 0 {
			return lo + 2 + i + 2
		}
		return len(src)
	}
	if i := bytes.IndexByte(src[lo:], '\n'); i >= 0 {
		return lo + i
	}
	return len(src)
}
