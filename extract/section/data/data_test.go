package data

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/memory"
)

const fixtures = "../../../testdata/sections/data"

type splitter func(section.Input) (section.Result, error)

type want struct {
	anchor, name, symbol string
	start, end           int
}

// run splits and finishes content and checks the invariants; shared marks
// formats whose sections may share a line (minified JSON).
func run(t testing.TB, split splitter, content []byte) (section.Result, error) {
	t.Helper()
	res, err := sectiontest.SplitOrRefuse(t, split, section.Input{Path: "config/app", Language: "", Content: content})
	if err != nil {
		return res, err
	}
	last := 0
	for _, s := range res.Sections {
		// Sections are in order; only minified JSON shares a line.
		if s.StartLine < last || s.StartLine == last && res.Kind != "json" {
			t.Fatalf("section %q at %d overlaps the previous (ends %d)", s.Anchor, s.StartLine, last)
		}
		if s.Parser != "structural" || s.Kind != res.Kind {
			t.Fatalf("section %q: parser %q kind %q", s.Anchor, s.Parser, s.Kind)
		}
		last = s.EndLine
	}
	return res, nil
}

func check(t *testing.T, res section.Result, ws []want) {
	t.Helper()
	sectiontest.Check(t, res, ws, func(s memory.Section) want { return want{s.Anchor, s.Name, s.Symbol, s.StartLine, s.EndLine} })
	for i, s := range res.Sections {
		if s.QName != strings.TrimSuffix(s.Anchor, "#2") {
			t.Errorf("section %d qname %q, anchor %q", i, s.QName, s.Anchor)
		}
	}
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		file  string
		split splitter
		kind  string
		want  []want
	}{
		{"package.json", SplitJSON, "json", []want{
			{"$.name", "name", "key", 2, 2},
			{"$.version", "version", "key", 3, 3},
			{"$.scripts", "scripts", "key", 4, 7},
			{`$["lint-staged"]`, "lint-staged", "key", 8, 10},
			{"$.dependencies", "dependencies", "key", 11, 11},
			{"$.name#2", "name", "key", 12, 12},
		}},
		{"array.json", SplitJSON, "json", []want{{"$", "", "value", 1, 4}}},
		{"minified.json", SplitJSON, "json", []want{
			{"$.a", "a", "key", 1, 1}, {"$.b", "b", "key", 1, 1}, {"$.d", "d", "key", 1, 1},
		}},
		{"tsconfig.json", SplitJSON, "json", []want{
			{"$.compilerOptions", "compilerOptions", "key", 3, 6},
			{"$.include", "include", "key", 7, 7},
		}},
		{"config.yaml", SplitYAML, "yaml", []want{
			{"$.name", "name", "key", 2, 2},
			{"$.replicas", "replicas", "key", 3, 3},
			{"$.image", "image", "key", 6, 9},
			{"$.script", "script", "key", 11, 14},
			{"$.empty", "empty", "key", 16, 16},
		}},
		{"multi.yaml", SplitYAML, "yaml", []want{
			{"doc0:$.apiVersion", "apiVersion", "key", 1, 1},
			{"doc0:$.kind", "kind", "key", 2, 2},
			{"doc0:$.metadata", "metadata", "key", 3, 4},
			{"doc1:$.apiVersion", "apiVersion", "key", 6, 6},
			{"doc1:$.kind", "kind", "key", 7, 7},
			{"doc1:$.spec", "spec", "key", 8, 9},
		}},
		{"Cargo.toml", SplitTOML, "toml", []want{
			{"$.package", "package", "key", 2, 4},
			{"$.dependencies", "dependencies", "key", 6, 11},
			{"$.bin", "bin", "key", 13, 17},
			{"$.profile", "profile", "key", 19, 20},
		}},
		{"root.toml", SplitTOML, "toml", []want{
			{"$.title", "title", "key", 1, 1},
			{"$.owner", "owner", "key", 2, 3},
			{"$.tags", "tags", "key", 4, 7},
			{"$.servers", "servers", "key", 9, 10},
			{"$.clients", "clients", "key", 12, 13},
			{"$.servers#2", "servers", "key", 15, 16},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := run(t, tt.split, sectiontest.Read(t, fixtures, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tt.kind || res.Parser != "structural" {
				t.Errorf("result kind %q parser %q", res.Kind, res.Parser)
			}
			check(t, res, tt.want)
		})
	}
}

func TestContent(t *testing.T) {
	res, _ := run(t, SplitJSON, sectiontest.Read(t, fixtures, "package.json"))
	if got := res.Sections[2].Content; got != "  \"scripts\": {\n    \"build\": \"tsc -p .\",\n    \"test\": \"vitest run\"\n  }," {
		t.Errorf("scripts content %q", got)
	}
	// Minified: each key gets its own span of the shared line.
	res, _ = run(t, SplitJSON, sectiontest.Read(t, fixtures, "minified.json"))
	var got []string
	for _, s := range res.Sections {
		got = append(got, s.Content)
	}
	if want := []string{`{"a":1`, `"b":{"c":[1,2]}`, `"d":"x"}`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("minified contents %q, want %q", got, want)
	}
	// Comments above a key are its doc (YAML, TOML, JSON with comments).
	for _, c := range []struct {
		file  string
		split splitter
		i     int
		doc   string
	}{
		{"config.yaml", SplitYAML, 0, "Service name."},
		{"config.yaml", SplitYAML, 2, "Container settings."},
		{"Cargo.toml", SplitTOML, 0, "The package."},
		{"tsconfig.json", SplitJSON, 0, "Compiler settings."},
	} {
		res, _ := run(t, c.split, sectiontest.Read(t, fixtures, c.file))
		if s := res.Sections[c.i]; s.Doc != c.doc || s.Summary != c.doc {
			t.Errorf("%s %s: doc %q summary %q, want %q", c.file, s.Anchor, s.Doc, s.Summary, c.doc)
		}
	}
	// A block scalar's comment-like lines stay in its value.
	res, _ = run(t, SplitYAML, sectiontest.Read(t, fixtures, "config.yaml"))
	if s := res.Sections[3]; !strings.HasSuffix(s.Content, "echo two") {
		t.Errorf("script content %q", s.Content)
	}
}

func TestKeyPath(t *testing.T) {
	for key, want := range map[string]string{
		"scripts":  "$.scripts",
		"_private": "$._private",
		"v2":       "$.v2",
		"a b":      `$["a b"]`,
		"a.b":      `$["a.b"]`,
		`say "hi"`: `$["say \"hi\""]`,
		"9lives":   `$["9lives"]`,
		"ünï":      `$["ünï"]`,
		"<tag>&":   `$["<tag>&"]`,
		"":         `$[""]`,
	} {
		if got := KeyPath("$", key); got != want {
			t.Errorf("KeyPath(%q) = %s, want %s", key, got, want)
		}
	}
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name    string
		split   splitter
		in      string
		anchors string // joined by |
	}{
		{"json empty file", SplitJSON, " \n", ""},
		{"json empty object", SplitJSON, "{}\n", "$"},
		{"json scalar", SplitJSON, `"hello"`, "$"},
		{"json number", SplitJSON, "\n42\n", "$"},
		{"json bom crlf", SplitJSON, "\uFEFF{\r\n  \"a\": 1,\r\n  \"b c\": [\r\n  ]\r\n}\r\n", `$.a|$["b c"]`},
		{"json invalid utf8 key", SplitJSON, "{\"k\xff\": 1}", "$[\"k\uFFFD\"]"},
		{"json trailing comma", SplitJSON, "{\"a\": [1,],}", "$.a"},
		{"yaml empty", SplitYAML, "", ""},
		{"yaml comments only", SplitYAML, "# nothing\n", ""},
		{"yaml flow mapping", SplitYAML, "{a: 1, b: 2}\n", "$"},
		{"yaml sequence", SplitYAML, "- a\n- b\n", "$"},
		{"yaml scalar doc", SplitYAML, "--- |\n  text\n", "$"},
		{"yaml empty docs", SplitYAML, "---\n---\na: 1\n---\n", "doc1:$.a"},
		{"yaml multi kinds", SplitYAML, "a: 1\n---\n- x\n", "doc0:$.a|doc1:$"},
		{"yaml aliases", SplitYAML, "base: &b {x: 1}\nother: *b\n<<: *b\n", `$.base|$.other|$["<<"]`},
		{"yaml bom crlf", SplitYAML, "\uFEFFa: 1\r\nb:\r\n  - 2\r\n", "$.a|$.b"},
		{"yaml odd breaks", SplitYAML, "a: x\ry\nb: \"p\u2028q\"\nc: 1\n", "$.a|$.b|$.c"},
		{"yaml indented doc", SplitYAML, "  a: 1\n  b: 2\n", "$.a|$.b"},
		{"toml empty", SplitTOML, "\n", ""},
		{"toml quoted keys", SplitTOML, "\"my key\" = 1\n'lit' = 2\n[\"a b\".c]\nx = 1\n", `$["my key"]|$.lit|$["a b"]`},
		{"toml inline table", SplitTOML, "point = { x = 1, y = 2 }\n", "$.point"},
		{"toml multiline string", SplitTOML, "s = \"\"\"\n[not a table]\n\"\"\"\nt = 1\n", "$.s|$.t"},
		{"toml crlf bom", SplitTOML, "\uFEFFa = 1\r\n[b]\r\nc = 2\r\n", "$.a|$.b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tt.split, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Sections {
				got = append(got, s.Anchor)
			}
			if strings.Join(got, "|") != tt.anchors {
				t.Errorf("anchors %q, want %q", strings.Join(got, "|"), tt.anchors)
			}
		})
	}
	res, _ := run(t, SplitTOML, []byte("s = \"\"\"\n[not a table]\n\"\"\"\nt = 1\n"))
	if s := res.Sections[0]; s.StartLine != 1 || s.EndLine != 3 {
		t.Errorf("multiline string key lines %d-%d, want 1-3", s.StartLine, s.EndLine)
	}
}

