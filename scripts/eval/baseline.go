package main

import (
	"math"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	bquery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/memref"
)

// analyzerName is the index's analyzer (index.EachTerm) in bleve's
// registry: the baseline analyses as recall does.
const analyzerName = "konteks"

func init() {
	// Sum a document's term scores in one order whatever bleve's
	// segments, as the index's own scoring does.
	searcher.DisjunctionHeapTakeover = math.MaxInt
	registry.RegisterAnalyzer(analyzerName, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return termsAnalyzer{}, nil
	})
}

// termsAnalyzer is the index's analyzer as bleve's.
type termsAnalyzer struct{}

func (termsAnalyzer) Analyze(input []byte) analysis.TokenStream {
	var ts analysis.TokenStream
	index.EachTerm(string(input), func(t string) bool {
		ts = append(ts, &analysis.Token{Term: []byte(t), Position: len(ts) + 1, Type: analysis.AlphaNumeric})
		return true
	})
	return ts
}

// fileBaseline is an in-memory bleve index with one document per file —
// its sections' lexical texts joined — kept in step with memory by the
// record diff, scored by plain BM25 over the same analyzer recall uses.
type fileBaseline struct {
	idx  bleve.Index
	tree gitstore.Hash
}

func newFileBaseline() (*fileBaseline, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = "bm25"
	m.DefaultAnalyzer = analyzerName
	dm := bleve.NewDocumentStaticMapping()
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer = analyzerName
	fm.Store, fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false, false
	dm.AddFieldMappingsAt("text", fm)
	m.DefaultMapping = dm
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		return nil, err
	}
	return &fileBaseline{idx: idx}, nil
}

func (f *fileBaseline) update(repo *gitstore.Repo, mem *memref.Memory) error {
	changes, err := memref.DiffRecords(repo, f.tree, mem.Tree)
	if err != nil {
		return err
	}
	b := f.idx.NewBatch()
	for _, c := range changes {
		if c.New.IsZero() {
			b.Delete(c.Path)
			continue
		}
		rec, err := memref.DecodeRecord(repo, c.New, c.Path)
		if err != nil {
			return err
		}
		var text strings.Builder
		for _, s := range rec.Sections {
			text.WriteString(section.LexicalText(c.Path, s))
			text.WriteByte('\n')
		}
		if err := b.Index(c.Path, map[string]string{"text": text.String()}); err != nil {
			return err
		}
	}
	f.tree = mem.Tree
	return f.idx.Batch(b)
}

func (f *fileBaseline) search(q string, n int) ([]string, error) {
	var qs []bquery.Query
	for _, t := range index.QueryTerms(q) {
		tq := bquery.NewTermQuery(t.Text)
		tq.SetField("text")
		tq.SetBoost(t.Weight)
		qs = append(qs, tq)
	}
	if len(qs) == 0 {
		return nil, nil
	}
	res, err := f.idx.Search(bleve.NewSearchRequestOptions(bquery.NewDisjunctionQuery(qs), n, 0, false))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ID
	}
	return out, nil
}
