package index

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// preField is an analysed field handed to bleve as the sections index
// handed its documents before it was the index's own: the tests compare
// its scores with bleve's.
type preField struct {
	name   string
	length int
	freqs  bindex.TokenFrequencies
}

func (f *preField) Name() string                                      { return f.name }
func (f *preField) ArrayPositions() []uint64                          { return nil }
func (f *preField) Options() bindex.FieldIndexingOptions              { return bindex.IndexField }
func (f *preField) Analyze()                                          {}
func (f *preField) Value() []byte                                     { return nil }
func (f *preField) NumPlainTextBytes() uint64                         { return 0 }
func (f *preField) Size() int                                         { return 64 + len(f.freqs)*48 }
func (f *preField) EncodedFieldType() byte                            { return 't' }
func (f *preField) AnalyzedLength() int                               { return f.length }
func (f *preField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// bleveField is a field's terms as bleve's token frequencies.
func bleveField(name string, length uint32, terms []fileTerm) *preField {
	freqs := bindex.TokenFrequencies{}
	for _, t := range terms {
		tf := &bindex.TokenFreq{Term: []byte(t.term)}
		tf.SetFrequency(int(t.freq))
		freqs[t.term] = tf
	}
	return &preField{name: name, length: int(length), freqs: freqs}
}

// newMapping is the bleve mapping the sections index had: three
// analysed, unstored fields and BM25 scoring.
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
