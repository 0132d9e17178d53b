package extract

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// embedStage runs after every record of a run is decided and before the
// final tree is written: it computes vectors for embedding texts that have
// none yet and stores them under vectors/<model>/<xxx> (the first
// embed.ShardDigits hex digits of the text's hash), quantized to int8.
//
// Cost follows the change: a `changed` run looks only at the records it
// rewrote, embeds only the texts whose hash no shard holds, and rewrites
// only the shards those hashes fall in. A full or rebuild run (or one after
// a run that could not embed everything, marked by vectors/<model>/
// incomplete, or the first run with a new model) visits every record, and
// it also drops vectors no record references any more; changed runs never
// delete, so a vector stays until the next full run (unreferenced vectors
// cost space, not correctness, and may serve a revert).
//
// Vectors are reused from the previous memory by hash in every mode,
// rebuild included: an unchanged text is never embedded again.
//
// With an in-process embedder and enough files to section, the workers
// have already computed the vectors of the records they made (see
// workerEmbedMin): those records are not read back, their vectors are
// placed as they are (a stored vector still wins).
//
// When the provider fails, the run still commits its records with the
// vectors it has and marks the model incomplete; recall falls back to
// lexical search for sections without vectors.
func (r *run) embedStage() error {
	defer func() { r.fresh = nil }()
	e, err := r.emb.get(r.repo.GitDir)
	if err != nil {
		return err
	}
	if e == nil {
		return nil // konteks.embed.provider = none
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
	var prevModel gitstore.Hash // the previous memory's vectors of this model
	incomplete := false
	if r.prev != nil {
		if h, isTree, ok, err := r.repo.Lookup(r.prev.Tree, mpath); err != nil {
			return err
		} else if ok && isTree {
			prevModel = h
			if _, _, ok, _ := r.repo.Lookup(h, embed.IncompleteName); ok {
				incomplete = true
			}
		}
	}
	full := r.mode == ModeFull || r.mode == ModeRebuild || prevModel.IsZero() || incomplete
	if !full {
		// Shards of an older layout are rewritten in the new one by a
		// full visit (their vectors are reused, nothing is re-embedded).
		if t, err := r.repo.Tree(prevModel); err == nil {
			for _, e := range t.Entries {
				if e.Name != embed.IncompleteName && !embed.IsShardName(e.Name) {
					full = true
					break
				}
			}
		}
	}

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

	es := &embedState{run: r, emb: e, prevModel: prevModel, shards: map[string]*shard{}, wanted: map[embed.Key]bool{}}
	if err := es.visit(refs); err != nil {
		return err
	}
	if err := es.flushTexts(); err != nil {
		return err
	}

	// Write the shards.
	names := make([]string, 0, len(es.shards))
	for n := range es.shards {
		names = append(names, n)
	}
	if full && !prevModel.IsZero() {
		// Every shard of the previous memory is rewritten or dropped.
		t, err := r.repo.Tree(prevModel)
		if err != nil {
			return err
		}
		for _, en := range t.Entries {
			// Drop shards no record needs, and any of an older layout.
			if _, ok := es.shards[en.Name]; !ok && en.Name != embed.IncompleteName {
				if err := r.editor.Delete(mpath + "/" + en.Name); err != nil {
					return err
				}
			}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		sh := es.shards[n]
		if full {
			// Keep exactly the vectors some record references.
			kept := sh.entries[:0]
			for _, en := range sh.entries {
				if es.wanted[en.Key] {
					kept = append(kept, en)
				}
			}
			if len(kept) != len(sh.entries) {
				sh.dirty = true
			}
			sh.entries = kept
		}
		p := mpath + "/" + n
		switch {
		case len(sh.entries) == 0:
			if err := r.editor.Delete(p); err != nil {
				return err
			}
		case sh.dirty || !sh.blob.IsZero():
			h := sh.blob
			if sh.dirty || h.IsZero() {
				b, err := embed.EncodeShard(sh.dim, sh.entries)
				if err != nil {
					return err
				}
				if h, err = r.writer.Blob(b); err != nil {
					return err
				}
			}
			if err := r.editor.Set(p, filemode.Regular, h); err != nil {
				return err
			}
		}
	}
	if es.failed != nil {
		h, err := r.writer.Blob([]byte(fmt.Sprintf("%v\n", es.failed)))
		if err != nil {
			return err
		}
		if err := r.editor.Set(mpath+"/"+embed.IncompleteName, filemode.Regular, h); err != nil {
			return err
		}
	} else if incomplete {
		if err := r.editor.Delete(mpath + "/" + embed.IncompleteName); err != nil {
			return err
		}
	}
	r.stats.Embedded += es.embedded
	r.stats.EmbedReused += es.reused
	return nil
}

// shard is one vectors/<model>/<xxx> file being updated.
type shard struct {
	blob    gitstore.Hash // as read from the previous memory (zero: new)
	dim     int
	entries []embed.Entry
	have    map[embed.Key]bool
	dirty   bool
}

type pending struct {
	key  embed.Key
	text string
}

type embedState struct {
	run       *run
	emb       embed.Embedder
	prevModel gitstore.Hash
	// prevShards maps the previous memory's shard names to their blobs.
	prevShards map[string]gitstore.Hash
	legacy     map[string][]embed.Entry // decoded shards of an older layout
	shards     map[string]*shard
	wanted     map[embed.Key]bool // every key the visited records reference
	queue      []pending
	buf        []byte // embedding texts are built here
	queued     map[embed.Key]bool
	embedded   int
	reused     int
	failed     error // the provider's error, once it failed
}

// embedBatch is how many texts go to the embedder at once.
const embedBatch = 1024

// shardOf returns the shard a key falls in, reading it from the previous
// memory the first time.
func (es *embedState) shardOf(k embed.Key) (*shard, error) {
	name := embed.ShardName(k.String())
	if sh, ok := es.shards[name]; ok {
		return sh, nil
	}
	sh := &shard{have: map[embed.Key]bool{}}
	es.shards[name] = sh
	if es.prevModel.IsZero() {
		return sh, nil
	}
	if es.prevShards == nil {
		// Decode the model's directory once, not once per shard.
		t, err := es.run.repo.Tree(es.prevModel)
		if err != nil {
			return nil, err
		}
		es.prevShards = make(map[string]gitstore.Hash, len(t.Entries))
		for _, e := range t.Entries {
			es.prevShards[e.Name] = e.Hash
		}
	}
	h, ok := es.prevShards[name]
	if !ok {
		// Memory written with an older layout (shards named by fewer hex
		// digits): take this shard's vectors from there, so a layout
		// change re-embeds nothing.
		for _, e := range es.legacyEntries(name) {
			sh.dim = len(e.Q)
			sh.entries = append(sh.entries, e)
			sh.have[e.Key] = true
			sh.dirty = true
		}
		return sh, nil
	}
	b, err := es.run.repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return nil, err
	}
	dim, entries, err := embed.DecodeShard(b)
	if err != nil {
		// A damaged shard is dropped and its vectors computed again.
		sh.dirty = true
		return sh, nil
	}
	sh.blob, sh.dim, sh.entries = h, dim, entries
	for _, en := range entries {
		sh.have[en.Key] = true
	}
	return sh, nil
}

// legacyEntries returns the vectors of shard name held by a shard of an
// older, shorter-named layout in the previous memory.
func (es *embedState) legacyEntries(name string) []embed.Entry {
	for n := len(name) - 1; n >= 2; n-- {
		h, ok := es.prevShards[name[:n]]
		if !ok {
			continue
		}
		if es.legacy == nil {
			es.legacy = map[string][]embed.Entry{}
		}
		entries, ok := es.legacy[name[:n]]
		if !ok {
			if b, err := es.run.repo.BlobBytes(h, memory.MaxCompressedSize); err == nil {
				_, entries, _ = embed.DecodeShard(b)
			}
			es.legacy[name[:n]] = entries
		}
		var out []embed.Entry
		for _, e := range entries {
			if embed.ShardName(e.Key.String()) == name {
				out = append(out, e)
			}
		}
		return out
	}
	return nil
}

// visit reads records and queues the texts whose vectors are missing.
// Records made in this run whose vectors the workers computed are not read
// again: their vectors are taken as they are.
func (es *embedState) visit(refs []memref.RecordRef) error {
	es.queued = map[embed.Key]bool{}
	rest := refs[:0:0]
	for _, rf := range refs {
		fv, ok := es.run.fresh[rf.Path]
		if !ok || fv.record != rf.Blob {
			rest = append(rest, rf)
			continue
		}
		for _, v := range fv.vecs {
			if err := es.wantVec(v); err != nil {
				return err
			}
		}
	}
	refs = rest
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
			s := &f.Sections[si]
			// A chunked section is covered by its chunks.
			var werr error
			es.buf = section.EachEmbeddingText(es.buf, p, s, func(hash string, text []byte) {
				if werr == nil {
					werr = es.want(hash, text)
				}
			})
			if werr != nil {
				return werr
			}
		}
		if len(es.queue) >= embedBatch {
			return es.flushTexts()
		}
		return nil
	})
}

