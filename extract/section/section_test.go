package section

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/text"
)

func TestLines(t *testing.T) {
	tests := []struct {
		in    string
		count int
		texts []string // text of each line
	}{
		{"", 0, nil},
		{"a", 1, []string{"a"}},
		{"a\n", 1, []string{"a"}},
		{"a\nb", 2, []string{"a", "b"}},
		{"a\nb\n", 2, []string{"a", "b"}},
		{"\n", 1, []string{""}},
		{"\n\n", 2, []string{"", ""}},
		{"a\r\nbc\r\n", 2, []string{"a\r", "bc\r"}},
	}
	for _, tt := range tests {
		x := Lines([]byte(tt.in))
		if x.Count() != tt.count {
			t.Errorf("%q: Count = %d, want %d", tt.in, x.Count(), tt.count)
		}
		for i, want := range tt.texts {
			n := i + 1
			if got := x.Text([]byte(tt.in), n, n); got != want {
				t.Errorf("%q: line %d = %q, want %q", tt.in, n, got, want)
			}
			for off := x.Start(n); off <= x.End(n) && off < len(tt.in); off++ {
				if got := x.Line(off); got != n {
					t.Errorf("%q: Line(%d) = %d, want %d", tt.in, off, got, n)
				}
			}
		}
	}
	src := []byte("one\ntwo\n\nfour\n")
	x := Lines(src)
	if got := x.Text(src, 1, 4); got != "one\ntwo\n\nfour" {
		t.Errorf("Text(1,4) = %q", got)
	}
	if got := x.Text(src, 3, 9); got != "\nfour" {
		t.Errorf("Text(3,9) = %q", got)
	}
	if from, to := x.TrimBlank(src, 2, 3); from != 2 || to != 2 {
		t.Errorf("TrimBlank(2,3) = %d,%d", from, to)
	}
	if from, to := x.TrimBlank(src, 3, 3); to >= from {
		t.Errorf("TrimBlank(3,3) = %d,%d, want empty", from, to)
	}
	if x.Line(len(src)) != 4 || x.Line(-5) != 1 {
		t.Errorf("out of range offsets: %d %d", x.Line(len(src)), x.Line(-5))
	}
}

func TestSplitIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"parseHTTPRequest", []string{"parse", "http", "request"}},
		{"XMLHttpRequest", []string{"xml", "http", "request"}},
		{"snake_case_name", []string{"snake", "case", "name"}},
		{"kebab-case-name", []string{"kebab", "case", "name"}},
		{"utf8Decode", []string{"utf8", "decode"}},
		{"getV2Config", []string{"get", "v2", "config"}},
		{"IOError", []string{"io", "error"}},
		{"__init__", []string{"init"}},
		{"Install > From source", []string{"install", "from", "source"}},
		{"$.scripts", []string{"scripts"}},
		{"cmd/git-konteks/main.go", []string{"cmd", "git", "konteks", "main", "go"}},
		{"ÜberGröße", []string{"über", "größe"}},
		{"", nil},
		{"--", nil},
	}
	for _, tt := range tests {
		if got := text.SplitIdentifier(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("text.SplitIdentifier(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnchorSet(t *testing.T) {
	var s AnchorSet
	var got []string
	for _, a := range []string{"a", "a", "a#2", "b", "a"} {
		got = append(got, s.Add(a))
	}
	want := []string{"a", "a#2", "a#2#2", "b", "a#3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("anchors %q, want %q", got, want)
	}
}

func finished(t *testing.T, path string, secs ...memory.Section) Result {
	t.Helper()
	res := Result{Kind: "code", Language: "Go", Parser: "tree-sitter", Sections: secs}
	in := Input{Path: path, Language: "Go"}
	Finish(&res, in)
	if err := Validate(res, Input{Content: []byte(strings.Repeat("\n", 5000))}); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestFinishNormalises(t *testing.T) {
	res := finished(t, "bad\xffpath.go", memory.Section{
		Name:      "Bad\xfeName",
		Doc:       "Doc line\r\nmore",
		StartLine: 0,
		Content:   "\uFEFFfunc Bad\xff() {\r\n\treturn\r\n}\r\n",
	})
	s := res.Sections[0]
	if s.Content != "func Bad\uFFFD() {\n\treturn\n}\n" {
		t.Errorf("content %q", s.Content)
	}
	if s.Name != "Bad\uFFFDName" || s.Doc != "Doc line\nmore" {
		t.Errorf("name %q doc %q", s.Name, s.Doc)
	}
	if s.StartLine != 1 || s.EndLine != 3 {
		t.Errorf("lines %d-%d, want 1-3", s.StartLine, s.EndLine)
	}
	if s.Kind != "code" || s.Parser != "tree-sitter" || s.Language != "Go" {
		t.Errorf("defaults not filled: %q %q %q", s.Kind, s.Parser, s.Language)
	}
	if s.Anchor != "Bad\uFFFDName" {
		t.Errorf("anchor %q", s.Anchor)
	}
	b, err := json.Marshal(res.Sections)
	if err != nil || !json.Valid(b) || !utf8.Valid(b) {
		t.Fatalf("not valid JSON: %v", err)
	}
}

func TestFinishKeepsGivenTopics(t *testing.T) {
	res := finished(t, "a.go", memory.Section{Anchor: "x", StartLine: 1, EndLine: 1, Content: "x",
		Topics: []string{"Alpha", "alpha", "be\xfft\r", " "}})
	if got := strings.Join(res.Sections[0].Topics, "|"); got != "alpha|be\uFFFDt" {
		t.Errorf("topics %q", got)
	}
}

func TestFinishDedupesAnchors(t *testing.T) {
	res := finished(t, "a.go",
		memory.Section{Anchor: "New", StartLine: 1, EndLine: 1, Content: "x"},
		memory.Section{Anchor: "New", StartLine: 2, EndLine: 2, Content: "y"},
		memory.Section{StartLine: 3, EndLine: 3, Content: "z"},
	)
	var got []string
	for _, s := range res.Sections {
		got = append(got, s.Anchor)
	}
	if want := []string{"New", "New#2", "line:3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("anchors %q, want %q", got, want)
	}
}

func TestTopics(t *testing.T) {
	res := finished(t, "internal/config/loader.go", memory.Section{
		Anchor:    "LoadConfigFile",
		Symbol:    "function",
		Name:      "LoadConfigFile",
		Signature: "func LoadConfigFile(path string) (*Config, error)",
		StartLine: 10, EndLine: 20,
		Content: `func LoadConfigFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	var cfg Config
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}`,
	})
	s := res.Sections[0]
	want := []string{"config", "file", "load", "path", "cfg", "data", "read", "internal", "loader", "os", "unmarshal", "yaml"}
	if !reflect.DeepEqual(s.Topics, want) {
		t.Errorf("topics %q\nwant   %q", s.Topics, want)
	}
	for _, stop := range []string{"func", "err", "nil", "return", "string", "error", "the"} {
		for _, got := range s.Topics {
			if got == stop {
				t.Errorf("stop word %q kept", stop)
			}
		}
	}
	if len(res.Topics) == 0 || res.Topics[0] != "config" {
		t.Errorf("file topics %q", res.Topics)
	}
}

func TestTopicsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "alpha%c beta%c gamma%c\n", 'a'+i%26, 'a'+i%26, 'a'+i%26)
	}
	res := finished(t, "x.txt", memory.Section{Anchor: "x", StartLine: 1, EndLine: 200, Content: b.String()})
	if n := len(res.Sections[0].Topics); n != MaxTopics {
		t.Errorf("%d topics, want %d", n, MaxTopics)
	}
	again := finished(t, "x.txt", memory.Section{Anchor: "x", StartLine: 1, EndLine: 200, Content: b.String()})
	if !reflect.DeepEqual(res, again) {
		t.Error("Finish is not deterministic")
	}
}

