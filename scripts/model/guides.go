package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/asciidoc"
	"github.com/konteks/git-konteks/extract/section/code"
	"github.com/konteks/git-konteks/extract/section/markdown"
	"github.com/konteks/git-konteks/extract/section/rst"
	"github.com/konteks/git-konteks/gitstore"
)

// Guide pairs: a passage of a repository's documentation pages (a
// heading and the paragraphs under it) and the code of the definitions it
// names in code spans or blocks, from the tree at the pinned commit.
// A guide speaks of code as its users do — what a feature is for, how to
// call it, what goes wrong — which is how an issue speaks of it too: a
// commit message is written by whoever changed the code, a doc comment
// next to it; a guide and an issue from outside.
//
// The names a passage links are taken out of its query (as a doc pair's
// own name is): the lexical half finds a name; the model is to learn the
// words around it. A pair's Commit field holds "guide:" and the page's
// path: passages of one page are never each other's negatives.

// Limits of the guide pairs of one repository.
const (
	guidePassageBytes = 1200 // a passage ends at the first paragraph break past this
	guidePairsPerPage = 40
	guideDefsPerPair  = 4
	guideDefSites     = 2 // a name defined in more files than this names nothing
	minGuideQueryToks = 8
)

// readGuidePairs reads the guide pairs of one repository from its cache
// file, or makes them from its tree and writes the cache.
func readGuidePairs(ctx context.Context, gitDir, commit, cache string, limit int) ([]pair, error) {
	return cachedPairs(cache, func() ([]pair, error) { return makeGuidePairs(ctx, gitDir, commit, limit) })
}

// A passage is one query of a page: its text and the names its code
// mentions.
type passage struct {
	page  string
	text  string
	names []string
}

// A definition is the code a name stands for in one file.
type definition struct {
	path string
	toks []string
}

