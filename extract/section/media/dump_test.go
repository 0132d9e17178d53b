package media

import (
	"fmt"
	"os"
	"testing"

	"github.com/konteks/git-konteks/extract/section"
)

func TestDumpMedia(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	in := section.Input{Path: p, Content: b}
	res, err := Split(in)
	section.Finish(&res, in)
	fmt.Println(err, res.Warnings)
	for _, s := range res.Sections {
		fmt.Printf("== %q %s %q %d-%d\n%s\n", s.Anchor, s.Symbol, s.Name, s.StartLine, s.EndLine, s.Content)
	}
}
