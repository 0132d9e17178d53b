package code

import (
	"context"
	"testing"

	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/internal/benchrepo"
	sitter "github.com/smacker/go-tree-sitter"
)

// BenchmarkParseOnlyGo and BenchmarkQueryOnlyGo split BenchmarkSplitGo's
// time: tree-sitter's parse alone, and the section query alone.
func BenchmarkParseOnlyGo(b *testing.B) {
	ins, total := sectiontest.GoSource(b, "net/http")
	g := byKey["go"]
	g.load()
	p := sitter.NewParser()
	p.SetLanguage(g.lang)
	b.SetBytes(total)
	cpu0 := benchrepo.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range ins {
			t, _ := p.ParseCtx(context.Background(), nil, in.Content)
			t.Close()
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/(benchrepo.CPUTime()-cpu0).Seconds()/1e6, "MB/cpu-s")
}

func BenchmarkQueryOnlyGo(b *testing.B) {
	ins, total := sectiontest.GoSource(b, "net/http")
	g := byKey["go"]
	g.load()
	p := sitter.NewParser()
	p.SetLanguage(g.lang)
	var trees []*sitter.Tree
	for _, in := range ins {
		t, _ := p.ParseCtx(context.Background(), nil, in.Content)
		trees = append(trees, t)
	}
	b.SetBytes(total)
	cpu0 := benchrepo.CPUTime()
	b.ResetTimer()
	defer func() {
		b.ReportMetric(float64(total)*float64(b.N)/(benchrepo.CPUTime()-cpu0).Seconds()/1e6, "MB/cpu-s")
	}()
	for i := 0; i < b.N; i++ {
		for _, t := range trees {
			qc := sitter.NewQueryCursor()
			setMaxStartDepth(qc, g.maxDepth)
			qc.Exec(g.query, t.RootNode())
			for {
				_, ok := qc.NextMatch()
				if !ok {
					break
				}
			}
			qc.Close()
		}
	}
}
