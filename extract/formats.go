package extract

import (
	"errors"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/html"
	"github.com/konteks/git-konteks/extract/section/media"
	"github.com/konteks/git-konteks/extract/section/notebook"
	"github.com/konteks/git-konteks/extract/section/pdf"
	"github.com/konteks/git-konteks/extract/section/text"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/secret"
)

// Formats beyond code and plain text: HTML pages, PDF documents, Jupyter
// notebooks and media files. PDFs and binary media are binary, so the gate
// lets them through only under their own rule (formatContent): a size cap
// per format, configurable with
//
//	git config konteks.pdf.maxSize   20m   (default 10 MiB; 0 turns PDFs off)
//	git config konteks.media.maxSize 1m    (default 4 MiB; 0 turns media off)
//
// A cap above the extraction's own limit (10 MiB) has no effect: larger
// blobs are never read. Media files need only their headers, but a blob is
// read whole, so their default cap is lower: a repository of many large
// images or videos should not pay to read them all. The config is read
// once per run, and only when such a file is met, so a repository without
// them never runs git config.
const (
	formatPDF      = "pdf"
	formatMedia    = "media"
	formatHTML     = "html"
	formatNotebook = "notebook"

	defaultPDFMax   = 10 << 20
	defaultMediaMax = 4 << 20

	reasonBadNotebook = "notebook-error"
)

// formatOf names the format of a file by extension (and, for HTML and
// notebooks, by the detected language), or "" for every other file.
func formatOf(p, lang string) string {
	switch lang {
	case "HTML":
		return formatHTML
	case "Jupyter Notebook":
		return formatNotebook
	}
	ext := strings.ToLower(path.Ext(p))
	switch ext {
	case ".pdf":
		return formatPDF
	case ".html", ".htm", ".xhtml":
		return formatHTML
	case ".ipynb":
		return formatNotebook
	}
	if media.Class(p) != "" {
		return formatMedia
	}
	return ""
}

// binaryFormat reports whether p is a binary file the gate reads anyway:
// a PDF or a binary media file.
func binaryFormat(p string) bool {
	return strings.EqualFold(path.Ext(p), ".pdf") || media.Binary(p)
}

// splitFormat sections a file of one of these formats. PDFs and media
// always give a result (at worst a section saying why the file could not
// be read, with the reason as Fallback); a notebook that is not valid JSON
// is kept whole as text, like other broken structured files.
func splitFormat(in section.Input) section.Result {
	res := splitFormatOf(in)
	// Warnings are stored in the record: clean, few and short.
	ws := res.Warnings[:min(len(res.Warnings), 16)]
	res.Warnings = nil
	for _, w := range ws {
		w = strings.ToValidUTF8(w, "\uFFFD")
		if len(w) > 200 {
			w = strings.ToValidUTF8(w[:200], "") + "…"
		}
		res.Warnings = append(res.Warnings, w)
	}
	return res
}

func splitFormatOf(in section.Input) section.Result {
	switch formatOf(in.Path, in.Language) {
	case formatPDF:
		res, _ := pdf.Split(in)
		return res
	case formatMedia:
		res, _ := media.Split(in)
		return res
	case formatHTML:
		res, _ := html.Split(in)
		return res
	case formatNotebook:
		res, err := notebook.Split(in)
		if err == nil {
			return res
		}
		res = text.Split(in)
		res.Fallback = reasonBadNotebook
		res.Warnings = []string{"notebook: " + err.Error()}
		return res
	}
	return text.Split(in)
}

// formatCaps are the per-format size caps, read lazily.
type formatCaps struct {
	once       sync.Once
	pdf, media int64
}

func (c *formatCaps) load(repo *gitstore.Repo) {
	c.once.Do(func() {
		c.pdf, c.media = defaultPDFMax, defaultMediaMax
		for _, k := range []string{"konteks.pdf.maxsize", "konteks.media.maxsize"} {
			v := repo.ConfigValue(k)
			if v == "" {
				continue
			}
			n, err := parseSize(v)
			if err != nil {
				continue
			}
			if k == "konteks.pdf.maxsize" {
				c.pdf = n
			} else {
				c.media = n
			}
		}
	})
}

// parseSize reads a size as git does: a number with an optional k, m or g.
func parseSize(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mul, s = 1<<10, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mul, s = 1<<20, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "g"):
		mul, s = 1<<30, strings.TrimSuffix(s, "g")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("bad size")
	}
	return n * mul, nil
}

// formatContent is the content rule for PDFs and binary media (which the
// NUL-byte rule would call binary): the format's size cap, the
// linguist-generated attribute, and the credential scan of the raw bytes. The text found in
// them is scanned again once sectioned (extractedSecret).
func (g *Gate) formatContent(p string, data []byte) string {
	g.caps.load(g.repo)
	limit := g.caps.media
	if strings.EqualFold(path.Ext(p), ".pdf") {
		limit = g.caps.pdf
	}
	if limit == 0 {
		return SkipBinary // turned off
	}
	if int64(len(data)) > limit {
		return SkipTooLarge
	}
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	if _, generated, _ := attrFlags(g.rules(dir), strings.Split(p, "/")); generated == flagSet {
		return SkipGenerated
	}
	if secret.Contains(data) {
		return SkipSecretTxt
	}
	return ""
}

// extractedSecret reports whether the text a PDF or media file yielded
// holds a credential: such text is only visible once decoded (compressed
// PDF streams, UTF-16 tags), after the gate's scan of the raw bytes. The
// file is then skipped whole, as any file holding a credential is.
func extractedSecret(f *memory.File) bool {
	if f.Kind != formatPDF && f.Kind != formatMedia {
		return false
	}
	for _, s := range f.Sections {
		if secret.Contains([]byte(s.Content)) || secret.Contains([]byte(s.Name)) {
			return true
		}
	}
	return false
}

// countFormat adds a newly sectioned file to the run's per-kind counts.
func countFormat(st *manifest.Run, f *memory.File, parse time.Duration) {
	if st.Formats == nil {
		st.Formats = map[string]*manifest.FormatRun{}
	}
	c := st.Formats[f.Kind]
	if c == nil {
		c = &manifest.FormatRun{}
		st.Formats[f.Kind] = c
	}
	c.Files++
	c.ParseMS += float64(parse.Microseconds()) / 1000
	c.Warnings += len(f.Warnings)
}
