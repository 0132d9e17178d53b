package index

import (
	"math"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/searcher"
)

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

// AnalyzerName is the name the index's analyzer is registered under in
// bleve's registry: the evaluation's whole-file BM25 baseline
// (scripts/eval) and the tests that check the index's scores against
// bleve's analyse as the index does.
const AnalyzerName = "konteks"

func init() {
	// Sum a document's term scores in one order, whatever the segments,
	// as the index's own scoring does (see segIndex.score). Past this
	// many terms bleve's disjunction takes them from a heap, whose order
	// for one document depends on how the index is segmented.
	searcher.DisjunctionHeapTakeover = math.MaxInt
	registry.RegisterAnalyzer(AnalyzerName, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return bleveAnalyzer{}, nil
	})
}

var analyzerPool = sync.Pool{New: func() any { return newAnalyzer() }}

// bleveAnalyzer exposes the analyzer to bleve.
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
