package index

import (
	"math"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Bleve fields of a section document. The mapping is lean: nothing is
// stored (hits are turned into sections through the docs table and the
// memory ref), no term vectors, no doc values, no _all field; BM25 needs
// only the postings and field lengths.
const (
	fieldText = "text" // the section's lexical retrieval text
	fieldName = "name" // name and qualified name, for a boost on names matching the query
	fieldPath = "path" // the source path, for a boost on paths matching the query
	// fieldFile is the whole file, in the files index (see files.go):
	// BM25 over whole files ranks files by all their evidence, which
	// single sections cannot.
	fieldFile = "file"
)

// AnalyzerName is the name the index's analyzer is registered under in
// bleve's registry, so the stored mapping describes how fields were
// analysed.
const AnalyzerName = "konteks"

func init() {
	// Persist every segment as it is (bleve merges unpersisted segments in
	// memory first, which during a cold build re-encodes most of the
	// index once more). This process holds no other bleve index.
	scorch.DefaultMinSegmentsForInMemoryMerge = 1 << 30
	// Sum a document's term scores in the query's order, whatever the
	// segments. Past this many terms bleve's disjunction takes them from
	// a heap, whose order for one document depends on how the index is
	// segmented: an updated and a rebuilt index of the same memory then
	// scored a section a few units in the last place apart, enough to
	// swap it with a neighbour (a tenth of prometheus' commit queries).
	// The slice it uses below that is as fast on long tasks (prometheus
	// and rails, 61 issue texts of 480 bytes on average).
	searcher.DisjunctionHeapTakeover = math.MaxInt
	registry.RegisterAnalyzer(AnalyzerName, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return bleveAnalyzer{}, nil
	})
}

var analyzerPool = sync.Pool{New: func() any { return newAnalyzer() }}

// bleveAnalyzer exposes the analyzer to bleve (query strings, the stored
// mapping); bulk indexing analyses in our own goroutines instead.
type bleveAnalyzer struct{}

func (bleveAnalyzer) Analyze(input []byte) analysis.TokenStream {
	a := analyzerPool.Get().(*analyzer)
	defer analyzerPool.Put(a)
	var ts analysis.TokenStream
	pos := 1
	a.terms(string(input), func(t string) {
		ts = append(ts, &analysis.Token{Term: []byte(t), Position: pos, Type: analysis.AlphaNumeric})
		pos++
	})
	return ts
}

// newMapping is the index mapping: three analysed, unstored fields and
// BM25 scoring.
func newMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	m.ScoringModel = bindex.BM25Scoring
	m.DefaultAnalyzer = AnalyzerName
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range []string{fieldText, fieldName, fieldPath} {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = AnalyzerName
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		fm.DocValues = false
		dm.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = dm
	return m
}

const fieldOptions = bindex.IndexField

// preField is a text field analysed ahead of time by our workers: bleve's
// own Analyze call (serial in the offline builder) has nothing left to do.
type preField struct {
	name   string
	length int
	freqs  bindex.TokenFrequencies
	size   uint64
}

func (f *preField) Name() string                                      { return f.name }
func (f *preField) ArrayPositions() []uint64                          { return nil }
func (f *preField) Options() bindex.FieldIndexingOptions              { return fieldOptions }
func (f *preField) Analyze()                                          {}
func (f *preField) Value() []byte                                     { return nil }
func (f *preField) NumPlainTextBytes() uint64                         { return f.size }
func (f *preField) Size() int                                         { return 64 + len(f.freqs)*48 }
func (f *preField) EncodedFieldType() byte                            { return 't' }
func (f *preField) AnalyzedLength() int                               { return f.length }
func (f *preField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// field makes a pre-analysed field of text. With toFile, its terms also
// count towards the whole file's document (see fileField).
func (a *analyzer) field(name, text string, toFile bool) *preField {
	a.reset()
	a.order = a.order[:0]
	n := 0
	eachWord(text, func(w string) {
		for _, id := range a.wordTerms(w) {
			n++
			if a.counts[id] == 0 {
				a.order = append(a.order, id)
			}
			a.counts[id]++
		}
	})
	f := &preField{name: name, size: uint64(len(text)), length: n, freqs: make(bindex.TokenFrequencies, len(a.order))}
	slab := make([]bindex.TokenFreq, len(a.order))
	for i, id := range a.order {
		tf := &slab[i]
		tf.Term = a.vbytes[id]
		c := a.counts[id]
		tf.SetFrequency(int(c))
		a.counts[id] = 0
		f.freqs[a.vocab[id]] = tf
		if toFile {
			if a.fcounts[id] == 0 {
				a.forder = append(a.forder, id)
			}
			a.fcounts[id] += c
		}
	}
	return f
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
func (a *analyzer) fileField(path string, length int) *fileEntry {
	if a.fileLost {
		return nil
	}
	e := &fileEntry{path: path, length: length, terms: make([]fileTerm, len(a.forder))}
	for i, id := range a.forder {
		e.terms[i] = fileTerm{a.vocab[id], uint32(a.fcounts[id])}
		a.fcounts[id] = 0
	}
	a.forder = a.forder[:0]
	return e
}

// fileDoc makes the document of a whole file from its sections'
// documents: the text fields' term frequencies summed plus the path's
// terms. (The slow way to fileField's result, for when that has none.)
func fileDoc(path string, sections []*document.Document) *fileEntry {
	freqs := map[string]int{}
	var order []string
	length := 0
	add := func(f *preField) {
		length += f.length
		for t, tf := range f.freqs {
			if _, ok := freqs[t]; !ok {
				order = append(order, t)
			}
			freqs[t] += tf.Frequency()
		}
	}
	for i, d := range sections {
		for _, f := range d.Fields {
			if pf, ok := f.(*preField); ok && (pf.name == fieldText || pf.name == fieldPath && i == 0) {
				add(pf)
			}
		}
	}
	e := &fileEntry{path: path, length: length, terms: make([]fileTerm, len(order))}
	for i, t := range order {
		e.terms[i] = fileTerm{t, uint32(freqs[t])}
	}
	return e
}

// bleveDoc makes the bleve document of a section.
// Its text, and the path of the file's first section, count towards the
// whole file's document (see fileField).
func (a *analyzer) bleveDoc(id, text, name, path string, first bool) *document.Document {
	d := document.NewDocument(id)
	d.AddField(a.field(fieldText, text, true))
	if name != "" {
		d.AddField(a.field(fieldName, name, false))
	}
	d.AddField(a.field(fieldPath, path, first))
	return d
}
