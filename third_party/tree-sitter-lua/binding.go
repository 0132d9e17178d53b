// Package lua is the tree-sitter grammar of Lua from
// github.com/smacker/go-tree-sitter/lua, with one byte of parser.c
// changed: the name of an anonymous symbol was a literal NUL character
// inside a C string, which makes every cold build print "warning: null
// character(s) preserved in literal"; it is written "\0" instead, the
// same string. See NOTICE.konteks.
package lua

//#include "parser.h"
//TSLanguage *tree_sitter_lua();
import "C"
import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// GetLanguage returns the Lua grammar.
func GetLanguage() *sitter.Language {
	ptr := unsafe.Pointer(C.tree_sitter_lua())
	return sitter.NewLanguage(ptr)
}