// want notes that a text's vector is needed, and queues the text when no
// shard has it.
func (es *embedState) want(hash string, text []byte) error {
	k, ok := embed.ParseKey(hash)
	if !ok || es.wanted[k] {
		return nil
	}
	es.wanted[k] = true
	sh, err := es.shardOf(k)
	if err != nil {
		return err
	}
	if sh.have[k] {
		es.reused++
		return nil
	}
	if es.failed != nil || es.queued[k] {
		return nil
	}
	if section.HashBytes(text) != hash {
		// The record was made by a version whose texts differ from this
		// one's: a vector stored under its hash would describe another
		// text. Leave it to the next rebuild.
		return nil
	}
	es.queued[k] = true
	es.queue = append(es.queue, pending{key: k, text: string(text)})
	return nil
}

// wantVec is want for a text whose vector a worker computed (v.ok false:
// its hash did not match, as want would have found).
func (es *embedState) wantVec(v preVec) error {
	k := v.key
	if es.wanted[k] {
		return nil
	}
	es.wanted[k] = true
	sh, err := es.shardOf(k)
	if err != nil {
		return err
	}
	if sh.have[k] {
		es.reused++
		return nil
	}
	if es.failed != nil || es.queued[k] || !v.ok {
		return nil
	}
	es.add(sh, k, v.q)
	return nil
}

