package extract

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// embedStage runs after every record of a run is decided and before the
// final tree is written: for a model whose vectors memory stores (a paid
// or slow provider, see embed.StoredInRef) it computes vectors for the
// embedding texts that have none yet and stores them under
// vectors/<model>/, quantized to int8, in the trie of small shards that
// embed.LayOut describes. The built-in model's vectors are not stored:
// the index computes them where it is built (index/localvec.go), so this
// stage does nothing for it.
//
// Cost follows the change: a `changed` run looks only at the records it
// rewrote, embeds only the texts no shard holds, and rewrites only the
// shards the new vectors fall in (and the small trees above them). A full
// or rebuild run (or one after a run that could not embed everything,
// marked by vectors/<model>/incomplete, or the first run with a new
// model, or one over memory in the older flat layout) visits every record
// and lays the model's directory out again from exactly the vectors some
// record references; changed runs never delete, so a vector stays until
// the next full run (unreferenced vectors cost space, not correctness,
// and may serve a revert).
//
// Vectors are reused from the previous memory by hash in every mode,
// rebuild included: an unchanged text is never embedded again.
//
// When the provider fails, the run still commits its records with the
// vectors it has and marks the model incomplete; recall falls back to
// lexical search for sections without vectors.
func (r *run) embedStage() error {
	e, err := r.emb.get(r.repo)
	if err != nil {
		return err
	}
	if e == nil || !embed.StoredInRef(e.Model()) {
		return nil // konteks.embed.provider = none, or the built-in model
	}
	model := e.Model()
	mpath := embed.ModelPath(model)
	r.embedModel = model

	// The records as this run leaves them: write the tree being built (its
	// objects stay pending in the writer until the final flush).
	root, err := r.editor.Write(r.writer)
	if err != nil {
		return err
	}
	if err := r.writer.Flush(); err != nil {
		return err
	}
	var prevTree gitstore.Hash
	if r.prev != nil {
		prevTree = r.prev.Tree
	}
	vr, err := memref.NewVectorReader(r.repo, prevTree, model)
	if err != nil {
		return err
	}
	names, err := vr.Names()
	if err != nil {
		return err
	}
	incomplete, legacy := false, false
	for _, n := range names {
		if n == embed.IncompleteName {
			incomplete = true
		} else if !embed.IsNodeName(n) {
			legacy = true // rewritten in the trie layout by a full visit
		}
	}
	full := r.mode == ModeFull || r.mode == ModeRebuild || vr.Root().IsZero() || incomplete || legacy

	// Records to visit.
	var refs []memref.RecordRef
	if full {
		if refs, err = memref.Records(r.repo, root); err != nil {
			return err
		}
	} else {
		changes, err := memref.DiffRecords(r.repo, r.prev.Tree, root)
		if err != nil {
			return err
		}
		for _, c := range changes {
			if !c.New.IsZero() {
				refs = append(refs, memref.RecordRef{Path: c.Path, Blob: c.New})
			}
		}
	}

	es := &embedState{run: r, emb: e, texts: map[embed.Key]string{}}
	if err := es.collect(refs); err != nil {
		return err
	}
	// What memory has already: every stored vector for a full run (the
	// directory is laid out again), only the wanted keys' shards for a
	// changed one.
	var have map[embed.Key]embed.Quantized
	if full {
		have, _, err = vr.Vectors(nil)
	} else {
		want := make(map[embed.Key]bool, len(es.order))
		for _, k := range es.order {
			want[k] = true
		}
		have, _, err = vr.Vectors(want)
	}
	if err != nil {
		return err
	}
	fresh, err := es.embedMissing(have)
	if err != nil {
		return err
	}
	if full {
		err = es.writeAll(mpath, have, fresh)
	} else {
		err = es.insert(vr, mpath, fresh)
	}
	if err != nil {
		return err
	}
	if es.failed != nil {
		h, err := r.writer.Blob([]byte(fmt.Sprintf("%v\n", es.failed)))
		if err != nil {
			return err
		}
		if err := r.editor.Set(mpath+"/"+embed.IncompleteName, gitstore.ModeRegular, h); err != nil {
			return err
		}
	} else if incomplete {
		if err := r.editor.Delete(mpath + "/" + embed.IncompleteName); err != nil {
			return err
		}
	}
	r.stats.Embedded += len(fresh)
	r.stats.EmbedReused += es.reused
	return nil
}

// embedState is one run's embedding work.
type embedState struct {
	run *run
	emb embed.Embedder
	// order lists every key the visited records reference, once; texts
	// holds the text of those whose text hashes to the key (the others
	// were made by a version whose texts differ from this one's: a
	// vector stored under their hash would describe another text, so
	// they wait for the next rebuild).
	order  []embed.Key
	seen   map[embed.Key]bool
	texts  map[embed.Key]string
	buf    []byte
	reused int
	failed error // the provider's error, once it failed
}

// embedBatch is how many texts go to the embedder at once.
const embedBatch = 1024

