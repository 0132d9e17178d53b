package index

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// FormatVersion is the version of the index layout, fields and analyzer
// (the terms of package text); a generation of another version is rebuilt.
// One line per change:
//
//	1: bleve BM25 index, section table and vector table, in atomic generations.
//	4: ternary sketches shortlist vectors for exact int8 scoring; field boosts.
//	7: a whole-file BM25 index beside the sections', with true BM25 statistics.
//	8: terms come from package text; words with non-ASCII letters split at
//	   letter/digit boundaries as ASCII words do.
//	9: the docs table keeps each section's print, so an update re-indexes
//	   only the sections of a changed file whose document changed.
//	10: the whole-file index is the index's own segments (files/*.kxf),
//	   scoring as bleve's did, not a bleve index.
//	11: the sections index is the index's own too (sections/*.kxs), and
//	   both share one segment format (segs.go), written as a merge reads.
//	12: an update links the docs and vector tables and writes an overlay
//	   and the live docs' order beside them (layers.go).
const FormatVersion = 12

// meta describes a generation (meta.json).
type meta struct {
	Format  int       `json:"format"`
	Memory  string    `json:"memory"` // memory commit the generation reflects
	Tree    string    `json:"tree"`   // its tree
	Model   string    `json:"model,omitempty"`
	Dim     int       `json:"dim,omitempty"`
	Docs    int       `json:"docs"`
	Files   int       `json:"files"`
	Vectors int       `json:"vectors"`
	Built   time.Time `json:"built"`
	// Tokens is the total analysed length of each field (the files
	// index's "file" included): with the document counts, the true BM25
	// average field lengths (see Index.cardinality).
	Tokens  map[string]int64 `json:"tokens"`
	How     string           `json:"how"` // build or update
	Changes int              `json:"changes,omitempty"`
	// Languages counts sections by language (see Index.Languages); nil
	// in generations written before it was kept.
	Languages map[string]int `json:"languages,omitempty"`
	// Computed and Cached count the vectors this generation computed and
	// took from the local cache (a model memory does not store, see
	// localVectors); the rest came from the previous generation or the
	// memory ref.
	Computed int `json:"computed,omitempty"`
	Cached   int `json:"cached,omitempty"`
	// Content is the key of what the generation was built from (see
	// contentKey): another memory commit with the same key is served by
	// it as it is.
	Content string `json:"content,omitempty"`
	// PlainPaths is set when no record path of the memory held a '#' at
	// the build and at every update since (see sharable); false when
	// one did, or in a generation that did not record it.
	PlainPaths bool `json:"plainPaths,omitempty"`
	// Layers is set when the generation has an overlay and an order
	// beside its base (see layers.go): without them, its base alone
	// holds docs removed since and lacks those added, so an open that
	// does not find them must fail rather than read the base.
	Layers bool `json:"layers,omitempty"`
}

// sectionDoc is a section on its way into a generation.
type sectionDoc struct {
	doc Doc
	// entry is the section's document for the sections index; nil for a
	// section an update leaves where it is (see makeDocs).
	entry *docEntry
	keys  []embed.Key // embedding-text hashes of its vectors
	// vecs are the vectors of keys, in order, when the index computes
	// them (see localVectors); nil when they come from the memory ref.
	vecs []embed.Quantized
	// fresh says, per vector, whether it may go into the local cache.
	fresh []bool
	// raw is the doc's record as an overlay holds it, copied as it is
	// when the overlay is merged into the base (see layers.go); nil for
	// a doc read from memory.
	raw []byte
}

// recordDocs are the documents of one record: its sections', and the
// whole file's (nil for a record without sections).
type recordDocs struct {
	path     string
	sections []sectionDoc
	file     *docEntry
}

