package media

import (
	"testing"

	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

// TestDumpMedia prints the sections of DUMP=file (an image, audio or video).
func TestDumpMedia(t *testing.T) { sectiontest.Dump(t, "", Split, nil) }
