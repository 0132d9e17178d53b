package memory

import (
	"fmt"
	"strings"
)

// Paths of the memory tree under refs/konteks.
const (
	Ref          = "refs/konteks"     // the memory commit
	WIPRef       = "refs/konteks-wip" // checkpoints of an interrupted run
	ManifestPath = "manifest.json"
	FilesDir     = "files"    // files/<source path>: one record per included file
	SkippedPath  = "skipped"  // zstd JSON: source path -> gate reason
	DurableDir   = "durable"  // never touched by extraction
	WIPDonePath  = "wip-done" // in checkpoints only: paths finished so far
)

// MaxPathLen bounds a source path accepted from a memory tree.
const MaxPathLen = 4096

// FilePath is the memory tree path of a source file's record.
func FilePath(source string) string { return FilesDir + "/" + source }

// ValidSourcePath checks a source path read from memory or a tree: relative,
// slash-separated, no empty, "." or ".." or ".git" components, no control
// characters. Invalid UTF-8 is allowed: git allows any bytes in names.
func ValidSourcePath(p string) error {
	if p == "" || len(p) > MaxPathLen {
		return fmt.Errorf("invalid path: length %d", len(p))
	}
	if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return fmt.Errorf("invalid path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" {
			return fmt.Errorf("invalid path %q", p)
		}
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("invalid path %q: control character", p)
		}
	}
	return nil
}
