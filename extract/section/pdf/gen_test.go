package pdf

// Builders of small PDF files for tests: every byte is made here.

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// build writes objects 1..n (their bodies as given) with a correct xref
// table and a trailer naming /Root 1 0 R (and /Info when info > 0).
func build(objs []string, info int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs)+1)
	for i, o := range objs {
		offs[i+1] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs[1:] {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	infoRef := ""
	if info > 0 {
		infoRef = fmt.Sprintf(" /Info %d 0 R", info)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, infoRef, x)
	return b.Bytes()
}

func streamObj(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

func flateObj(dict string, data []byte) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(data)
	w.Close()
	return fmt.Sprintf("<< %s /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", dict, z.Len(), z.String())
}

// textOps shows lines of text at decreasing heights from y.
func textOps(font string, size, y int, lines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BT /%s %d Tf %d TL 72 %d Td\n", font, size, size+4, y)
	for i, l := range lines {
		if i > 0 {
			b.WriteString("T* ")
		}
		fmt.Fprintf(&b, "(%s) Tj\n", strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l))
	}
	b.WriteString("ET\n")
	return b.String()
}

const helv = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// simplePDF: two pages of text, document info, no outline.
func simplePDF() []byte {
	p1 := textOps("F1", 12, 720, "Storage design notes", "Records are stored as zstd frames.") +
		"BT /F1 10 Tf 72 600 Td [(Kerned) -300 (words) 20 (joined)] TJ ET"
	p2 := textOps("F1", 12, 700, "Caf\xe9 \x93quoted\x94 \x96 dash")
	return build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 7 0 R >>",
		helv,
		streamObj("", p1),
		streamObj("", p2),
		"<< /Title (Design notes) /Author <FEFF004400610072006900610020004C00E90065> >>",
	}, 8)
}

// outlinePDF: three pages and an outline whose destinations are explicit
// arrays, a named destination and a GoTo action.
func outlinePDF() []byte {
	p1 := textOps("F1", 18, 740, "Widget report") +
		textOps("F1", 14, 680, "1 Introduction", "The widget stores memory in git.") +
		textOps("F1", 12, 480, "1.1 Background", "Earlier tools used a database.")
	p2 := textOps("F1", 14, 740, "2 Design", "Records mirror source paths.") +
		textOps("F1", 12, 500, "2.1 Storage", "Blobs are zstd compressed.")
	p3 := textOps("F1", 14, 740, "Appendix", "Benchmarks follow.")
	return build([]string{
		"<< /Type /Catalog /Pages 2 0 R /Outlines 9 0 R /Names << /Dests 15 0 R >> >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Contents 7 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Contents 8 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Contents 16 0 R >>",
		helv,
		streamObj("", p1),
		streamObj("", p2),
		"<< /Type /Outlines /First 10 0 R /Last 13 0 R /Count 5 >>",
		"<< /Title (Introduction) /Parent 9 0 R /Next 12 0 R /First 11 0 R /Last 11 0 R /Dest [3 0 R /XYZ 0 700 0] >>",
		"<< /Title (Background) /Parent 10 0 R /Dest [3 0 R /XYZ 0 500 0] >>",
		"<< /Title (Design) /Parent 9 0 R /Prev 10 0 R /Next 13 0 R /First 14 0 R /Last 14 0 R /Dest [4 0 R /Fit] >>",
		"<< /Title <FEFF0041007000700065006E006400690078> /Parent 9 0 R /Prev 12 0 R /A << /S /GoTo /D [5 0 R /XYZ null null null] >> >>",
		"<< /Title (Storage) /Parent 12 0 R /Dest (sec-storage) >>",
		"<< /Names [(sec-storage) [4 0 R /XYZ 0 520 0]] >>",
		streamObj("", p3),
	}, 0)
}

// scannedPDF: page 1 has text, page 2 only paints an image.
func scannedPDF(allScanned bool) []byte {
	p1 := textOps("F1", 12, 700, "Signed contract, scanned below.")
	if allScanned {
		p1 = "q 612 0 0 792 0 0 cm /Im1 Do Q"
	}
	img := "q 612 0 0 792 0 0 cm /Im1 Do Q"
	return build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 8 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Contents 7 0 R >>",
		helv,
		streamObj("", p1),
		streamObj("", img),
		streamObj("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x80"),
	}, 0)
}

// modernPDF: compressed content, a Type0 font with a ToUnicode CMap, a
// form XObject, and the catalog and pages inside an object stream (as
// PDF 1.5 writers do), with an xref stream instead of a table.
func modernPDF() []byte {
	cmap := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0020> <0010> <00E9> endbfchar
1 beginbfrange <0020> <0039> <0041> endbfrange
1 beginbfrange <0040> <0041> [<0078> <00660069>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`
	// CIDs 0x20.. map to "A".., 0x03 is a space, 0x10 is é, 0x40 "x", 0x41 "fi".
	content := []byte("BT /F2 12 Tf 72 700 Td <0020002100220003002300100041> Tj ET\nq 1 0 0 1 0 -100 cm /Fm1 Do Q\n")
	form := textOps("F1", 12, 700, "Inside a form XObject")
	var objstm bytes.Buffer
	inner := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
	}
	var hdr, body bytes.Buffer
	for i, o := range inner {
		fmt.Fprintf(&hdr, "%d %d ", i+1, body.Len())
		body.WriteString(o + "\n")
	}
	objstm.Write(hdr.Bytes())
	first := objstm.Len()
	objstm.Write(body.Bytes())
	objs := []string{
		"", "", // 1 and 2 live in object stream 10
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R /F2 5 0 R >> /XObject << /Fm1 9 0 R >> >> /Contents 8 0 R >>",
		helv,
		"<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Sans /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Sans /DW 600 /W [3 [250] 32 57 600] >>",
		flateObj("", []byte(cmap)),
		flateObj("", content),
		flateObj("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >>", []byte(form)),
		flateObj(fmt.Sprintf("/Type /ObjStm /N %d /First %d", len(inner), first), objstm.Bytes()),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	for i, o := range objs {
		if o == "" {
			continue
		}
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	// An xref stream (its offsets are not even right: the reader does not need them).
	x := b.Len()
	fmt.Fprintf(&b, "11 0 obj\n%s\nendobj\nstartxref\n%d\n%%%%EOF\n", streamObj("/Type /XRef /Size 12 /Root 1 0 R /W [1 4 2]", "garbage"), x)
	return b.Bytes()
}
