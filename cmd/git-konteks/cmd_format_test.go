package main

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// tinyPDF is a one-page PDF whose text is in a Flate-compressed stream.
func tinyPDF(text string) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	fmt.Fprintf(w, "BT /F1 12 Tf 72 700 Td (%s) Tj ET", text)
	w.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", z.Len(), z.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	for i, o := range objs {
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	b.WriteString("trailer\n<< /Root 1 0 R >>\n%%EOF\n")
	return b.String()
}

// TestFormatSectionsThroughExtraction commits a fixture of every format
// and checks what extraction made of each: parser, anchors, the counts in
// the manifest, and incremental memory equal to a rebuild.
func TestFormatSectionsThroughExtraction(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	for _, d := range []string{"html", "pdf", "notebook", "media"} {
		r.CopyTree(filepath.Join("..", "..", "testdata", "sections", d))
	}
	r.Write("main.go", "package main\n\nfunc main() {}\n")
	r.Write("broken.pdf", "%PDF-1.4\n1 0 obj << /Type /Catalog\n") // no catalog, no pages
	r.Write("broken.ipynb", "{\"cells\": [\n")
	r.Commit("formats")
	m := extractJSON(t, r.Dir).Manifest

	wantParsers := map[string]int{"html": 3, "pdf": 5, "notebook": 2, "media": 13, "go/parser": 1, "whole": 1}
	for p, n := range wantParsers {
		if m.Totals.Parsers[p] != n {
			t.Errorf("files by parser %s = %d, want %d (all: %v)", p, m.Totals.Parsers[p], n, m.Totals.Parsers)
		}
	}
	if m.Totals.Fallbacks["pdf-error"] != 1 || m.Totals.Fallbacks["notebook-error"] != 1 {
		t.Errorf("fallbacks %v", m.Totals.Fallbacks)
	}
	if len(m.Totals.Skipped) != 0 {
		t.Errorf("skipped %v", m.Totals.Skipped)
	}
	for _, k := range []string{"html", "pdf", "notebook", "media"} {
		if f := m.Run.Formats[k]; f == nil || f.Files == 0 {
			t.Errorf("manifest run formats lack %s: %v", k, m.Run.Formats)
		}
	}
	if f := m.Run.Formats["pdf"]; f == nil || f.Warnings < 2 { // a scanned page, a broken file
		t.Errorf("pdf warnings: %+v", f)
	}

	anchors := func(p string) []string {
		var out []string
		for _, s := range show(t, r.Dir, p).Sections {
			out = append(out, s.Anchor)
		}
		return out
	}
	for p, want := range map[string][]string{
		"guide.html":   {"title", "preamble", "Widget", "Widget > Install", "Widget > Install > From source", "Widget > Usage", "Widget > Install#2", "Widget > untitled"},
		"report.pdf":   {"document", "page:1", "page:1:Introduction", "page:1:Introduction > Background", "page:2:Design", "page:2:Design > Storage", "page:3:Appendix"},
		"scanned.pdf":  {"document", "page:1", "page:2"},
		"broken.pdf":   {"document"},
		"sales.ipynb":  {"cell:1:Sales analysis", "cell:3", "cell:4:Sales analysis > Cleaning", "cell:5", "cell:7:Sales analysis > Totals", "cell:9", "cell:10:Appendix"},
		"broken.ipynb": {"file"},
		"notes.mp3":    {"media"},
		"diagram.svg":  {"media"},
	} {
		if got := anchors(p); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s anchors\n got %q\nwant %q", p, got, want)
		}
	}
	if rec := show(t, r.Dir, "scanned.pdf"); !strings.Contains(rec.Sections[2].Content, "no text layer") {
		t.Errorf("scanned page: %q", rec.Sections[2].Content)
	}
	if rec := show(t, r.Dir, "pipeline.png"); rec.Parser != "media" || !strings.Contains(rec.text(), "PNG image, 16×9") {
		t.Errorf("png record: %+v", rec)
	}

	// An edit, then incremental memory must equal a rebuild.
	r.Write("guide.html", strings.Replace(readFile(t, r, "guide.html"), "<h2>Usage</h2>", "<h2>Running</h2>", 1))
	r.Commit("rename a heading")
	extractJSON(t, r.Dir)
	if got := anchors("guide.html"); got[5] != "Widget > Running" {
		t.Errorf("after edit: %q", got)
	}
	assertMatchesRebuild(t, r)
}

// TestFormatGateRules: the per-format size caps (git config), a credential
// hidden in a compressed PDF stream, and hostile inputs of the issue: an
// HTML page over the size limit, a notebook with megabytes of outputs.
func TestFormatGateRules(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Git("config", "konteks.embed.provider", "none")
	r.Write("doc.pdf", tinyPDF("Quarterly plan"))
	r.Write("big.pdf", tinyPDF("big")+"%"+strings.Repeat("padding ", 300)+"\n")
	r.Write("leak.pdf", tinyPDF("token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB here"))
	r.Write("photo.png", "\x89PNG\r\n\x1a\n")
	r.Write("archive.zip", "PK\x03\x04")
	var deep strings.Builder
	for deep.Len() < 11<<20 {
		deep.WriteString("<div>")
	}
	r.Write("deep.html", deep.String())
	outputs := strings.Repeat("QUJD", 1<<20)
	nb, _ := json.Marshal(map[string]any{"cells": []any{
		map[string]any{"cell_type": "markdown", "source": "# Plots"},
		map[string]any{"cell_type": "code", "source": "plot()", "outputs": []any{map[string]any{"output_type": "display_data", "data": map[string]any{"image/png": outputs}}}},
	}})
	r.Write("plots.ipynb", string(nb))
	r.Commit("gate")
	r.Git("config", "konteks.pdf.maxSize", "1k")
	m := extractJSON(t, r.Dir).Manifest
	want := map[string]int{"too-large": 2, "secret": 1, "binary": 1}
	if fmt.Sprint(m.Totals.Skipped) != fmt.Sprint(want) {
		t.Errorf("skipped %v, want %v", m.Totals.Skipped, want)
	}
	skipped := map[string]string{}
	for _, p := range []string{"big.pdf", "leak.pdf", "deep.html", "archive.zip"} {
		_, errOut, err := tryRun(r.Dir, nil, "show", p)
		if err == nil {
			t.Errorf("%s is in memory", p)
		}
		skipped[p] = errOut
	}
	if !strings.Contains(skipped["leak.pdf"], "secret") || !strings.Contains(skipped["big.pdf"], "too-large") {
		t.Errorf("show on skipped files: %q", skipped)
	}
	if out := r.Git("log", "-p", "refs/konteks"); strings.Contains(out, "ghp_") {
		t.Error("the credential reached memory")
	}
	if rec := show(t, r.Dir, "plots.ipynb"); len(rec.Sections) != 2 || len(rec.text()) > 200 {
		t.Errorf("notebook with outputs: %d sections, %d bytes", len(rec.Sections), len(rec.text()))
	}
	if rec := show(t, r.Dir, "doc.pdf"); !strings.Contains(rec.text(), "Quarterly plan") {
		t.Errorf("doc.pdf: %q", rec.text())
	}

	// Media off: images become binary skips again.
	r.Git("config", "konteks.media.maxSize", "0")
	m = extractJSON(t, r.Dir, "--mode", "rebuild").Manifest
	if m.Totals.Skipped["binary"] != 2 {
		t.Errorf("media off: skipped %v", m.Totals.Skipped)
	}
}
