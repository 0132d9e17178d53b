package code

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/konteks/git-konteks/extract/section"
)

// FuzzSplit feeds arbitrary bytes to every grammar (which picks the
// fixture whose path and language are used). Split must not panic, and
// what it returns must hold together. In a normal `go test` only the seed
// corpus runs.
func FuzzSplit(f *testing.F) {
	for i, fx := range fixtures {
		src := readFixture(f, fx.path)
		f.Add(uint8(i), src)
		f.Add(uint8(i), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		f.Add(uint8(i), src[:len(src)/2])
	}
	f.Add(uint8(0), []byte("\xef\xbb\xbfpackage p\n\xff\xfe\nfunc (x"))
	f.Add(uint8(1), []byte("class A:\n  def f(self):\n\tpass\n  \"\"\"unterminated"))
	f.Add(uint8(2), []byte("export default class { ; } } } function ("))
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		fx := fixtures[int(which)%len(fixtures)]
		repanic = true
		defer func() { repanic = false }()
		res, ok, reason := Split(section.Input{Path: fx.path, Language: fx.language, Content: src})
		if !ok {
			switch reason {
			case ReasonParseError, ReasonTimeout, ReasonTooLarge:
				return
			}
			t.Fatalf("ok=false reason=%q", reason)
		}
		lines := bytes.Count(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")), []byte("\n")) + 1
		seen := map[string]bool{}
		for _, s := range res.Sections {
			if seen[s.Anchor] {
				t.Fatalf("anchor %q twice", s.Anchor)
			}
			seen[s.Anchor] = true
			if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > lines {
				t.Fatalf("%s: lines %d-%d of %d", s.Anchor, s.StartLine, s.EndLine, lines)
			}
			for _, v := range []string{s.Content, s.Doc, s.Signature, s.Name, s.QName, s.Anchor} {
				if !utf8.ValidString(v) || strings.ContainsRune(v, '\r') {
					t.Fatalf("%s: invalid UTF-8 or CR in %q", s.Anchor, v)
				}
			}
			if len(s.Signature) > maxSignature || len(s.Doc) > maxDoc {
				t.Fatalf("%s: signature or doc too long", s.Anchor)
			}
		}
	})
}
