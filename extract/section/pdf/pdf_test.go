package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

const fixtures = "../../../testdata/sections/pdf"

func split(t testing.TB, content []byte) (section.Result, error) {
	t.Helper()
	in := section.Input{Path: "docs/report.pdf", Content: content}
	res, err := Split(in)
	section.Finish(&res, in)
	if verr := section.Validate(res, in); verr != nil {
		t.Fatal(verr)
	}
	if res.Kind != Kind || res.Parser != Parser || len(res.Sections) == 0 || res.Sections[0].Anchor != "document" {
		t.Fatalf("kind %q parser %q, %d sections", res.Kind, res.Parser, len(res.Sections))
	}
	if (err != nil) != (res.Fallback != "") {
		t.Fatalf("error %v with fallback %q", err, res.Fallback)
	}
	return res, err
}

type want struct{ anchor, symbol, name, qname, content string }

func check(t *testing.T, res section.Result, wants []want) {
	t.Helper()
	if len(res.Sections) != len(wants) {
		for _, s := range res.Sections {
			t.Logf("%q %s %q\n%s", s.Anchor, s.Symbol, s.Name, s.Content)
		}
		t.Fatalf("%d sections, want %d", len(res.Sections), len(wants))
	}
	for i, w := range wants {
		s := res.Sections[i]
		got := want{s.Anchor, s.Symbol, s.Name, s.QName, s.Content}
		if w.content == "" {
			got.content = ""
		}
		if got != w {
			t.Errorf("section %d = %+v\nwant %+v", i, got, w)
		}
	}
}

func TestSimple(t *testing.T) {
	res, err := split(t, simplePDF())
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, []want{
		{"document", "document", "Design notes", "", "Title: Design notes\nAuthor: Daria Lée\n2 pages"},
		{"page:1", "page", "page 1", "", "Storage design notes\nRecords are stored as zstd frames.\nKerned wordsjoined"},
		{"page:2", "page", "page 2", "", "Café “quoted” – dash"},
	})
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestOutline(t *testing.T) {
	res, err := split(t, outlinePDF())
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, []want{
		{"document", "document", "report.pdf", "", "3 pages"},
		{"page:1", "preamble", "", "", "Widget report"},
		{"page:1:Introduction", "heading", "Introduction", "Introduction", "1 Introduction\nThe widget stores memory in git."},
		{"page:1:Introduction > Background", "heading", "Background", "Introduction > Background", "1.1 Background\nEarlier tools used a database."},
		// A /Fit destination starts at the top of its page.
		{"page:2:Design", "heading", "Design", "Design", "2 Design\nRecords mirror source paths."},
		// A named destination (from the /Names tree).
		{"page:2:Design > Storage", "heading", "Storage", "Design > Storage", "2.1 Storage\nBlobs are zstd compressed."},
		// A GoTo action; a UTF-16 title.
		{"page:3:Appendix", "heading", "Appendix", "Appendix", "Appendix\nBenchmarks follow."},
	})
	if s := res.Sections[3]; s.Signature != "p. 1" {
		t.Errorf("signature %q", s.Signature)
	}
}

// TestOutlineAcrossPages: a section running over a page break carries a
// page marker and a page range.
func TestOutlineAcrossPages(t *testing.T) {
	p1 := textOps("F1", 12, 700, "Chapter one", "first page text")
	p2 := textOps("F1", 12, 700, "second page text")
	b := build([]string{
		"<< /Type /Catalog /Pages 2 0 R /Outlines 7 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Resources << /Font << /F1 8 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>",
		streamObj("", p1), streamObj("", p2),
		"<< /First 9 0 R >>",
		helv,
		"<< /Title (Chapter one) /Dest [3 0 R /XYZ 0 720 0] >>",
	}, 0)
	res, err := split(t, b)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sections[1]
	if s.Anchor != "page:1:Chapter one" || s.Signature != "p. 1-2" || s.Content != "Chapter one\nfirst page text\n[page 2]\nsecond page text" {
		t.Errorf("%q %q %q", s.Anchor, s.Signature, s.Content)
	}
}

func TestScanned(t *testing.T) {
	res, err := split(t, scannedPDF(false))
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, []want{
		{"document", "document", "report.pdf", "", "2 pages\nPages without a text layer (scanned or drawn): 2"},
		{"page:1", "page", "page 1", "", "Signed contract, scanned below."},
		{"page:2", "page", "page 2", "", "Page 2 has no text layer: it is probably a scanned image or a drawing."},
	})
	if len(res.Warnings) != 1 {
		t.Errorf("warnings %q", res.Warnings)
	}
	res, _ = split(t, scannedPDF(true))
	check(t, res, []want{
		{"document", "document", "report.pdf", "", "2 pages\nNo page has a text layer: a scanned or image-only document; its text is not in memory."},
	})
}

func TestModern(t *testing.T) {
	res, err := split(t, modernPDF())
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, []want{
		{"document", "document", "report.pdf", "", "1 page"},
		{"page:1", "page", "page 1", "", "ABC Défi\nInside a form XObject"},
	})
}

