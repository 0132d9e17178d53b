package index

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/memory"
)

// The files builder holds every term of the memory until the build
// writes it; a term must not hold the section text it was found in. A
// term the analyzer does not rewrite (a number, a lowercase word with
// digits, a two-letter word) is a substring of the text, and so was the
// builder's key for it: each such term kept a section's whole text (up
// to 16 KB) alive through the build.
func TestFileTermsDoNotHoldTexts(t *testing.T) {
	const files, size = 400, 16 << 10
	filler := strings.Repeat("the parser reads tokens and builds trees ", size/40)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	b := newFileBuilder()
	a := newAnalyzer()
	for i := 0; i < files; i++ {
		f := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("ab", 20), Kind: "code", Language: "Go",
			Sections: []memory.Section{{Anchor: "A", Kind: "code", StartLine: 1, EndLine: 2,
				Content: fmt.Sprintf("%s x%d86 %d", filler, i, 1000000+i)}}}
		rd := makeDocs(a, fmt.Sprintf("f%d.go", i), f, true, nil)
		b.add(rd.file)
	}
	a = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	held := int64(ms.HeapAlloc) - int64(before)
	runtime.KeepAlive(b)
	t.Logf("the builder of %d files holds %d KB", files, held>>10)
	if held > files*size/4 {
		t.Fatalf("the builder of %d files of %d terms holds %d KB: the texts its terms were found in", files, len(b.key), held>>10)
	}
}
