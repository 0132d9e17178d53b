package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/jsondec"
)

// decodeJSON is what DecodeFile must match: the record decoded by
// encoding/json, one value and nothing after it, then validated.
func decodeJSON(b []byte) (*File, error) {
	raw, err := Decompress(b)
	if err != nil {
		return nil, err
	}
	var f File
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data", ErrCorrupt)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// lean is what DecodeSections keeps of a record.
func lean(f *File) *File {
	c := *f
	c.Parser, c.Fallback, c.Abstract, c.Skeleton, c.Warnings, c.Entities, c.Edges = "", "", "", "", nil, nil, nil
	if f.Sections != nil {
		c.Sections = make([]Section, len(f.Sections))
		for i, s := range f.Sections {
			s.Parser = ""
			c.Sections[i] = s
		}
	}
	return &c
}

// sameAsJSON fails t unless DecodeFile and DecodeSections accept b
// exactly when encoding/json does, with the same values.
func sameAsJSON(t testing.TB, name string, b []byte) {
	t.Helper()
	want, werr := decodeJSON(b)
	got, gerr := DecodeFile(b)
	lg, lerr := DecodeSections(b)
	if (werr == nil) != (gerr == nil) || (werr == nil) != (lerr == nil) {
		t.Fatalf("%s: encoding/json error %v, DecodeFile error %v, DecodeSections error %v", name, werr, gerr, lerr)
	}
	if werr != nil {
		if !errors.Is(gerr, ErrCorrupt) || !errors.Is(lerr, ErrCorrupt) {
			t.Fatalf("%s: errors %v, %v do not wrap ErrCorrupt", name, gerr, lerr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: DecodeFile\n got %#v\nwant %#v", name, got, want)
	}
	if !reflect.DeepEqual(lg, lean(want)) {
		t.Fatalf("%s: DecodeSections\n got %#v\nwant %#v", name, lg, lean(want))
	}
}

func sampleRecord() *File {
	return &File{
		Version: RecordVersion, Blob: strings.Repeat("ab", 20), Size: 120, Lines: 9, Kind: "code", Language: "Go",
		Parser: "tree-sitter", Fallback: "none", Topics: []string{"net", "http"}, Abstract: "Package x does \"things\".",
		Skeleton: "func A()\nfunc B()", Warnings: []string{"w\u2028"},
		Entities: []Entity{{ID: "sym:a.go#A", Kind: "function", Name: "A", Aliases: []string{"a"}, Anchor: "A"}, {ID: "file:a.go", Kind: "file"}},
		Edges:    []Edge{{From: "file:a.go", To: "pkg:fmt", Kind: "imports", Raw: "fmt"}},
		Sections: []Section{
			{Anchor: "A", Kind: "code", Symbol: "function", Language: "Go", Parser: "tree-sitter", Name: "A", QName: "A",
				Signature: "func A() <T>", Doc: "A does \\ things\t\"quoted\"", StartLine: 1, EndLine: 4, Summary: "résumé — ok 😀",
				Topics: []string{"t"}, Content: "func A() {\n\tfmt.Println(\"héllo\\n\", '\\x00', \"\u2028\")\n}\n\x01",
				Chunks: []Chunk{{StartLine: 1, EndLine: 2, EmbHash: "e1"}}, LexHash: "l", EmbHash: "e"},
			{Anchor: "B", Kind: "code", StartLine: 5, EndLine: 9, Content: ""},
		},
	}
}

func TestDecodeMatchesJSON(t *testing.T) {
	b, err := EncodeFile(sampleRecord())
	if err != nil {
		t.Fatal(err)
	}
	sameAsJSON(t, "sample", b)
	got, err := DecodeFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sampleRecord()) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, sampleRecord())
	}
}