// makeDocs turns a record into documents. plainPaths says that no
// record path of the memory holds a '#' (see sharable). A section whose
// id kept maps to its print is in the index already (an update's
// unchanged sections): its terms count towards the file's document and
// its lengths are kept, but no document of its own is made (entry nil).
func makeDocs(a *analyzer, path string, f *memory.File, plainPaths bool, kept map[string]docPrint) recordDocs {
	out := make([]sectionDoc, 0, len(f.Sections))
	blob := strings.Clone(f.Blob)
	a.startFile()
	// A section id a record holds twice has no print: which of its
	// documents the sections index keeps is not the docs table's to say (nor is it for
	// an id another record can hold, see sharable).
	var dup map[string]bool
	if len(f.Sections) > 1 {
		seen := make(map[string]bool, len(f.Sections))
		for _, s := range f.Sections {
			if seen[s.Anchor] {
				if dup == nil {
					dup = map[string]bool{}
				}
				dup[s.Anchor] = true
			}
			seen[s.Anchor] = true
		}
	}
	length, skipped := 0, false
	for i, s := range f.Sections {
		// The record's strings share its decoded buffer (see
		// memory.DecodeSections): what the docs table keeps is cloned.
		d := Doc{
			ID: docID(path, s.Anchor), Path: path, Anchor: s.Anchor,
			Kind: intern(s.Kind), Symbol: intern(s.Symbol), Language: intern(s.Language),
			Name: strings.Clone(s.Name), QName: strings.Clone(s.QName),
			StartLine: s.StartLine, EndLine: s.EndLine, Topics: cloneAll(s.Topics), Summary: strings.Clone(s.Summary), Blob: blob,
		}
		d.Anchor = d.ID[len(path)+1:]
		sd := sectionDoc{doc: d}
		name := s.QName
		if s.Name != "" && s.Name != s.QName {
			name += " " + s.Name
		}
		ls := s
		ls.Content = capText(s.Content, maxIndexedContent)
		text := section.LexicalText(path, ls)
		if !dup[s.Anchor] && !sharable(path, s.Anchor, plainPaths) {
			sd.doc.print = a.printOf(text, name, path)
		}
		lens := &sd.doc.lens
		if pr, ok := kept[d.ID]; ok && pr != (docPrint{}) && pr == sd.doc.print {
			skipped = true
			lens[0] = a.count(text, true)
			if name != "" {
				lens[1] = a.count(name, false)
			}
			lens[2] = a.count(path, i == 0)
		} else {
			sd.entry = a.sectionEntry(d.ID, text, name, path, i == 0)
			for f := range lens {
				lens[f] = int(sd.entry.lens[f])
			}
		}
		length += lens[0]
		if i == 0 {
			length += lens[2]
		}
		if len(s.Chunks) > 0 {
			// A chunked section is covered by its chunks; its own text
			// (the head of its content) is not embedded separately.
			for _, c := range s.Chunks {
				if k, ok := embed.ParseKey(c.EmbHash); ok {
					sd.keys = append(sd.keys, k)
				}
			}
		} else if k, ok := embed.ParseKey(s.EmbHash); ok {
			sd.keys = append(sd.keys, k)
		}
		out = append(out, sd)
	}
	rd := recordDocs{path: path, sections: out}
	if len(out) > 0 {
		if rd.file = a.fileField(path, length); rd.file == nil {
			if skipped {
				// The vocabulary was reset within the file, and the
				// sections it skipped have no documents to sum.
				return makeDocs(a, path, f, plainPaths, nil)
			}
			entries := make([]*docEntry, len(out))
			for i, sd := range out {
				entries[i] = sd.entry
			}
			rd.file = fileDoc(path, entries)
		}
	}
	return rd
}

