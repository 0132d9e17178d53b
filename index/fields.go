package index

import "sync"

// The fields of a section's document, by name (meta.json's field
// lengths) and by number (in the sections index, see segs.go).
const (
	fieldText = "text" // the section's lexical retrieval text
	fieldName = "name" // name and qualified name, for a boost on names matching the query
	fieldPath = "path" // the source path, for a boost on paths matching the query
	// fieldFile is the whole file, in the files index (see files.go):
	// BM25 over whole files ranks files by all their evidence, which
	// single sections cannot.
	fieldFile = "file"
)

const (
	textField = iota
	nameField
	pathField
	sectionFields
)

var analyzerPool = sync.Pool{New: func() any { return newAnalyzer() }}

// field analyses one field of a section's document: its length (terms,
// repeats included) and its terms with their frequencies, in first-seen
// order. The terms' strings are the analyzer's (valid until the
// builder copies them). With toFile, the terms count towards the whole
// file's document too (see fileField).
func (a *analyzer) field(text string, toFile bool) (length int, terms []fileTerm) {
	a.reset()
	a.order = a.order[:0]
	eachWord(text, func(w string) {
		for _, id := range a.wordTerms(w) {
			length++
			if a.counts[id] == 0 {
				a.order = append(a.order, id)
			}
			a.counts[id]++
		}
	})
	terms = make([]fileTerm, len(a.order))
	for i, id := range a.order {
		c := a.counts[id]
		terms[i] = fileTerm{a.vocab[id], uint32(c)}
		a.counts[id] = 0
		if toFile {
			if a.fcounts[id] == 0 {
				a.forder = append(a.forder, id)
			}
			a.fcounts[id] += c
		}
	}
	return length, terms
}

// count is field's analysis without the document: the number of terms
// of text, added with toFile to the whole file's counts. An update
// counts so the sections it leaves in the index (see makeDocs).
func (a *analyzer) count(text string, toFile bool) int {
	a.reset()
	n := 0
	eachWord(text, func(w string) {
		ids := a.wordTerms(w)
		n += len(ids)
		if !toFile {
			return
		}
		for _, id := range ids {
			if a.fcounts[id] == 0 {
				a.forder = append(a.forder, id)
			}
			a.fcounts[id]++
		}
	})
	return n
}

// startFile starts counting a file's terms for fileField.
func (a *analyzer) startFile() {
	for _, id := range a.forder {
		a.fcounts[id] = 0
	}
	a.forder, a.fileLost = a.forder[:0], false
}

// fileField makes the document of a whole file from the counts its
// sections' fields added since startFile (nothing is analysed twice), or
// returns nil when the analyzer's vocabulary was reset meanwhile.
func (a *analyzer) fileField(path string, length int) *docEntry {
	if a.fileLost {
		return nil
	}
	e := &docEntry{id: path}
	e.lens[0] = uint32(length)
	e.terms[0] = make([]fileTerm, len(a.forder))
	for i, id := range a.forder {
		e.terms[0][i] = fileTerm{a.vocab[id], uint32(a.fcounts[id])}
		a.fcounts[id] = 0
	}
	a.forder = a.forder[:0]
	return e
}

// fileDoc makes the document of a whole file from its sections'
// documents: the text fields' term frequencies summed plus the first
// section's path terms. (The slow way to fileField's result, for when
// that has none.)
func fileDoc(path string, sections []*docEntry) *docEntry {
	freqs := map[string]uint32{}
	var order []string
	length := uint32(0)
	add := func(n uint32, terms []fileTerm) {
		length += n
		for _, t := range terms {
			if _, ok := freqs[t.term]; !ok {
				order = append(order, t.term)
			}
			freqs[t.term] += t.freq
		}
	}
	for i, d := range sections {
		add(d.lens[textField], d.terms[textField])
		if i == 0 {
			add(d.lens[pathField], d.terms[pathField])
		}
	}
	e := &docEntry{id: path}
	e.lens[0] = length
	e.terms[0] = make([]fileTerm, len(order))
	for i, t := range order {
		e.terms[0][i] = fileTerm{t, freqs[t]}
	}
	return e
}

// sectionEntry makes the document of a section. Its text, and the path
// of the file's first section, count towards the whole file's document
// (see fileField).
func (a *analyzer) sectionEntry(id, text, name, path string, first bool) *docEntry {
	e := &docEntry{id: id}
	n, ts := a.field(text, true)
	e.lens[textField], e.terms[textField] = uint32(n), ts
	if name != "" {
		n, ts = a.field(name, false)
		e.lens[nameField], e.terms[nameField] = uint32(n), ts
	}
	n, ts = a.field(path, first)
	e.lens[pathField], e.terms[pathField] = uint32(n), ts
	return e
}
