package text

import (
	"testing"

	"github.com/konteks/git-konteks/extract/section"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		end     int
		content string
	}{
		{"empty", "", 0, ""},
		{"blank", " \n\t\n\n", 0, ""},
		{"one line", "hello", 1, "hello"},
		{"lines", "MIT License\n\nCopyright\n", 3, "MIT License\n\nCopyright"},
		{"crlf bom", "\uFEFFa\r\nb\r\n", 2, "a\nb"},
		{"invalid utf8", "a\xffb\n", 1, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := section.Input{Path: "LICENSE", Content: []byte(tt.in)}
			res := Split(in)
			section.Finish(&res, in)
			if err := section.Validate(res, in); err != nil {
				t.Fatal(err)
			}
			if res.Kind != "text" || res.Parser != "whole" {
				t.Errorf("result %q %q", res.Kind, res.Parser)
			}
			if tt.end == 0 {
				if len(res.Sections) != 0 {
					t.Fatalf("%d sections for blank input", len(res.Sections))
				}
				return
			}
			if len(res.Sections) != 1 {
				t.Fatalf("%d sections", len(res.Sections))
			}
			s := res.Sections[0]
			if s.Anchor != "file" || s.Symbol != "file" || s.Kind != "text" || s.Parser != "whole" ||
				s.StartLine != 1 || s.EndLine != tt.end || s.Content != tt.content {
				t.Errorf("section %+v", s)
			}
		})
	}
}
