package index

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
)

// AnalyzerName is the index's analyzer in bleve's registry, for the bleve
// indexes the tests compare scores with.
const AnalyzerName = "konteks"

func init() {
	// Sum a document's term scores in one order, as the index's own
	// scoring does (see segIndex.score): past this many terms bleve's
	// disjunction takes them from a heap, in an order that depends on
	// how its index is segmented.
	searcher.DisjunctionHeapTakeover = math.MaxInt
	registry.RegisterAnalyzer(AnalyzerName, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return bleveAnalyzer{}, nil
	})
}

// bleveAnalyzer is the index's analyzer as bleve's.
type bleveAnalyzer struct{}

func (bleveAnalyzer) Analyze(input []byte) analysis.TokenStream {
	var ts analysis.TokenStream
	EachTerm(string(input), func(t string) bool {
		ts = append(ts, &analysis.Token{Term: []byte(t), Position: len(ts) + 1, Type: analysis.AlphaNumeric})
		return true
	})
	return ts
}

// idHit is a document bleve ranked, by id.
type idHit struct {
	id    string
	score float64
}

// bleveRanked is every document bleve matches for q, with BM25 over docs
// documents of the given fields' total lengths, best first, ties by id.
func bleveRanked(t *testing.T, bl bleve.Index, q query.Query, docs int, card map[string]int) []idHit {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 100000, 0, false)
	req.PreSearchData = map[string]interface{}{bsearch.BM25PreSearchDataKey: &bsearch.BM25Stats{
		DocCount: float64(docs), FieldCardinality: card}}
	res, err := bl.SearchInContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var out []idHit
	for _, h := range res.Hits {
		out = append(out, idHit{h.ID, h.Score})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].id < out[j].id
	})
	return out
}

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