// sharable says whether a section id another path's section can have
// too: "a#b" + "#" + "c" is "a" + "#" + "b#c". The docs table keeps one
// such section and the sections index the document indexed last, perhaps
// the other one, so a print the table holds for it does not say what the
// index holds:
// such a section has none, and an update indexes it again. Without a '#'
// in the path or the anchor, the id's only '#' follows the path; and
// while no path of the memory holds one (plainPaths), no other path's
// id can end in this one's anchor, whatever the anchor (overloads are
// "name#2": a quarter of fmt's sections).
func sharable(path, anchor string, plainPaths bool) bool {
	return strings.Contains(path, "#") || !plainPaths && strings.Contains(anchor, "#")
}

// plainPaths says whether none of paths holds a '#'.
func plainPaths[T any](items []T, path func(T) string) bool {
	for _, it := range items {
		if strings.Contains(path(it), "#") {
			return false
		}
	}
	return true
}

// intern returns a copy of a short, much repeated string (a kind, symbol
// or language), shared by every record's docs (at most maxInterned
// strings, whatever a hostile memory holds).
func intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := interned.Load(s); ok {
		return v.(string)
	}
	c := strings.Clone(s)
	if len(c) <= 32 && internedN.Add(1) <= maxInterned {
		v, _ := interned.LoadOrStore(c, c)
		return v.(string)
	}
	return c
}

const maxInterned = 4096

var (
	interned  sync.Map
	internedN atomic.Int64
)