// likeJSON are raw records encoding/json accepts or refuses, for the ways
// its decoding is easy to get wrong. They seed FuzzDecodeLikeJSON too.
func likeJSON() []string {
	blob := strings.Repeat("0", 40)
	head := `{"v":1,"blob":"` + blob + `","size":1,"lines":1,"kind":"text","parser":"whole",`
	return []string{
		head + `"sections":[{"anchor":"a","kind":"text","symbol":"file","parser":"whole","start_line":1,"end_line":1,"content":"x\u00e9\ud83d\ude00\ud800y\\n"}]}`,
		head + `"sections":[{"anchor":"a","start_line":1,"end_line":1,"content":"` + "\xff\xfeok\xc3" + `"}]}`,
		head + `"sections":[{"anchor":"a","start_line":1,"end_line":1,"content":"` + "\xc3\\u00a9\xa9" + `"}]}`,
		head + `"sections":null,"entities":[{"id":"x","kind":"k","name":"n","aliases":["q",null]}],"z":{"a":[1,-2.5e+3,true,false,null,{}]}}`,
		head + `"sections":[null,{"anchor":"b","start_line":2,"end_line":3,"chunks":[null,{"emb_hash":"h"}]}]}` + " \n\t",
		head + `"sections":[],"sections":[{"anchor":"c","start_line":1,"end_line":1}],"v":2}`,
		head + `"sections":[{"start_line":1.5,"end_line":2}]}`,
		head + `"SECTIONS":[{"Content":"a","content":"b","ANCHOR":"x","\u017ftart_line":2,"End_Line":3,"Chunks":[{"EMB_HASH":"h"}]}],"Blob":"` + strings.Repeat("1", 40) + `"}`,
		head + `"sections":[{"content":"a","Content":"b","Kind":5}]}`,
		head + `"sections":[{"start_line":1e2,"end_line":200}]}`,
		head + `"sections":[{"start_line":99999999999999999999,"end_line":2}]}`,
		head + `"sections":[{"content":5}]}`,
		head + `"sections":{}}`,
		head + `"sections":[1]}`,
		head + `"sections":[{"content":"a` + "\n" + `b"}]}`,
		head + `"sections":[{"content":"\x"}]}`,
		head + `"sections":[{"content":"\u12"}]}`,
		head + `"sections":[]} x`,
		head + `"sections":[]}{}`,
		head + `"sections":[],}`,
		head + `"sections":[01]}`,
		head + `"x":tru}`,
		head + `"x":[1,]}`,
		head + `"sections":[{"start_line":3,"end_line":2}]}`,
		head + `"sections":[{"start_line":-1,"end_line":2}]}`,
		`{"v":0,"blob":"` + blob + `"}`,
		`{"v":1,"blob":"XYZ"}`,
		`null`,
		`[]`,
		``,
		`{"v":1,"blob":"` + blob + `","lines":-3}`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		head + `"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
		// Empty lists are empty, absent and null ones nil.
		head + `"topics":[],"warnings":[],"entities":[],"edges":[],"sections":[]}`,
		head + `"topics":null,"warnings":null,"entities":null,"edges":null,"sections":null}`,
		head + `"entities":[{"id":"e","aliases":[]},{"id":"f","aliases":null},{"id":"g"}],"sections":[{"topics":[],"chunks":[]},{"topics":null,"chunks":null},{}]}`,
		head + `"topics":["a"],"topics":[]}`,
		head + `"topics":["a"],"topics":null}`,
		// A repeated key decodes into what the first left: fields it does
		// not name stay, null changes nothing, and a list shortened by one
		// key shows its old elements again when the next one grows it.
		head + `"sections":[{"anchor":"a","kind":"k","topics":["x","y"]}],"sections":[{"kind":"z","anchor":null,"topics":["w"]}]}`,
		head + `"kind":"a","kind":null,"language":"Go","language":null,"size":5,"size":null,"v":null}`,
		head + `"topics":["a","b"],"topics":["c"],"topics":["d",null]}`,
		head + `"entities":[{"id":"a","name":"n"},{"id":"b"}],"entities":[{"kind":"k"}],"entities":[{},null]}`,
		head + `"edges":[{"from":"a","to":"b","kind":"imports"}],"edges":[{"raw":"r","from":null}]}`,
		// Wrong types anywhere are refused, in the fields DecodeSections
		// drops too.
		head + `"entities":5}`,
		head + `"entities":[5]}`,
		head + `"entities":[{"aliases":"a"}]}`,
		head + `"edges":{"from":"a"}}`,
		head + `"warnings":[1]}`,
		head + `"skeleton":[]}`,
		head + `"abstract":true}`,
		head + `"fallback":{}}`,
		head + `"parser":1}`,
		head + `"sections":[{"parser":false}]}`,
		head + `"sections":[{"chunks":[{"start_line":"1"}]}]}`,
		head + `"sections":[{"topics":"t"}]}`,
		head + `"size":"1"}`,
		head + `"size":-9223372036854775808,"v":1}`,
		head + `"size":9223372036854775808}`,
		head + `"lines":-0}`,
		head + `"Abstract":"a","ABSTRACT":"b","abstract":"c","Skeleton":"s"}`,
		`{"v":1,"v":1,"blob":"` + blob + `","blob":null}`,
		` {"v":1,"blob":"` + blob + `"}`,
		"\ufeff" + `{"v":1,"blob":"` + blob + `"}`,
	}
}

func TestDecodeLikeJSON(t *testing.T) {
	for i, c := range likeJSON() {
		sameAsJSON(t, fmt.Sprintf("case %d", i), Compress([]byte(c)))
	}
}

// DecodeFile's strings are the record's own: the buffer it parsed may be
// reused. DecodeSections' share it.
func TestDecodeFileClones(t *testing.T) {
	raw, err := json.Marshal(sampleRecord())
	if err != nil {
		t.Fatal(err)
	}
	for _, clone := range []bool{true, false} {
		buf := bytes.Clone(raw)
		f, err := (&parser{Parser: jsondec.Parser{Clone: clone}}).record(buf)
		if err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] = 'X'
		}
		same := reflect.DeepEqual(f, sampleRecord())
		if clone && !same {
			t.Fatalf("a cloned record changed with its buffer: %#v", f)
		}
		if !clone && same {
			t.Fatal("a shared record did not share its buffer")
		}
	}
}

// FuzzDecodeLikeJSON: DecodeFile and DecodeSections accept exactly what
// encoding/json accepts, with the same values, and never panic. Its seed
// corpus is in testdata/fuzz and likeJSON.
func FuzzDecodeLikeJSON(f *testing.F) {
	raw, err := json.Marshal(sampleRecord())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	for _, c := range likeJSON() {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsJSON(t, "input", Compress(raw))
	})
}
