package index

import (
	"os"
	"path/filepath"
)

// fileEntry is a whole file's document (a docEntry of one field).
type fileEntry = docEntry

// fe makes a file's document.
func fe(path string, length int, terms ...fileTerm) *docEntry {
	e := &docEntry{id: path}
	e.lens[0], e.terms[0] = uint32(length), terms
	return e
}

func newFileBuilder() *segBuilder { return newSegBuilder(1) }

// writeFiles writes a files index of one segment, from a builder, to dir.
func writeFiles(dir string, b *segBuilder) error { return writeOneSegment(dir, b) }

// writeOneSegment writes an index of one segment (1.kxs), from a builder,
// to dir.
func writeOneSegment(dir string, b *segBuilder) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	in, err := b.write(filepath.Join(dir, "1.kxs"))
	if err != nil {
		return err
	}
	return writeSegsManifest(dir, []segInfo{in})
}

func updateFiles(oldDir, dir string, gone map[string]bool, fresh []*docEntry) error {
	ids := make([]string, 0, len(gone))
	for p := range gone {
		ids = append(ids, p)
	}
	return updateSegs(oldDir, dir, 1, ids, fresh)
}

func openFiles(dir string) (*segIndex, error) { return openSegs(dir, 1) }

const filesManifest = segsManifest