func cloneAll(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// maxIndexedContent bounds the content of one section that goes into the
// BM25 index. Sections past it are tables, test vectors and giant
// switches, where BM25's length normalisation leaves the tail almost no
// weight anyway; on the Go tree they hold a quarter of all text, so the
// bound buys a quarter of the build time. Their vectors (chunks) still
// cover every line.
const maxIndexedContent = 16 << 10

// capText cuts s to at most n bytes, at a line end when there is one.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if k := strings.LastIndexByte(s[:n], '\n'); k > 0 {
		return s[:k]
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// readRecords reads and decodes records in parallel, calling fn (from one
// goroutine at a time) with each record's documents. With lv set, the
// workers also give each section its vectors; with budget set, each
// record is charged to it before it is decoded (Options.Budget). A record
// whose blob is in fresh is taken from there, not read (Options.Fresh).
func readRecords(ctx context.Context, repo *gitstore.Repo, refs []memref.RecordRef, plain bool, kept map[string]docPrint, lv *localVectors, budget *memref.Budget, fresh map[gitstore.Hash]*memory.File, progress func(done, total int), fn func(recordDocs) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A record's documents hold its analysed fields, often the largest
	// part of a build's heap; a few in the queue keep the consumer busy,
	// more only hold memory (64 held 60 MB on rails).
	results := make(chan recordDocs, 4)
	errc := make(chan error, 1)
	// newWorker makes one worker's documents of a record: its own
	// analyzer, vectorizer and buffer.
	newWorker := func() func(path string, f *memory.File) error {
		a := newAnalyzer()
		var vz embed.Vectorizer
		var buf []byte
		if lv != nil {
			vz = lv.emb.NewVectorizer()
		}
		return func(path string, f *memory.File) error {
			rd := makeDocs(a, path, f, plain, kept)
			if lv != nil {
				buf = lv.fill(vz, buf, f, &rd)
			}
			select {
			case results <- rd:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	read := refs
	var held []memref.RecordRef
	if len(fresh) > 0 && budget == nil {
		read = nil
		for _, r := range refs {
			if fresh[r.Blob] != nil {
				held = append(held, r)
			} else {
				read = append(read, r)
			}
		}
	}
	go func() {
		defer close(results)
		if len(held) > 0 {
			work := newWorker()
			for _, r := range held {
				if err := work(r.Path, fresh[r.Blob]); err != nil {
					errc <- err
					return
				}
			}
		}
		errc <- memref.ReadParallel(ctx, repo, read, func() func(int, []byte) error {
			work := newWorker()
			return func(i int, data []byte) error {
				if budget != nil {
					if err := budget.Charge(data, read[i].Path); err != nil {
						return err
					}
				}
				f, err := memory.DecodeSections(data)
				if err != nil {
					return fmt.Errorf("%w: record of %s: %v", memref.ErrCorrupt, read[i].Path, err)
				}
				return work(read[i].Path, f)
			}
		})
	}()
	var ferr error
	done := 0
	for ds := range results {
		if ferr != nil {
			continue
		}
		if err := fn(ds); err != nil {
			ferr = err
			cancel()
		}
		if done++; progress != nil && (done%64 == 0 || done == len(refs)) {
			progress(done, len(refs))
		}
	}
	if err := <-errc; ferr == nil {
		return err
	}
	return ferr
}

// loadVectors reads the stored vectors of a model for the given keys (all
// of the model's vectors when keys is nil), reading only the shards the
// keys fall in.
func loadVectors(repo *gitstore.Repo, tree gitstore.Hash, model string, keys map[embed.Key]bool) (map[embed.Key]embed.Quantized, int, error) {
	vr, err := memref.NewVectorReader(repo, tree, model)
	if err != nil {
		return nil, 0, err
	}
	return vr.Vectors(keys)
}

// flushPostings bounds the postings (distinct terms summed over
// documents) a cold build holds before it writes them as a segment:
// 4 million postings are 32 MB and the terms' entries; the segments are
// merged into one when the build ends (see segsTo).
var flushPostings = 4_000_000 // a variable for the tests only

// The search indexes of a generation (segs.go): sections, and whole
// files. They are two indexes, not two fields of one, because BM25 takes
// document counts and average field lengths over the whole index: file
// documents among section documents would skew both.
const (
	sectionsDir = "sections"
	filesDir    = "files"
)

// build makes a generation from scratch in dir.
func build(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, dir string, opt Options) (*meta, error) {
	model := opt.Model
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		return nil, err
	}
	if opt.Building != nil {
		opt.Building(len(refs))
	}
	// A cold build allocates a lot of short-lived garbage; collecting less
	// often trades memory for a fifth of the build's CPU (the soft memory
	// limit still bounds the heap).
	defer restoreGC(debug.SetGCPercent(400))
	// The vectors: computed on the readers' workers for a model memory
	// does not store (the built-in one), else loaded from the memory ref
	// while the records are indexed, through a handle of their own
	// (go-git's object storage is not meant for concurrent readers).
	lv := newLocalVectors(repo, model)
	defer lv.close()
	dim := 0
	if lv != nil {
		dim = lv.emb.Dim()
	}
	ar, err := newDocArena(dir, dim)
	if err != nil {
		return nil, err
	}
	defer ar.close()
	secs, err := newSegsTo(filepath.Join(dir, sectionsDir), sectionFields, flushPostings)
	if err != nil {
		return nil, err
	}
	files, err := newSegsTo(filepath.Join(dir, filesDir), 1, flushPostings)
	if err != nil {
		return nil, err
	}
	type loaded struct {
		vecs map[embed.Key]embed.Quantized
		dim  int
		err  error
		ok   bool
	}
	vecc := make(chan loaded, 1)
	if lv != nil {
		vecc <- loaded{dim: lv.emb.Dim(), ok: true}
	} else {
		go func() {
			vr, err := gitstore.Open(repo.GitDir)
			if err != nil {
				vecc <- loaded{}
				return
			}
			v, d, err := loadVectors(vr, mem.Tree, model, nil)
			vecc <- loaded{v, d, err, true}
		}()
	}
	plain := plainPaths(refs, func(r memref.RecordRef) string { return r.Path })
	err = readRecords(ctx, repo, refs, plain, nil, lv, opt.Budget, opt.Fresh, opt.Progress, func(rd recordDocs) error {
		for i := range rd.sections {
			d := &rd.sections[i]
			if err := secs.add(d.entry); err != nil {
				return err
			}
			d.entry = nil
			if err := ar.add(d); err != nil {
				return err
			}
		}
		if rd.file != nil {
			return files.add(rd.file)
		}
		return nil
	})
	// The last segments are written, and merged, while the tables are.
	segsDone := make(chan error, 1)
	readErr := err
	go func() {
		if readErr != nil {
			secs.wait()
			files.wait()
			segsDone <- readErr
			return
		}
		err := secs.close()
		if e := files.close(); err == nil {
			err = e
		}
		segsDone <- err
	}()
	lvs := <-vecc
	if !lvs.ok && err == nil {
		lvs.vecs, lvs.dim, lvs.err = loadVectors(repo, mem.Tree, model, nil)
	}
	if err != nil {
		<-segsDone
		return nil, err
	}
	if lvs.err != nil {
		<-segsDone
		return nil, lvs.err
	}
	if err := ar.seal(); err != nil {
		<-segsDone
		return nil, err
	}
	ents := ar.sorted()
	vecs := lvs.vecs
	dim = lvs.dim
	var rows []vecRow
	for i, e := range ents {
		for k := e.k0; k < e.k1; k++ {
			if lv != nil {
				rows = append(rows, vecRow{doc: uint32(i), scale: ar.scales[k], q: ar.vec(k)})
			} else if q, ok := vecs[ar.keys[k]]; ok {
				rows = append(rows, vecRow{doc: uint32(i), scale: q.Scale, q: q.Q})
			}
		}
	}
	if len(rows) == 0 {
		dim = 0
	}
	// The generation records the model it was built for even when memory
	// holds none of its vectors: a query for that model is then answered
	// knowing so, and one for another model builds its own (see fits).
	m := &meta{Format: FormatVersion, Memory: mem.Commit.String(), Tree: mem.Tree.String(), Model: model, Dim: dim,
		Content: contentKey(repo, mem.Tree, model), Docs: len(ents), Vectors: len(rows), Built: time.Now().UTC(), How: "build", PlainPaths: plain}
	m.Tokens, m.Files, m.Languages = docStats(ar.stats(ents))
	if lv != nil {
		m.Computed, m.Cached = int(lv.computed.Load()), int(lv.cached.Load())
	}
	err = ar.writeDocs(filepath.Join(dir, "docs.bin"), ents)
	if err == nil {
		err = writeVecs(dir, model, dim, rows)
	}
	if berr := <-segsDone; err == nil {
		err = berr
	}
	if err != nil {
		return nil, err
	}
	if lv != nil {
		// A cache that cannot be written costs the next build time, not
		// this one its answer.
		_ = lv.keep(repo, model, ar)
	}
	if err := writeMeta(dir, m); err != nil {
		return nil, err
	}
	return m, nil
}

// docStats totals what a generation's meta records of docs in id order:
// the analysed lengths of every field (a whole file's length is its
// sections' text plus its path once, see fileDoc), the files, and the
// sections of each language.
func docStats(docs iter.Seq[*Doc]) (tokens map[string]int64, files int, langs map[string]int) {
	tokens = map[string]int64{fieldText: 0, fieldName: 0, fieldPath: 0, fieldFile: 0}
	langs = map[string]int{}
	counts := map[string]*int{}
	prev := ""
	for d := range docs {
		tokens[fieldText] += int64(d.lens[0])
		tokens[fieldName] += int64(d.lens[1])
		tokens[fieldPath] += int64(d.lens[2])
		tokens[fieldFile] += int64(d.lens[0])
		if d.Path != prev {
			tokens[fieldFile] += int64(d.lens[2])
			prev = d.Path
			files++
		}
		if d.Language != "" {
			// The key outlives the docs (statDoc's strings share the
			// arena), and a map assignment stores its key anew even when
			// it is there: counts are updated through pointers.
			if n := counts[d.Language]; n != nil {
				*n++
			} else {
				counts[strings.Clone(d.Language)] = new(1)
			}
		}
	}
	for l, n := range counts {
		langs[l] = *n
	}
	return tokens, files, langs
}

// each yields pointers to the docs of a slice.
func each(docs []Doc) iter.Seq[*Doc] {
	return func(yield func(*Doc) bool) {
		for i := range docs {
			if !yield(&docs[i]) {
				return
			}
		}
	}
}

// addLanguages adds sign times each language's count to counts,
// dropping languages that reach zero.
func addLanguages(counts map[string]int, langs map[string]int, sign int) map[string]int {
	for l, n := range langs {
		if counts[l] += sign * n; counts[l] <= 0 {
			delete(counts, l)
		}
	}
	return counts
}

func writeVecs(dir, model string, dim int, rows []vecRow) error {
	return writeFile(filepath.Join(dir, "vectors.bin"), "", func(w *tableWriter) error {
		return appendVecs(w, model, dim, rows)
	})
}

func writeMeta(dir string, m *meta) error {
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), mb, 0o644)
}

// maxUpdate is the number of changed records above which a generation is
// built from scratch rather than updated (the offline builder is faster
// for large changes, and an update rewrites the tables anyway).
const maxUpdate = 2000

// update makes a generation in dir from the generation old plus the
// records that changed between old's memory tree and mem's.
func update(ctx context.Context, repo *gitstore.Repo, old *Index, changes []memref.Change, mem *memref.Memory, dir string, opt Options) (*meta, error) {
	model := opt.Model
	var entries, files []*docEntry
	gone := map[string]bool{}
	var added []memref.RecordRef
	for _, c := range changes {
		gone[c.Path] = true
		if !c.New.IsZero() {
			added = append(added, memref.RecordRef{Path: c.Path, Blob: c.New})
		}
	}
	// Old documents of every changed path go, whatever the diff's old side
	// says: the docs table knows exactly what is indexed. In the sections
	// index, a section the changed record holds again with the same print
	// stays where it is (its document would be the same): oldPrints are
	// the sections that go, and those still there once the records are
	// read are deleted.
	var removedOrds []int
	oldPrints := map[string]docPrint{}
	for p := range gone {
		lo, hi := old.docs.pathRange(p)
		for i := lo; i < hi; i++ {
			if id := old.docs.id(i); pathOfID(old.docs, i, id) == p {
				oldPrints[id] = old.docs.print(i)
				removedOrds = append(removedOrds, i)
			}
		}
	}
	sort.Ints(removedOrds)
	var fresh []sectionDoc
	needKeys := map[embed.Key]bool{}
	// Vectors of a model memory does not store are computed for the
	// changed records only: the rest come from the old generation.
	lv := newLocalVectors(repo, model)
	defer lv.close()
	plain := old.meta.PlainPaths && plainPaths(changes, func(c memref.Change) string { return c.Path })
	// The workers read a copy: the loop below deletes from oldPrints.
	kept := maps.Clone(oldPrints)
	err := readRecords(ctx, repo, added, plain, kept, lv, opt.Budget, opt.Fresh, opt.Progress, func(rd recordDocs) error {
		for _, d := range rd.sections {
			id := d.doc.ID
			if d.entry != nil {
				entries = append(entries, d.entry)
			}
			delete(oldPrints, id)
			d.entry = nil
			fresh = append(fresh, d)
			for _, k := range d.keys {
				needKeys[k] = true
			}
		}
		if rd.file != nil {
			files = append(files, rd.file)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A section indexed anew replaces the document of its id, as do
	// bleve's batches, wherever it is; the sections left in oldPrints go.
	goneIDs := make([]string, 0, len(entries)+len(oldPrints))
	for _, e := range entries {
		goneIDs = append(goneIDs, e.id)
	}
	for id := range oldPrints {
		goneIDs = append(goneIDs, id)
	}
	if err := updateSegs(filepath.Join(old.dir, sectionsDir), filepath.Join(dir, sectionsDir), sectionFields, goneIDs, entries); err != nil {
		return nil, err
	}
	gonePaths := make([]string, 0, len(gone))
	for p := range gone {
		gonePaths = append(gonePaths, p)
	}
	if err := updateSegs(filepath.Join(old.dir, filesDir), filepath.Join(dir, filesDir), 1, gonePaths, files); err != nil {
		return nil, err
	}

	// Fresh docs by id, each id once (the first).
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].doc.ID < fresh[j].doc.ID })
	fresh = slices.CompactFunc(fresh, func(a, b sectionDoc) bool { return a.doc.ID == b.doc.ID })

	// Vectors of the fresh docs: their own where the index computes them,
	// else those memory stores for their keys.
	dim := 0
	if old.vecs != nil && old.vecs.model == model {
		dim = old.vecs.dim
	}
	if old.ovecs != nil && old.ovecs.model == model && old.ovecs.dim > 0 {
		dim = old.ovecs.dim
	}
	var vecs map[embed.Key]embed.Quantized
	if lv != nil {
		dim = lv.emb.Dim()
	} else if model != "" && len(needKeys) > 0 {
		v, d, err := loadVectors(repo, mem.Tree, model, needKeys)
		if err != nil {
			return nil, err
		}
		if dim == 0 {
			dim = d
		}
		if d == dim {
			vecs = v
		}
	}
	tw, err := writeTables(dir, old, removedOrds, fresh, model, dim, vecs)
	if err != nil {
		return nil, err
	}

	// Field totals, file and language counts: the old ones, less the
	// removed sections', plus the fresh ones'.
	removed := make([]Doc, 0, len(removedOrds))
	for _, i := range removedOrds {
		removed = append(removed, old.docs.doc(i))
	}
	freshDocs := make([]Doc, 0, len(tw.added))
	for _, f := range tw.added {
		freshDocs = append(freshDocs, f.doc)
	}
	rmTok, rmFiles, rmLangs := docStats(each(removed))
	addTok, addFiles, addLangs := docStats(each(freshDocs))
	tok := maps.Clone(old.meta.Tokens)
	if tok == nil {
		tok = map[string]int64{}
	}
	for f, n := range rmTok {
		tok[f] -= n
	}
	for f, n := range addTok {
		tok[f] += n
	}
	var langs map[string]int
	if old.meta.Languages != nil {
		langs = addLanguages(addLanguages(maps.Clone(old.meta.Languages), rmLangs, -1), addLangs, 1)
	}
	m := &meta{Format: FormatVersion, Memory: mem.Commit.String(), Tree: mem.Tree.String(), Model: model, Dim: dim,
		Content: contentKey(repo, mem.Tree, model), Docs: tw.docs, Vectors: tw.rows, Built: time.Now().UTC(), How: "update", Changes: len(changes), Tokens: tok,
		Files: old.files - rmFiles + addFiles, Languages: langs, PlainPaths: plain, Layers: tw.layered}
	if lv != nil {
		m.Computed, m.Cached = int(lv.computed.Load()), int(lv.cached.Load())
	}
	if tw.rows == 0 {
		m.Dim = 0
	}
	return m, writeMeta(dir, m)
}

func pathOfID(t *docTable, i int, id string) string {
	r := reader{b: t.record(i)}
	pl := r.uv()
	if pl <= len(id) {
		return id[:pl]
	}
	return id
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// restoreGC puts back the GC percentage a build found. Collection off
// there is the command's warm-up before its first collection (see tuneGC
// in cmd/git-konteks), which a build outlasts: putting it back would
// leave the collector off for the rest of the process, so it becomes
// the default 100 unless the user turned collection off (GOGC=off).
func restoreGC(prev int) {
	if prev < 0 && !strings.EqualFold(os.Getenv("GOGC"), "off") {
		prev = 100
	}
	debug.SetGCPercent(prev)
}