func TestMalformed(t *testing.T) {
	deepJSON := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	tests := []struct {
		name  string
		split splitter
		in    string
		err   string // substring of the error
	}{
		{"json missing value", SplitJSON, "{\n  \"a\": ,\n}", "json: line 2"},
		{"json unterminated", SplitJSON, "{\"a\": [1, 2", "json"},
		{"json trailing data", SplitJSON, "{}\n\n{}", "json: line 3: data after the top-level value"},
		{"json not json", SplitJSON, "hello world", "json: line 1"},
		{"json deep", SplitJSON, deepJSON, "json"},
		{"json deep under key", SplitJSON, `{"a": ` + deepJSON + `}`, "json"},
		{"yaml unclosed flow", SplitYAML, "a: [1, 2\nb: 3\n", "yaml: line"},
		{"yaml bad indent", SplitYAML, "a:\n  b: 1\n c: 2\n", "yaml: line"},
		{"yaml deep", SplitYAML, strings.Repeat("[", 100_000), "yaml"},
		{"yaml tab", SplitYAML, "a:\n\t- b\n", "yaml"},
		{"toml missing value", SplitTOML, "a = 1\nb =\n", "toml: line 2"},
		{"toml unclosed table", SplitTOML, "[a\n", "toml: line 1"},
		{"toml deep", SplitTOML, "a = " + strings.Repeat("[", 100_000), "toml"},
		{"toml bad utf8", SplitTOML, "a = \"\xff\"\n", "toml: line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := run(t, tt.split, []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want one containing %q", err, tt.err)
			}
			if d := time.Since(start); d > slow*5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestAnchorsStable(t *testing.T) {
	base := string(sectiontest.Read(t, fixtures, "package.json"))
	edited := strings.Replace(base, `"build": "tsc -p .",`, "\"build\": \"tsc -p .\",\n    \"lint\": \"eslint .\",", 1)
	edited = strings.Replace(edited, `"version": "1.2.0"`, `"version": "1.3.0"`, 1)
	a, _ := run(t, SplitJSON, []byte(base))
	b, _ := run(t, SplitJSON, []byte(edited))
	for i := range a.Sections {
		if a.Sections[i].Anchor != b.Sections[i].Anchor {
			t.Errorf("anchor %q became %q", a.Sections[i].Anchor, b.Sections[i].Anchor)
		}
	}
	if b.Sections[3].StartLine != a.Sections[3].StartLine+1 {
		t.Errorf("later key did not move down one line")
	}
	if a.Sections[0].EmbHash != b.Sections[0].EmbHash || a.Sections[1].EmbHash == b.Sections[1].EmbHash {
		t.Error("hashes do not follow the edited keys")
	}
}

func TestRecordsAreValidJSON(t *testing.T) {
	res, err := run(t, SplitYAML, []byte("k\xff: v\xfe\n"))
	if err != nil {
		t.Skip("yaml.v3 rejects invalid UTF-8:", err)
	}
	b, err := json.Marshal(res)
	if err != nil || !json.Valid(b) {
		t.Fatalf("invalid JSON: %v", err)
	}
}

func fuzz(split splitter) func(*testing.T, []byte) {
	return func(t *testing.T, content []byte) {
		_, _ = run(t, split, content)
	}
}

func FuzzJSON(f *testing.F) {
	sectiontest.Seed(f, filepath.Join(fixtures, "*.json"),
		`{"a":{"b":[1,{"c":null}]},"a":"x"} `,
		"// c\n{/* x */ \"a\": 1,}")
	f.Fuzz(fuzz(SplitJSON))
}

func FuzzYAML(f *testing.F) {
	sectiontest.Seed(f, filepath.Join(fixtures, "*.yaml"),
		"a: &x [1]\nb: *x\n---\n? [c]\n: d\n...\n")
	f.Fuzz(fuzz(SplitYAML))
}

func FuzzTOML(f *testing.F) {
	sectiontest.Seed(f, filepath.Join(fixtures, "*.toml"),
		"a.b.c = 1\n[[x.y]]\nz = { q = [1, [2]] }\n")
	f.Fuzz(fuzz(SplitTOML))
}

// generatedJSON returns about size bytes of a package-lock-like document.
func generatedJSON(size int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"name\": \"app\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n")
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"node_modules/pkg-%d\": {\n      \"version\": \"1.%d.0\",\n      \"resolved\": \"https://registry.example/pkg-%d.tgz\",\n      \"integrity\": \"sha512-%040d\",\n      \"dependencies\": {\"dep-a\": \"^1.0.0\", \"dep-b\": \"~2.%d\"}\n    }", i, i, i, i, i)
	}
	b.WriteString("\n  },\n  \"extra\": [1, 2, 3]\n}\n")
	return []byte(b.String())
}

func BenchmarkJSON(b *testing.B) {
	content := generatedJSON(1 << 20)
	in := section.Input{Path: "package-lock.json", Content: content}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SplitJSON(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONKeys is a 1 MB object of many small top-level keys, the
// worst case for per-key work.
func BenchmarkJSONKeys(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{\n")
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "  \"key%d\": {\"n\": %d, \"s\": \"value %d\"},\n", i, i, i)
	}
	sb.WriteString("  \"last\": true\n}\n")
	content := []byte(sb.String())
	in := section.Input{Path: "keys.json", Content: content}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SplitJSON(in); err != nil {
			b.Fatal(err)
		}
	}
}
