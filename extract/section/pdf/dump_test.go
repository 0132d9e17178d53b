package pdf

import (
	"testing"

	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

// TestDump prints the sections of DUMP=file.pdf (or of a built fixture:
// DUMP=simple|outline|scanned|modern).
func TestDump(t *testing.T) {
	sectiontest.Dump(t, "", Split, map[string]func() []byte{
		"simple": simplePDF, "outline": outlinePDF, "modern": modernPDF,
		"scanned": func() []byte { return scannedPDF(false) },
	})
}
