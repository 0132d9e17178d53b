package pdf

import (
	"fmt"
	"os"
	"testing"

	"github.com/konteks/git-konteks/extract/section"
)

// TestDump prints the sections of DUMP=file.pdf (or of a built fixture:
// DUMP=simple|outline|scanned|modern).
func TestDump(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	switch p {
	case "simple":
		b = simplePDF()
	case "outline":
		b = outlinePDF()
	case "scanned":
		b = scannedPDF(false)
	case "modern":
		b = modernPDF()
	}
	in := section.Input{Path: "doc.pdf", Content: b}
	res, err := Split(in)
	section.Finish(&res, in)
	fmt.Println(err, res.Fallback, res.Warnings)
	for _, s := range res.Sections {
		fmt.Printf("== %q %s %q %q %q\n%s\n", s.Anchor, s.Symbol, s.Name, s.QName, s.Signature, s.Content)
	}
}