// collect reads records and notes every embedding text they reference.
func (es *embedState) collect(refs []memref.RecordRef) error {
	es.seen = map[embed.Key]bool{}
	if len(refs) == 0 {
		return nil
	}
	reader := es.run.repo.NewBlobReader(len(refs))
	defer reader.Close()
	ids := make([]gitstore.Hash, len(refs))
	for i, rf := range refs {
		ids[i] = rf.Blob
	}
	i := 0
	return reader.ReadBlobs(context.Background(), ids, memory.MaxCompressedSize, func(b gitstore.Blob) error {
		p := refs[i].Path
		i++
		if b.Missing || b.TooLarge {
			return fmt.Errorf("%w: record of %s is missing", memref.ErrCorrupt, p)
		}
		f, err := memory.DecodeFile(b.Data)
		if err != nil {
			return fmt.Errorf("%w: record of %s: %v", memref.ErrCorrupt, p, err)
		}
		for si := range f.Sections {
			// A chunked section is covered by its chunks.
			es.buf = section.EachEmbeddingText(es.buf, p, &f.Sections[si], func(hash string, text []byte) {
				k, ok := embed.ParseKey(hash)
				if !ok || es.seen[k] {
					return
				}
				es.seen[k] = true
				es.order = append(es.order, k)
				if section.HashBytes(text) == hash {
					es.texts[k] = string(text)
				}
			})
		}
		return nil
	})
}

// embedMissing embeds, in batches, the texts whose vectors memory lacks.
// A provider failure stops embedding (the run goes on with what it has).
func (es *embedState) embedMissing(have map[embed.Key]embed.Quantized) ([]embed.Entry, error) {
	var todo []embed.Key
	for _, k := range es.order {
		if _, ok := have[k]; ok {
			es.reused++
		} else if _, ok := es.texts[k]; ok {
			todo = append(todo, k)
		}
	}
	var out []embed.Entry
	for lo := 0; lo < len(todo); lo += embedBatch {
		batch := todo[lo:min(lo+embedBatch, len(todo))]
		texts := make([]string, len(batch))
		for i, k := range batch {
			texts[i] = es.texts[k]
		}
		vs, err := es.emb.Embed(context.Background(), texts)
		if err != nil {
			es.failed = err
			break
		}
		if len(vs) != len(batch) {
			es.failed = fmt.Errorf("provider returned %d vectors for %d texts", len(vs), len(batch))
			break
		}
		for i, k := range batch {
			out = append(out, embed.Entry{Key: k, Quantized: embed.Quantize(vs[i])})
		}
	}
	return out, nil
}

// dimOf is the dimension the model's vectors are written with: the new
// vectors' (a model that changed its dimension under the same id
// replaces the old ones), else the stored ones'.
func dimOf(fresh []embed.Entry, have map[embed.Key]embed.Quantized) int {
	if len(fresh) > 0 {
		return len(fresh[0].Q)
	}
	for _, q := range have {
		return len(q.Q)
	}
	return 0
}

// writeAll lays the model's directory out again from exactly the vectors
// the visited records reference (a full visit).
func (es *embedState) writeAll(mpath string, have map[embed.Key]embed.Quantized, fresh []embed.Entry) error {
	dim := dimOf(fresh, have)
	var keep []embed.Entry
	for _, k := range es.order {
		if q, ok := have[k]; ok && len(q.Q) == dim {
			keep = append(keep, embed.Entry{Key: k, Quantized: q})
		}
	}
	for _, e := range fresh {
		if len(e.Q) == dim {
			keep = append(keep, e)
		}
	}
	r := es.run
	if err := r.editor.Delete(mpath); err != nil {
		return err
	}
	if dim == 0 {
		return nil
	}
	return embed.LayOut(dim, 0, keep, func(rel string, b []byte) error {
		return es.put(mpath+"/"+rel, b)
	})
}

// insert adds new vectors to the shards they fall in (a changed run):
// each touched shard is rewritten, and split into a directory when it
// outgrows embed.ShardMax.
func (es *embedState) insert(vr *memref.VectorReader, mpath string, fresh []embed.Entry) error {
	type leaf struct {
		blob  gitstore.Hash
		added []embed.Entry
	}
	leaves := map[string]*leaf{}
	for _, e := range fresh {
		p, h, err := vr.Leaf(e.Key)
		if err != nil {
			return err
		}
		l := leaves[p]
		if l == nil {
			l = &leaf{blob: h}
			leaves[p] = l
		}
		l.added = append(l.added, e)
	}
	paths := make([]string, 0, len(leaves))
	for p := range leaves {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		l := leaves[p]
		dim := len(l.added[0].Q)
		entries := l.added
		if !l.blob.IsZero() {
			d, old, err := vr.Shard(l.blob)
			// A damaged shard is dropped and its vectors computed again
			// by the next full run; one of another dimension is replaced.
			if err == nil && d == dim {
				entries = append(old, entries...)
			}
		}
		depth := strings.Count(p, "/") + 1
		if err := es.run.editor.Delete(mpath + "/" + p); err != nil {
			return err
		}
		err := embed.LayOut(dim, depth, entries, func(rel string, b []byte) error {
			if rel != "" {
				rel = "/" + rel
			}
			return es.put(mpath+"/"+p+rel, b)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// put writes one shard at path.
func (es *embedState) put(path string, b []byte) error {
	h, err := es.run.writer.Blob(b)
	if err != nil {
		return err
	}
	return es.run.editor.Set(path, gitstore.ModeRegular, h)
}

// embedder is the run's configured embedder, read from git config once.
type embedder struct {
	once sync.Once
	e    embed.Embedder
	err  error
}

func (m *embedder) get(repo *gitstore.Repo) (embed.Embedder, error) {
	m.once.Do(func() { m.e, m.err = embed.Configured(repo.ConfigValues("konteks.embed.")) })
	return m.e, m.err
}