// add stores a new vector in its shard.
func (es *embedState) add(sh *shard, k embed.Key, q embed.Quantized) {
	if sh.dim == 0 {
		sh.dim = len(q.Q)
	}
	if len(q.Q) != sh.dim {
		// The model changed its dimension under the same id: the old
		// shard cannot be kept.
		sh.entries, sh.have, sh.dim = nil, map[embed.Key]bool{}, len(q.Q)
	}
	sh.entries = append(sh.entries, embed.Entry{Key: k, Quantized: q})
	sh.have[k] = true
	sh.dirty = true
	es.embedded++
}

// flushTexts embeds the queued texts and adds their vectors to shards.
func (es *embedState) flushTexts() error {
	if len(es.queue) == 0 || es.failed != nil {
		es.queue = es.queue[:0]
		return nil
	}
	texts := make([]string, len(es.queue))
	for i, p := range es.queue {
		texts[i] = p.text
	}
	vs, err := es.emb.Embed(context.Background(), texts)
	if err != nil {
		es.failed = err
		es.queue = es.queue[:0]
		return nil
	}
	for i, p := range es.queue {
		sh, err := es.shardOf(p.key)
		if err != nil {
			return err
		}
		es.add(sh, p.key, embed.Quantize(vs[i]))
	}
	es.queue = es.queue[:0]
	return nil
}

// embedder is the run's configured embedder, read from git config once.
type embedder struct {
	once sync.Once
	e    embed.Embedder
	err  error
}

func (m *embedder) get(gitDir string) (embed.Embedder, error) {
	m.once.Do(func() { m.e, m.err = embed.Configured(gitDir) })
	return m.e, m.err
}

// workerEmbedMin is how many files a run must section before its workers
// embed each file as they section it. Below it the stage embeds only the
// texts no stored vector covers (a small changed run reuses most of an
// edited file's vectors); above it, computing every vector of the new
// records on the workers, overlapped with parsing, is cheaper than reading
// the records back, rebuilding their texts and embedding them serially
// after the last parse. Vectors are the same either way: the embedder is
// deterministic and stored vectors win over recomputed ones.
var workerEmbedMin = 32

// workerEmbedder returns the in-process embedder workers should embed
// with, or nil when the stage does it (a remote provider, few files,
// embeddings turned off).
func (r *run) workerEmbedder(files int) embed.InProcess {
	if files < workerEmbedMin {
		return nil
	}
	e, err := r.emb.get(r.repo.GitDir)
	if err != nil || e == nil {
		return nil // the stage reports the error
	}
	ip, ok := e.(embed.InProcess)
	if !ok {
		return nil
	}
	if r.fresh == nil {
		r.fresh = map[string]freshVecs{}
	}
	return ip
}

// preVec is one vector a worker computed for a record's text; ok is false
// when the text does not hash to the record's key (the stage would not
// embed it either).
type preVec struct {
	key embed.Key
	q   embed.Quantized
	ok  bool
}

// freshVecs are the vectors of the record written for a path in this run.
type freshVecs struct {
	record gitstore.Hash
	vecs   []preVec
}

// embedRecord computes the vectors of every embedding text of f, once per
// distinct text.
func embedRecord(vz embed.Vectorizer, p string, f *memory.File) []preVec {
	var out []preVec
	var buf []byte
	seen := map[embed.Key]bool{}
	for i := range f.Sections {
		buf = section.EachEmbeddingText(buf, p, &f.Sections[i], func(hash string, text []byte) {
			k, ok := embed.ParseKey(hash)
			if !ok || seen[k] {
				return
			}
			seen[k] = true
			v := preVec{key: k}
			if section.HashBytes(text) == hash {
				v.q, v.ok = embed.QuantizeOwned(vz.Vector(string(text))), true
			}
			out = append(out, v)
		})
	}
	return out
}
