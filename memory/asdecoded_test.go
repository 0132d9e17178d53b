package memory

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

// roundTrip is what DecodeSections reads back from EncodeFile(f).
func roundTrip(t testing.TB, f *File) *File {
	t.Helper()
	b, err := EncodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSections(b)
	if err != nil {
		t.Fatalf("round trip: %v", err)
	}
	return got
}

// sameAsRoundTrip fails t unless AsDecoded(f) is the round trip, or says
// it is not exactly when a string it keeps is not valid UTF-8.
func sameAsRoundTrip(t testing.TB, name string, f *File, wantOK bool) {
	t.Helper()
	got, ok := AsDecoded(f)
	if ok != wantOK {
		t.Fatalf("%s: AsDecoded ok %v, want %v", name, ok, wantOK)
	}
	if !ok {
		return
	}
	if want := roundTrip(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: AsDecoded\n got %#v\nwant %#v", name, got, want)
	}
}

// TestAsDecodedIsTheRoundTrip: for records as extraction makes them (the
// sample, empty lists and sections, U+2028, control characters), AsDecoded
// gives what DecodeSections reads back from the encoded record; a string
// that is not valid UTF-8 anywhere the index reads, or a record that does
// not validate, makes it say no.
func TestAsDecodedIsTheRoundTrip(t *testing.T) {
	sameAsRoundTrip(t, "sample", sampleRecord(), true)
	empty := sampleRecord()
	empty.Topics, empty.Sections = []string{}, []Section{}
	sameAsRoundTrip(t, "empty lists", empty, true)
	none := sampleRecord()
	none.Sections = nil
	sameAsRoundTrip(t, "no sections", none, true)
	odd := sampleRecord()
	odd.Sections[1].Topics, odd.Sections[1].Chunks = []string{}, []Chunk{}
	odd.Sections[0].Content = "a\x00b\x1f\u2028\u2029\U0001F600 \\ \" <&>"
	odd.Warnings, odd.Skeleton = []string{"w\xff"}, "\xfe" // dropped by DecodeSections: no matter
	sameAsRoundTrip(t, "odd", odd, true)
	for name, set := range map[string]func(f *File){
		"content":    func(f *File) { f.Sections[0].Content = "ok\xffok" },
		"name":       func(f *File) { f.Sections[1].Name = "\xc3" },
		"topic":      func(f *File) { f.Sections[0].Topics = []string{"t", "\xed\xa0\x80"} },
		"file topic": func(f *File) { f.Topics = []string{"\x80"} },
		"chunk":      func(f *File) { f.Sections[0].Chunks[0].EmbHash = "\xff" },
		"language":   func(f *File) { f.Language = "G\xffo" },
		"invalid":    func(f *File) { f.Blob = "short" },
	} {
		f := sampleRecord()
		set(f)
		sameAsRoundTrip(t, name, f, false)
	}
}

// FuzzAsDecoded: for any texts, AsDecoded is the round trip or says no,
// and it says no only for text that is not valid UTF-8.
func FuzzAsDecoded(f *testing.F) {
	f.Add("func A() {}\n", "doc", "t", 3)
	f.Add("\xff", "\u2028", "", 0)
	f.Fuzz(func(t *testing.T, content, doc, topic string, n int) {
		rec := sampleRecord()
		rec.Sections = rec.Sections[:((n%3)+3)%3]
		for i := range rec.Sections {
			rec.Sections[i].Content, rec.Sections[i].Doc = content, doc
			rec.Sections[i].Topics = []string{topic}
		}
		valid := len(rec.Sections) == 0 || utf8.ValidString(content) && utf8.ValidString(doc) && utf8.ValidString(topic)
		sameAsRoundTrip(t, "fuzz", rec, valid)
	})
}
