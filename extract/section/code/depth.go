package code

// The Go binding of tree-sitter does not expose
// ts_query_cursor_set_max_start_depth. Without it a query cursor walks
// every node of the tree, including every function body, although for
// grammars whose definitions all sit near the root (Go, HCL) no match can
// start down there: limiting the start depth makes the query almost free.
// The C function is called on the binding's cursor pointer, found by its
// field layout; the layout is checked with reflect at start-up and the
// limit is simply not set when it does not match (a binding upgrade then
// costs speed, never correctness; TestMaxStartDepth fails to say so).
//
// The bound also keeps queries linear on deeply nested input: in-progress
// match states grow with the nesting of the nodes patterns start at, so
// 8000 nested classes took seconds without it. Split still stops a query
// at its deadline as a backstop.

/*
#include <stdint.h>
typedef struct TSQueryCursor TSQueryCursor;
void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
*/
import "C"

import (
	"reflect"
	"strings"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// cursorLayoutOK: sitter.QueryCursor starts with its *C.TSQueryCursor.
var cursorLayoutOK = func() bool {
	t := reflect.TypeOf(sitter.QueryCursor{})
	if t.NumField() == 0 {
		return false
	}
	f := t.Field(0)
	return f.Name == "c" && f.Offset == 0 && f.Type.Kind() == reflect.Pointer &&
		strings.HasSuffix(f.Type.Elem().Name(), "TSQueryCursor")
}()

// setMaxStartDepth limits the depth (below the node the query runs on) at
// which matches may start; matches already started still finish deeper.
// It reports whether the limit was set.
func setMaxStartDepth(qc *sitter.QueryCursor, depth uint32) bool {
	if !cursorLayoutOK || qc == nil {
		return false
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(qc))
	if p == nil {
		return false
	}
	C.ts_query_cursor_set_max_start_depth((*C.TSQueryCursor)(p), C.uint32_t(depth))
	return true
}
