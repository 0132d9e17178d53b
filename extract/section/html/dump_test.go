package html

import (
	"testing"

	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

// TestDumpHTML prints the sections of DUMP=file.html.
func TestDumpHTML(t *testing.T) { sectiontest.Dump(t, "HTML", Split, nil) }