// TestFixtures checks the committed PDFs (written by the builders with
// -update in the media package's way: go test -run TestFixtures -update).
func TestFixtures(t *testing.T) {
	files := map[string][]byte{"notes.pdf": simplePDF(), "report.pdf": outlinePDF(), "scanned.pdf": scannedPDF(false), "modern.pdf": modernPDF()}
	for name, b := range files {
		if os.Getenv("KONTEKS_UPDATE_FIXTURES") != "" {
			if err := os.WriteFile(filepath.Join(fixtures, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := sectiontest.Read(t, fixtures, name)
		if !bytes.Equal(got, b) {
			t.Errorf("%s differs from its builder: KONTEKS_UPDATE_FIXTURES=1 go test -run TestFixtures", name)
		}
	}
}

func TestEncrypted(t *testing.T) {
	b := build([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", "<< /Filter /Standard /V 2 >>"}, 0)
	b = bytes.Replace(b, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Encrypt 3 0 R"), 1)
	res, err := split(t, b)
	if err == nil || res.Fallback != ReasonEncrypted || !strings.Contains(res.Sections[0].Content, "encrypted") {
		t.Errorf("err %v fallback %q content %q", err, res.Fallback, res.Sections[0].Content)
	}
}

// TestCorrupt: truncations, flipped bytes and garbage give a clean result
// (sections or a document section that says why), never a panic or hang.
func TestCorrupt(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	start := time.Now()
	for _, good := range [][]byte{simplePDF(), outlinePDF(), scannedPDF(false), modernPDF()} {
		for n := 0; n < len(good); n += 1 + len(good)/40 {
			split(t, good[:n])
		}
		for i := 0; i < 300; i++ {
			b := append([]byte(nil), good...)
			for j := 0; j < 1+r.Intn(10); j++ {
				b[r.Intn(len(b))] = "()<>[]/ 0123456789RobjTfTjstream\x00\xff"[r.Intn(34)]
			}
			split(t, b)
		}
	}
	for _, s := range []string{"", "%PDF-", "%PDF-1.7\n1 0 obj\n<<", "garbage", "%PDF-1.4\n" + strings.Repeat("1 0 obj (", 20000)} {
		if _, err := split(t, []byte(s)); err == nil {
			t.Errorf("%.20q: no error", s)
		}
	}
	if d := time.Since(start); d > 20*time.Second*slow {
		t.Errorf("took %v", d)
	}
}

// TestHostile: cycles everywhere, deep nesting, a decompression bomb and
// lies about sizes.
func TestHostile(t *testing.T) {
	content := textOps("F1", 12, 700, "still readable")
	var bomb bytes.Buffer
	w := zlib.NewWriter(&bomb)
	zeros := make([]byte, 1<<20)
	// 20 MB of zeros: past the per-stream cut (maxStreamOut); its ten
	// uses pass the per-document cut (maxTotalOut). A larger bomb only
	// spends the test's time on compressing it.
	for i := 0; i < (maxStreamOut>>20)+4; i++ {
		w.Write(zeros)
	}
	w.Close()
	cases := map[string][]string{
		"outline cycle": {
			"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 6 0 R >> >> >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
			streamObj("", content),
			"<< /First 7 0 R >>",
			helv,
			"<< /Title (Loop) /First 7 0 R /Next 7 0 R /Dest [3 0 R /Fit] >>",
		},
		"page tree cycle": {
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 99999999 /Resources << /Font << /F1 5 0 R >> >> >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
			streamObj("", content),
			helv,
		},
		"form cycle": {
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> /XObject << /X 5 0 R >> >> >>",
			streamObj("", content+" /X Do"),
			streamObj("/Type /XObject /Subtype /Form", "/X Do /X Do "+content),
			helv,
		},
		"bomb": {
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>",
			"<< /Type /Page /Parent 2 0 R /Contents [4 0 R 4 0 R 4 0 R 4 0 R 4 0 R] >>",
			fmt.Sprintf("<< /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", bomb.Len(), bomb.String()),
		},
		"deep": {
			"<< /Type /Catalog /Pages 2 0 R /X " + strings.Repeat("[", 100000) + " >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
			streamObj("", strings.Repeat("[", 50000)+content+strings.Repeat("q ", 100000)+strings.Repeat("Q ", 100000)),
			helv,
		},
		"bad font": {
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
			streamObj("", "BT /F1 1e309 Tf 1 0 0 1 NaN 5 Tm <00010203> Tj [(a) -1e999 (b)] TJ ET"),
			"<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 6 0 R /DescendantFonts [<< /W [0 [1 2 3] 5 4] >>] >>",
			streamObj("", "1 begincodespacerange <00> <FFFFFFFFFF> endcodespacerange 2 beginbfrange <0000> <FFFF> <D800> <00> <FF> [(x)] endbfrange beginbfchar <01> /fi endbfchar"),
		},
	}
	for name, objs := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res, err := split(t, build(objs, 0))
			if d := time.Since(start); d > 10*time.Second*slow {
				t.Errorf("took %v", d)
			}
			t.Logf("err %v, %d sections, warnings %q", err, len(res.Sections), res.Warnings)
		})
	}
}

func FuzzPDF(f *testing.F) {
	for _, b := range [][]byte{simplePDF(), outlinePDF(), scannedPDF(false), modernPDF()} {
		f.Add(b)
	}
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj 2 0 obj << /Kids [2 0 R] >> endobj trailer << /Root 1 0 R >>"))
	f.Fuzz(func(t *testing.T, content []byte) {
		split(t, content)
	})
}
