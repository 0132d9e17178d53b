package notebook

import (
	"testing"

	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

// TestDumpNotebook prints the sections of DUMP=file.ipynb.
func TestDumpNotebook(t *testing.T) { sectiontest.Dump(t, "Jupyter Notebook", Split, nil) }
