package index

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// lean is what decodeRecord keeps of a record: the record without the
// fields the index does not read.
func lean(f *memory.File) *memory.File {
	c := *f
	c.Parser, c.Fallback, c.Abstract, c.Skeleton, c.Warnings, c.Entities, c.Edges = "", "", "", "", nil, nil, nil
	c.Sections = nil
	for _, s := range f.Sections {
		// Empty lists and absent ones mean the same ("topics":[] and
		// "chunks":[] decode to empty slices in encoding/json, to nil here).
		if len(s.Topics) == 0 {
			s.Topics = nil
		}
		if len(s.Chunks) == 0 {
			s.Chunks = nil
		}
		c.Sections = append(c.Sections, s)
	}
	if len(c.Topics) == 0 {
		c.Topics = nil
	}
	return &c
}

func sampleRecord() *memory.File {
	return &memory.File{
		Version: memory.RecordVersion, Blob: strings.Repeat("ab", 20), Size: 120, Lines: 9, Kind: "code", Language: "Go",
		Parser: "tree-sitter", Topics: []string{"net", "http"}, Abstract: "Package x does \"things\".",
		Skeleton: "func A()\nfunc B()", Warnings: []string{"w\u2028"},
		Entities: []memory.Entity{{ID: "sym:a.go#A", Kind: "function", Name: "A", Aliases: []string{"a"}}},
		Edges:    []memory.Edge{{From: "file:a.go", To: "pkg:fmt", Kind: "imports"}},
		Sections: []memory.Section{
			{Anchor: "A", Kind: "code", Symbol: "function", Language: "Go", Parser: "tree-sitter", Name: "A", QName: "A",
				Signature: "func A() <T>", Doc: "A does \\ things\t\"quoted\"", StartLine: 1, EndLine: 4, Summary: "résumé — ok 😀",
				Topics: []string{"t"}, Content: "func A() {\n\tfmt.Println(\"héllo\\n\", '\\x00', \"\u2028\")\n}\n\x01",
				Chunks: []memory.Chunk{{StartLine: 1, EndLine: 2, EmbHash: "e1"}}, LexHash: "l", EmbHash: "e"},
			{Anchor: "B", Kind: "code", StartLine: 5, EndLine: 9, Content: ""},
		},
	}
}

func TestDecodeRecordMatches(t *testing.T) {
	b, err := memory.EncodeFile(sampleRecord())
	if err != nil {
		t.Fatal(err)
	}
	want, err := memory.DecodeFile(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, lean(want)) {
		t.Fatalf("decodeRecord:\n got %+v\nwant %+v", got, lean(want))
	}
}

// Raw JSON that encoding/json accepts or rejects, and how the strings come
// out.
func TestParseRecordLikeEncodingJSON(t *testing.T) {
	blob := strings.Repeat("0", 40)
	head := `{"v":1,"blob":"` + blob + `","size":1,"lines":1,"kind":"text","parser":"whole",`
	cases := []string{
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
	}
	for i, c := range cases {
		b := memory.Compress([]byte(c))
		want, werr := memory.DecodeFile(b)
		got, gerr := decodeRecord(b)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("case %d: encoding/json error %v, decodeRecord error %v", i, werr, gerr)
			continue
		}
		if gerr != nil {
			if !errors.Is(gerr, memory.ErrCorrupt) {
				t.Errorf("case %d: error %v does not wrap ErrCorrupt", i, gerr)
			}
			continue
		}
		if !reflect.DeepEqual(got, lean(want)) {
			t.Errorf("case %d:\n got %+v\nwant %+v", i, got, lean(want))
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	b, _ := memory.EncodeFile(sampleRecord())
	raw, _ := memory.Decompress(b)
	f.Add(raw)
	f.Add([]byte(`{"v":1,"sections":[{"content":"\ud800\u0041"}]}`))
	f.Add([]byte(`{"v":1,"blob":"0123456789012345678901234567890123456789","sections":[{"content":"x","start_line":1,"end_line":1,"chunks":[]}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		b := memory.Compress(raw)
		want, werr := memory.DecodeFile(b)
		got, gerr := decodeRecord(b)
		if werr == nil && gerr == nil && !reflect.DeepEqual(got, lean(want)) {
			t.Fatalf("differs:\n got %+v\nwant %+v", got, lean(want))
		}
		if werr == nil && gerr != nil {
			t.Fatalf("encoding/json accepts, decodeRecord: %v", gerr)
		}
	})
}

// TestDecodeRecordRealMemory compares both decoders on every record of a
// real memory (KONTEKS_BENCH_REPO, see scripts/bench-recall.sh).
func TestDecodeRecordRealMemory(t *testing.T) {
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		t.Skip("KONTEKS_BENCH_REPO not set")
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil || mem == nil {
		t.Fatal(err)
	}
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		b, err := repo.BlobBytes(r.Blob, memory.MaxCompressedSize)
		if err != nil {
			t.Fatal(err)
		}
		want, err := memory.DecodeFile(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("%s: %v", r.Path, err)
		}
		if !reflect.DeepEqual(got, lean(want)) {
			t.Fatalf("%s differs", r.Path)
		}
	}
	t.Logf("%d records", len(refs))
}