func TestSummary(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name string
		s    memory.Section
		want string
	}{
		{"doc first sentence", memory.Section{Doc: "// Open opens the store. It creates it when missing.\n// More.", Signature: "func Open()"}, "Open opens the store."},
		{"doc paragraph", memory.Section{Doc: "Parses flags\nfrom argv\n\nDetails."}, "Parses flags from argv"},
		{"python docstring", memory.Section{Doc: `"""Return the sum.`}, "Return the sum."},
		{"signature", memory.Section{Signature: "func  Open(path string)\n\t(*Store, error)"}, "func Open(path string) (*Store, error)"},
		{"heading path", memory.Section{Symbol: "heading", QName: "Install > From source", Content: "## From source\n\nRun make."}, "Install > From source"},
		{"first content line", memory.Section{Symbol: "key", QName: "$.scripts", Content: "\n  {\n  \"scripts\": {\n"}, `"scripts": {`},
		{"bounded", memory.Section{Content: long}, strings.TrimSpace(long[:199*1]) + "…"},
		{"nothing", memory.Section{Name: "x"}, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.s.StartLine, tt.s.EndLine = 1, 1
			res := finished(t, "a.go", tt.s)
			got := res.Sections[0].Summary
			if tt.name == "bounded" {
				if utf8.RuneCountInString(got) != MaxSummary || !strings.HasSuffix(got, "…") {
					t.Errorf("summary %d runes: %q", utf8.RuneCountInString(got), got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("summary %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChunks3000LineFunction(t *testing.T) {
	var b strings.Builder
	b.WriteString("func huge() {\n")
	for i := 0; i < 2998; i++ {
		fmt.Fprintf(&b, "\tx%d := compute(%d)\n", i, i)
	}
	b.WriteString("}")
	res := finished(t, "huge.go", memory.Section{Anchor: "huge", Symbol: "function", Name: "huge",
		StartLine: 101, EndLine: 3100, Content: b.String()})
	if len(res.Sections) != 1 {
		t.Fatalf("%d sections, want 1", len(res.Sections))
	}
	s := res.Sections[0]
	if len(s.Chunks) != 50 {
		t.Fatalf("%d chunks, want 50", len(s.Chunks))
	}
	next := 101
	for i, c := range s.Chunks {
		if c.StartLine != next || c.EndLine-c.StartLine+1 > MaxChunkLines {
			t.Fatalf("chunk %d: %d-%d", i, c.StartLine, c.EndLine)
		}
		text := ChunkEmbeddingText("huge.go", s, c)
		if len(text) > MaxChunkBytes+200 {
			t.Errorf("chunk %d text is %d bytes", i, len(text))
		}
		if c.EmbHash != Hash(text) {
			t.Errorf("chunk %d hash differs from ChunkEmbeddingText", i)
		}
		next = c.EndLine + 1
	}
	if next != 3101 {
		t.Errorf("chunks end at %d, want 3100", next-1)
	}
	first := ChunkEmbeddingText("huge.go", s, s.Chunks[0])
	if !strings.Contains(first, "lines 101-160\n\nfunc huge() {\n") {
		t.Errorf("first chunk text:\n%.200s", first)
	}
	last := ChunkEmbeddingText("huge.go", s, s.Chunks[49])
	if !strings.HasSuffix(last, "x2997 := compute(2997)\n}") {
		t.Errorf("last chunk text ends %q", last[len(last)-40:])
	}
	if e := EmbeddingText("huge.go", s); len(e) > MaxChunkBytes+200 || !strings.HasPrefix(e, "huge.go\ncode Go function: huge\n\nfunc huge() {") {
		t.Errorf("embedding text %d bytes: %.80q", len(e), e)
	}
}

func TestChunksBoundBytes(t *testing.T) {
	row := strings.Repeat("x", 999)
	content := strings.TrimSuffix(strings.Repeat(row+"\n", 20), "\n")
	res := finished(t, "table.txt", memory.Section{Anchor: "t", StartLine: 1, EndLine: 20, Content: content})
	s := res.Sections[0]
	if len(s.Chunks) != 5 {
		t.Fatalf("%d chunks, want 5 of 4 lines", len(s.Chunks))
	}
	for _, c := range s.Chunks {
		if c.EndLine-c.StartLine+1 != 4 {
			t.Errorf("chunk %d-%d", c.StartLine, c.EndLine)
		}
	}
	// One giant line: no chunks (they never split a line), bounded texts.
	giant := strings.Repeat("é", 100_000)
	res = finished(t, "min.js", memory.Section{Anchor: "m", StartLine: 1, EndLine: 1, Content: giant})
	s = res.Sections[0]
	if len(s.Chunks) != 0 {
		t.Errorf("%d chunks for one line", len(s.Chunks))
	}
	if e := EmbeddingText("min.js", s); len(e) > MaxChunkBytes+100 || !utf8.ValidString(e) {
		t.Errorf("embedding text %d bytes, valid %v", len(e), utf8.ValidString(e))
	}
	// A giant line among others is a chunk of its own.
	mixed := "a\n" + giant + "\nb"
	res = finished(t, "min.js", memory.Section{Anchor: "m", StartLine: 1, EndLine: 3, Content: mixed})
	got := res.Sections[0].Chunks
	want := []memory.Chunk{{StartLine: 1, EndLine: 1}, {StartLine: 2, EndLine: 2}, {StartLine: 3, EndLine: 3}}
	for i := range got {
		got[i].EmbHash = ""
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks %+v, want %+v", got, want)
	}
}

func TestRetrievalTexts(t *testing.T) {
	s := memory.Section{
		Kind: "code", Language: "Go", Symbol: "method", Name: "ParseHTTPRequest",
		QName: "Server.ParseHTTPRequest", Signature: "func (s *Server) ParseHTTPRequest(r io.Reader) error",
		Doc: "ParseHTTPRequest reads one request.", Topics: []string{"parse", "request"},
		Summary: "ParseHTTPRequest reads one request.", Content: "func (s *Server) ParseHTTPRequest(r io.Reader) error {\n\treturn nil\n}",
		StartLine: 3, EndLine: 5,
	}
	lex := LexicalText("net/server.go", s)
	wantLex := `net/server.go
net server go
code Go method
Server.ParseHTTPRequest ParseHTTPRequest
server parse http request
func (s *Server) ParseHTTPRequest(r io.Reader) error
ParseHTTPRequest reads one request.
parse request
ParseHTTPRequest reads one request.
func (s *Server) ParseHTTPRequest(r io.Reader) error {
	return nil
}`
	if lex != wantLex {
		t.Errorf("LexicalText:\n%s\nwant:\n%s", lex, wantLex)
	}
	emb := EmbeddingText("net/server.go", s)
	wantEmb := "net/server.go\ncode Go method: Server.ParseHTTPRequest\n\nfunc (s *Server) ParseHTTPRequest(r io.Reader) error {\n\treturn nil\n}"
	if emb != wantEmb {
		t.Errorf("EmbeddingText:\n%q\nwant:\n%q", emb, wantEmb)
	}
	if h := Hash(emb); len(h) != 32 || h != Hash(wantEmb) || h == Hash(lex) {
		t.Errorf("hash %q", h)
	}
}

func TestHashesFollowContent(t *testing.T) {
	mk := func(content string) memory.Section {
		return finished(t, "a.md", memory.Section{Anchor: "x", Symbol: "heading", QName: "X", StartLine: 1, EndLine: 1, Content: content}).Sections[0]
	}
	a, b, c := mk("# X\nsame"), mk("# X\nsame"), mk("# X\nchanged")
	if a.LexHash != b.LexHash || a.EmbHash != b.EmbHash {
		t.Error("same input, different hashes")
	}
	if a.LexHash == c.LexHash || a.EmbHash == c.EmbHash {
		t.Error("changed content, same hashes")
	}
}

func TestFinishIsIdempotent(t *testing.T) {
	res := finished(t, "docs/guide.md", memory.Section{Anchor: "Guide", Symbol: "heading", Name: "Guide", QName: "Guide",
		StartLine: 1, EndLine: 80, Content: strings.Repeat("Some words about the guide.\n", 80)})
	again := res
	again.Sections = append([]memory.Section(nil), res.Sections...)
	Finish(&again, Input{Path: "docs/guide.md", Language: "Go"})
	if !reflect.DeepEqual(res, again) {
		t.Errorf("second Finish changed the result:\n%+v\n%+v", res.Sections[0], again.Sections[0])
	}
}

// FuzzFinish runs Finish over arbitrary content shaped as one or more
// sections and checks the result is clean, valid JSON and stable.
func FuzzFinish(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/sections/*/*")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(filepath.Base(p), b)
		}
	}
	f.Add("bad\xff.go", []byte("\xef\xbb\xbf\xff\xfe\r\n\r\nfunc x\xc3() {}\r"))
	f.Add("min.js", []byte(strings.Repeat("a=1;", 3000)))
	f.Fuzz(func(t *testing.T, path string, content []byte) {
		lines := Lines(content)
		var secs []memory.Section
		// Cut the content into sections at every 7th line, with names
		// taken from the content itself.
		for from := 1; from <= lines.Count(); from += 7 {
			to := min(from+6, lines.Count())
			text := lines.Text(content, from, to)
			name := text
			if len(name) > 40 {
				name = name[:40]
			}
			secs = append(secs, memory.Section{Anchor: name, Name: name, QName: name, Doc: name, Signature: name,
				StartLine: from, EndLine: to, Content: text})
		}
		in := Input{Path: path, Language: "Go", Content: content}
		res := Result{Kind: "code", Parser: "fallback", Sections: secs}
		Finish(&res, in)
		if err := Validate(res, in); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil || !json.Valid(b) {
			t.Fatalf("marshal: %v", err)
		}
		again := res
		again.Sections = append([]memory.Section(nil), res.Sections...)
		Finish(&again, in)
		if !reflect.DeepEqual(res, again) {
			t.Fatal("Finish is not idempotent")
		}
	})
}