// makeGuidePairs reads the repository's documentation pages at commit,
// then the source files, keeping the definitions the pages name, and
// pairs each passage with them (in an order fixed by a hash of the
// pages' paths) until limit pairs are made.
func makeGuidePairs(ctx context.Context, gitDir, commit string, limit int) ([]pair, error) {
	repo, err := gitstore.Open(gitDir)
	if err != nil {
		return nil, err
	}
	c, err := repo.Resolve(commit)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", commit, err)
	}
	var pages, sources []gitstore.Entry
	err = repo.WalkTree(c.TreeHash, nil, func(e gitstore.Entry) error {
		switch {
		case e.Kind != gitstore.KindFile:
		case guidePage(e.Path):
			pages = append(pages, e)
		case docSource(e.Path):
			sources = append(sources, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", commit, err)
	}
	sortByPathHash(pages)

	var passages []passage
	wanted := map[string]bool{}
	err = eachBlob(ctx, repo, pages, func(p string, data []byte) error {
		if generatedPage.Match(data[:min(len(data), 512)]) {
			return nil
		}
		for _, ps := range pagePassages(p, data) {
			passages = append(passages, ps)
			for _, n := range ps.names {
				wanted[n] = true
			}
		}
		return nil
	})
	if err != nil || len(passages) == 0 {
		return nil, err
	}

	defs := map[string][]definition{}
	err = eachBlob(ctx, repo, sources, func(p string, data []byte) error {
		res, ok, _ := code.Split(section.Input{Path: p, Content: data})
		if !ok {
			return nil
		}
		for _, s := range res.Sections {
			if !wanted[s.Name] || slices.ContainsFunc(defs[s.Name], func(d definition) bool { return d.path == p }) {
				continue
			}
			defs[s.Name] = append(defs[s.Name], definition{path: p, toks: tokens(p+"\n"+s.QName+"\n"+s.Signature+"\n"+s.Content, maxDocTokens)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	var out []pair
	perPage := map[string]int{}
	for _, ps := range passages {
		if perPage[ps.page] == guidePairsPerPage {
			continue
		}
		var docs [][]string
		var linked []string
		for _, n := range ps.names {
			ds := defs[n]
			if len(ds) == 0 || len(ds) > guideDefSites {
				continue
			}
			linked = append(linked, n)
			for _, d := range ds {
				if len(docs) < guideDefsPerPair {
					docs = append(docs, d.toks)
				}
			}
		}
		if len(docs) == 0 {
			continue
		}
		q := tokens(cleanMessage(markup.ReplaceAllString(ps.text, " ")), 0)
		for _, n := range linked {
			if nt := tokens(n, 0); len(nt) >= 2 {
				q = slices.DeleteFunc(q, func(t string) bool { return t == nt[0] })
			}
		}
		if len(q) < minGuideQueryToks {
			continue
		}
		out = append(out, pair{Commit: "guide:" + ps.page, Query: q, Docs: docs})
		perPage[ps.page]++
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// eachBlob calls fn with the content of each file that is present in the
// snapshot (which may lack its largest blobs), not too large and not
// binary; an error of fn stops it.
func eachBlob(ctx context.Context, repo *gitstore.Repo, files []gitstore.Entry, fn func(path string, data []byte) error) error {
	ids := make([]gitstore.Hash, len(files))
	for i, f := range files {
		ids[i] = f.Hash
	}
	reader := repo.NewBlobReader(len(ids))
	defer reader.Close()
	i := 0
	return reader.ReadBlobs(ctx, ids, maxDocFileBytes, func(b gitstore.Blob) error {
		f := files[i]
		i++
		if b.Missing || b.TooLarge || bytes.IndexByte(b.Data, 0) >= 0 {
			return nil
		}
		return fn(f.Path, b.Data)
	})
}

var (
	guideExt = map[string]func(section.Input) section.Result{
		".md": markdown.Split, ".markdown": markdown.Split, ".mdx": markdown.Split,
		".rst": rst.Split, ".adoc": asciidoc.Split, ".asciidoc": asciidoc.Split,
	}
	// notGuide is what a page about the project rather than its code is
	// called, where templates and vendored pages live, and where a
	// documentation site keeps a copy of every page per release (each
	// page would teach the model as many times as it has versions).
	// Translations are left out: the model's words are the code's.
	notGuide = regexp.MustCompile(`(?i)(^|/)(vendor|node_modules|third_party|thirdparty|external|deps|testdata|fixtures?|\.github|\.gitlab|i18n|l10n|locales?|translations?|[a-z]{2}([-_][a-z]{2,4})?|versioned_docs|version-overrides|versions?|v?\d+(\.\d+)+|version-[\d.]+|relnotes|release[-_ ]?notes?|releases?|change_?logs?|changes|news)/|(^|/)(change_?log|changes|history|news|release[-_ ]?notes?|releases?|licen[cs]e|copying|contributing|contributors|code[-_]of[-_]conduct|security|authors|maintainers|governance|support|funding|notice|pull_request_template|v?\d+(\.\d+)+)[^/]*$|api[-_]reports?|\.api\.md$`)
	// generatedPage is what a generated page says near its top.
	generatedPage = regexp.MustCompile(`(?i)do not edit|auto-?generated|generated by|this file is generated`)
)

// guidePage says whether a path is a documentation page whose passages
// train the model.
func guidePage(p string) bool {
	return guideExt[strings.ToLower(path.Ext(p))] != nil && !notGuide.MatchString(strings.ReplaceAll(p, "/en/", "/"))
}

// pagePassages sections a page and cuts each section into passages of
// about guidePassageBytes at paragraph breaks outside code blocks; each
// passage starts with its section's heading and keeps the names its code
// spans and blocks mention.
func pagePassages(p string, data []byte) []passage {
	split := guideExt[strings.ToLower(path.Ext(p))]
	var out []passage
	for _, s := range split(section.Input{Path: p, Content: data}).Sections {
		var b strings.Builder
		flush := func() {
			if b.Len() > 0 {
				t := s.Name + "\n" + b.String()
				if names := codeNames(t); len(names) > 0 {
					out = append(out, passage{page: p, text: t, names: names})
				}
				b.Reset()
			}
		}
		fenced := false
		for _, l := range strings.SplitAfter(s.Content, "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				fenced = !fenced
			}
			b.WriteString(l)
			if !fenced && strings.TrimSpace(l) == "" && b.Len() >= guidePassageBytes {
				flush()
			}
		}
		flush()
	}
	return out
}

var (
	// markup is what a page's text holds for its renderer, not its
	// reader: HTML tags and code fences with their attributes.
	markup    = regexp.MustCompile("(?m)<[^>\n]+>|^\\s*(```|~~~).*$")
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	identRe   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	spanIdent = regexp.MustCompile(`^[\w$:.\\/>-]*?([A-Za-z_]\w*)\s*(\(.*\))?$`)
)

// codeNames returns the names a passage's code mentions, in first-seen
// order: each identifier of a fenced or indented code block and of a
// code span that looks like a definition's name (CamelCase, snake_case,
// capitalised, or the last part of a span that is one qualified name or
// call, of five letters or more). Plain words are left out: a span or block says "print" and
// "value" far more often than it names the definition of that name.
func codeNames(t string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	named := func(n string) bool {
		if len(n) < 4 {
			return false
		}
		return strings.Contains(strings.Trim(n, "_"), "_") || n[0] >= 'A' && n[0] <= 'Z' || strings.ToLower(n[1:]) != n[1:]
	}
	for _, m := range codeSpan.FindAllStringSubmatch(t, -1) {
		span := strings.TrimSpace(m[1])
		if sm := spanIdent.FindStringSubmatch(span); sm != nil && (named(sm[1]) || len(sm[1]) >= 5 && strings.ContainsAny(span, ".(:>")) {
			add(sm[1])
			continue
		}
		for _, n := range identRe.FindAllString(span, -1) {
			if named(n) {
				add(n)
			}
		}
	}
	fenced := false
	for _, l := range strings.Split(t, "\n") {
		tl := strings.TrimSpace(l)
		if strings.HasPrefix(tl, "```") || strings.HasPrefix(tl, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			for _, n := range identRe.FindAllString(l, -1) {
				if named(n) {
					add(n)
				}
			}
		}
	}
	return out
}

// sortByPathHash orders files by a hash of their paths: a fixed order
// that mixes the directories.
func sortByPathHash(files []gitstore.Entry) {
	slices.SortFunc(files, func(a, b gitstore.Entry) int { return strings.Compare(pathKey(a.Path), pathKey(b.Path)) })
}

// pathKey is the sort key of a path in sortByPathHash.
func pathKey(p string) string { s := sha256.Sum256([]byte(p)); return string(s[:8]) }
