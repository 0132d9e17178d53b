// Package extract turns one source commit into memory: it plans what to
// (re)extract, gates paths, reads blobs from the object database, sections
// files into records, and commits the result under refs/konteks in one
// atomic step. It never reads the work tree and never calls git directly:
// every object and ref goes through gitstore.
package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Modes of extraction.
const (
	ModeFull    = "full"    // gate and extract every path, reusing records by blob id
	ModeChanged = "changed" // only paths that differ from the memory's source tree
	ModeResume  = "resume"  // finish an interrupted run from its checkpoint
	ModeRebuild = "rebuild" // discard derived memory and extract again (durable/ kept)
)

// Options control one extraction.
type Options struct {
	Mode        string // "" picks changed when memory exists, full otherwise
	Rev         string // source revision, default HEAD
	Workers     int    // sectioning workers, default GOMAXPROCS
	MaxFileSize int64  // default DefaultMaxFileSize
	ToolVersion string
	// CheckpointEvery is the number of newly extracted files between
	// checkpoints of a long run (default 10000); CheckpointBytes bounds
	// the bytes of the records made between them (default 32 MiB). Both
	// count work done, not time: a slower or busier machine writes no
	// more checkpoints for the same repository.
	CheckpointEvery int
	CheckpointBytes int64
	// Progress, when set, is called from time to time during a run.
	Progress func(Progress)
	// Wait, when set, is called once if another extraction holds the lock.
	Wait func(holder string)
	// NoWait fails at once instead of waiting for another extraction.
	NoWait bool
}

// Progress reports a running extraction.
type Progress struct {
	Stage string // plan, extract, write
	Done  int
	Total int
	Bytes int64
}

// Result is the outcome of a run.
type Result struct {
	Manifest *manifest.Manifest
	Commit   gitstore.Hash // new memory commit (the old one when UpToDate)
	Previous gitstore.Hash
	UpToDate bool // memory already described the target; nothing was written
	// Fresh holds the records this run made, by blob, as
	// memory.AsDecoded gives them, when it made at most freshMax of them
	// (freshBytes of content): the index update that follows takes them
	// without reading them back (index.Options.Fresh). Records the round
	// trip would change are not in it.
	Fresh map[gitstore.Hash]*memory.File
}

// The records a run hands to the index update in memory: a one-file or
// few-file run's, not a full extraction's (whose build reads every record
// anyway, and would hold them all).
const (
	freshMax   = 64
	freshBytes = 16 << 20
)

// ErrCorruptMemory is returned when existing memory cannot be read; a
// rebuild recovers from it.
var ErrCorruptMemory = memref.ErrCorrupt

// Memory is a memory commit as read from the ref.
type Memory = memref.Memory

// Run extracts memory for the commit named by opt.Rev and moves refs/konteks
// to it. Only one run per repository proceeds at a time.
func Run(ctx context.Context, repo *gitstore.Repo, opt Options) (*Result, error) {
	var lock *gitstore.Lock
	var err error
	if opt.NoWait {
		var holder string
		lock, holder, err = repo.TryLock("extract")
		if errors.Is(err, gitstore.ErrLocked) {
			return nil, fmt.Errorf("another extraction is running (%s): %w", holder, err)
		}
	} else {
		lock, err = repo.LockWait("extract", 0, opt.Wait)
	}
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()

	r := &run{repo: repo, opt: opt, started: time.Now(), timings: map[string]float64{}}
	if r.opt.Workers <= 0 {
		r.opt.Workers = runtime.GOMAXPROCS(0)
	}
	if r.opt.MaxFileSize <= 0 {
		r.opt.MaxFileSize = DefaultMaxFileSize
	}
	if r.opt.CheckpointEvery <= 0 {
		r.opt.CheckpointEvery = 10000
	}
	if r.opt.CheckpointBytes <= 0 {
		r.opt.CheckpointBytes = 32 << 20
	}
	return r.do(ctx)
}

// run is the state of one extraction.
type run struct {
	ctx     context.Context
	repo    *gitstore.Repo
	opt     Options
	started time.Time
	timings map[string]float64

	prev      *Memory // memory before the run (nil: none)
	mode      string  // mode that runs
	requested string
	reason    string
	target    *gitstore.Commit

	gate    *Gate
	editor  *gitstore.TreeEditor
	writer  *gitstore.Writer
	skipped map[string]string
	totals  manifest.Totals
	stats   manifest.Run

	// reuse maps a source path to the record known to describe a blob
	// there; byBlob finds a record for a blob at any path (renames).
	reuse  map[string]reusable
	byBlob map[gitstore.Hash]reusable // blob -> a path and record made for it

	wip         *Memory // checkpoint being resumed
	wipBase     gitstore.Hash
	done        []string // paths finished, for checkpoints
	sinceCk     int      // files extracted since the last checkpoint
	sinceCkSize int64    // and their records' bytes
	checkpoints int
	embedModel  string            // model whose vectors embedStage wrote
	history     *manifest.History // counts of the history stage
	readMu      sync.Mutex        // guards stats.BytesRead, counted by workers
	redactMu    sync.Mutex        // guards stats.RedactedDerived
	gateNS      atomic.Int64      // CPU time workers spent in the content gate and the detector

	// changed holds the source paths whose record appeared, changed or
	// went away in this run; abstracts the abstracts of records made in
	// this run; dirL0 the directory abstracts computed in this run.
	changed   map[string]bool
	abstracts map[string]string
	dirL0     map[string]string
	// changedSource holds every source path a changed run looked at.
	changedSource     map[string]bool
	project           *Project
	portraitRefreshed bool
	pkgDirs           map[string]bool // nested package dirs of the previous portrait
	llm               *llmSummarizer
	modDelta          map[string]*moduleDelta

	// emb is the configured embedder, read once (embed_stage.go).
	emb embedder

	// fresh are the records made in this run, for Result.Fresh, and
	// freshSize their content's bytes.
	fresh     map[gitstore.Hash]*memory.File
	freshSize int
	freshOff  bool // the run outgrew freshMax or freshBytes
}

type reusable struct {
	blob   gitstore.Hash
	record gitstore.Hash
	path   string // the path the record was made for
}

// item is one path whose state this run decides.
type item struct {
	path string
	blob gitstore.Hash
	kind gitstore.EntryKind
	del  bool // removed from the source tree
}

func (r *run) stage(name string, t0 time.Time) {
	r.timings[name] += float64(time.Since(t0).Microseconds()) / 1000
}

func (r *run) do(ctx context.Context) (*Result, error) {
	r.ctx = ctx
	t0 := r.begin("plan")
	prev, err := memref.Read(r.repo, memory.Ref)
	corrupt := err != nil && errors.Is(err, ErrCorruptMemory)
	if err != nil && !corrupt {
		return nil, err
	}
	r.prev = prev
	r.dropFinishedCheckpoint()
	r.requested = r.opt.Mode
	mode := r.opt.Mode
	switch mode {
	case "", ModeFull, ModeChanged, ModeResume, ModeRebuild:
	default:
		return nil, fmt.Errorf("unknown mode %q (want full, changed, resume or rebuild)", mode)
	}
	if corrupt && mode != ModeRebuild {
		return nil, fmt.Errorf("%w (%v): run `git konteks extract --mode rebuild` to rebuild it; durable memories are kept", ErrCorruptMemory, err)
	}

	rev := r.opt.Rev
	if mode == ModeResume {
		wip, werr := memref.Read(r.repo, memory.WIPRef)
		switch {
		case werr != nil || wip == nil || wip.Manifest == nil || wip.Manifest.Partial == nil:
			r.reason = "no interrupted run to resume"
			mode = ""
		default:
			r.wip = wip
			rev = wip.Manifest.Partial.Target
			mode = ModeFull
			r.reason = fmt.Sprintf("resuming %s run of %.12s (%d files done)", wip.Manifest.Partial.Mode, rev, wip.Manifest.Partial.Done)
		}
	}
	if mode == "" {
		mode = ModeChanged
		if !prev.Derived() {
			mode = ModeFull
		}
	}
	if mode == ModeChanged && !prev.Derived() {
		mode, r.reason = ModeFull, "no memory yet"
	}
	// Memory of an earlier format (manifest schema) is rebuilt once: its
	// derived records are replaced, its durable memory is kept as it is.
	if prev != nil && prev.Manifest != nil && mode != ModeRebuild && prev.Manifest.Schema != manifest.Schema {
		mode, r.reason = ModeRebuild, fmt.Sprintf("memory format changed (%d -> %d)", prev.Manifest.Schema, manifest.Schema)
	}
	if prev != nil && prev.Manifest != nil && mode != ModeRebuild && prev.Manifest.RecordVersion != memory.RecordVersion {
		mode, r.reason = ModeRebuild, fmt.Sprintf("record version changed (%d -> %d)", prev.Manifest.RecordVersion, memory.RecordVersion)
	}
	if mode == ModeChanged && prev.Manifest.GateVersion != GateVersion {
		mode, r.reason = ModeFull, "gate rules changed"
	}

	target, err := r.repo.Resolve(rev)
	if err != nil {
		return nil, err
	}
	r.target = target
	if mode == ModeChanged && prev.Manifest.SourceCommit == target.Hash.String() {
		return &Result{Manifest: prev.Manifest, Commit: prev.Commit, Previous: prev.Commit, UpToDate: true}, nil
	}

	r.gate, err = NewGate(r.repo, target.TreeHash, r.opt.MaxFileSize)
	if err != nil {
		return nil, err
	}
	r.writer = r.repo.NewWriter()
	r.skipped = map[string]string{}
	if mode == ModeRebuild || !prev.Derived() {
		r.editor = r.repo.NewTreeEditor(gitstore.ZeroHash)
		if prev != nil {
			if h, isTree, ok, _ := r.repo.Lookup(prev.Tree, memory.DurableDir); ok && isTree {
				if err := r.editor.Set(memory.DurableDir, gitstore.ModeDir, h); err != nil {
					return nil, err
				}
			}
		}
		r.totals = manifest.Totals{}
	} else {
		r.editor = r.repo.NewTreeEditor(prev.Tree)
		r.totals = cloneTotals(prev.Manifest.Totals)
		if r.skipped, err = memref.Skipped(r.repo, prev.Tree); err != nil {
			return nil, fmt.Errorf("%w (%v): run `git konteks extract --mode rebuild`", ErrCorruptMemory, err)
		}
	}
	ensureMaps(&r.totals)
	r.stats.Skipped = map[string]int{}
	r.changed, r.abstracts = map[string]bool{}, map[string]string{}
	r.changedSource, r.modDelta = map[string]bool{}, map[string]*moduleDelta{}
	r.pkgDirs = packageDirs(r.readProject())

	var items []item
	r.mode = mode
	switch mode {
	case ModeChanged:
		items, err = r.planChanged()
		switch err {
		case errRegate:
			mode, r.reason = ModeFull, "ignore or attribute rules changed"
			r.mode = mode
			items, err = r.planFull()
		case errSourceMissing:
			mode, r.reason = ModeFull, "the commit memory describes is not in this repository"
			r.mode = mode
			items, err = r.planFull()
		}
	default:
		items, err = r.planFull()
	}
	if err != nil {
		return nil, err
	}
	r.mode = mode
	r.stage("plan", t0)

	if err := r.execute(ctx, items); err != nil {
		return nil, err
	}
	return r.commit()
}

var (
	errRegate        = errors.New("rules changed")
	errSourceMissing = errors.New("source tree missing")
)

// planChanged lists the paths that differ between the memory's source tree
// and the target tree.
func (r *run) planChanged() ([]item, error) {
	from := gitstore.ParseHash(r.prev.Manifest.SourceTree)
	if _, err := r.repo.Tree(from); err != nil {
		// Memory fetched from a clone whose source commit is not here.
		return nil, errSourceMissing
	}
	changes, err := r.repo.DiffTrees(from, r.target.TreeHash)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		if isRuleFile(c.Path) {
			return nil, errRegate
		}
		r.changedSource[c.Path] = true
	}
	r.byBlob = map[gitstore.Hash]reusable{}
	items := make([]item, 0, len(changes))
	for _, c := range changes {
		if c.To.IsZero() {
			items = append(items, item{path: c.Path, blob: c.From, del: true})
			r.totals.Scanned--
			if h, _, ok, _ := r.editor.Get(memory.FilePath(c.Path)); ok {
				r.byBlob[c.From] = reusable{blob: c.From, record: h, path: c.Path} // a rename's new path can reuse it
			}
			continue
		}
		if c.From.IsZero() {
			r.totals.Scanned++
		}
		items = append(items, item{path: c.Path, blob: c.To, kind: c.ToKind})
	}
	return items, nil
}

// planFull lists every path of the target tree, with the records that can
// be reused for them: from the previous memory (same path and blob, or same
// blob at another path) and, when resuming, from the checkpoint.
func (r *run) planFull() ([]item, error) {
	r.reuse = map[string]reusable{}
	r.byBlob = map[gitstore.Hash]reusable{}
	var items []item
	seen := map[string]bool{}
	if r.mode != ModeRebuild && r.prev.Derived() {
		// Records made under other gate rules are not reused: what the
		// gate lets through (and redacts) may differ for the same blob.
		sameGate := r.prev.Manifest.GateVersion == GateVersion
		recs := map[string]gitstore.Hash{}
		if fh, isTree, ok, err := r.repo.Lookup(r.prev.Tree, memory.FilesDir); err != nil {
			return nil, err
		} else if ok && isTree {
			if err := r.repo.WalkTree(fh, nil, func(e gitstore.Entry) error {
				recs[e.Path] = e.Hash
				return nil
			}); err != nil {
				return nil, err
			}
		}
		src := gitstore.ParseHash(r.prev.Manifest.SourceTree)
		if err := r.repo.WalkTree(src, nil, func(e gitstore.Entry) error {
			if rec, ok := recs[e.Path]; ok && sameGate {
				ru := reusable{blob: e.Hash, record: rec, path: e.Path}
				r.reuse[e.Path] = ru
				r.byBlob[e.Hash] = ru
			}
			return nil
		}); err != nil {
			// The old source tree may be gone (a history rewrite): then
			// nothing is reused by blob, which costs time, not correctness.
			r.reuse = map[string]reusable{}
			r.byBlob = map[gitstore.Hash]reusable{}
		}
		// Paths with records or skip entries in the old memory that are
		// no longer in the tree must be removed: mark them for deletion
		// unless the walk below sees them.
		for p := range recs {
			seen[p] = false
		}
		for p := range r.skipped {
			seen[p] = false
		}
	}
	if r.wip != nil {
		if err := r.loadCheckpoint(); err != nil {
			return nil, err
		}
	}
	r.totals.Scanned = 0
	if err := r.repo.WalkTree(r.target.TreeHash, nil, func(e gitstore.Entry) error {
		r.totals.Scanned++
		seen[e.Path] = true
		if k := memref.SkipKey(e.Path); k != e.Path {
			seen[k] = true // its skip entry is listed by hash
		}
		items = append(items, item{path: e.Path, blob: e.Hash, kind: e.Kind})
		return nil
	}); err != nil {
		return nil, err
	}
	var gone []string
	for p, ok := range seen {
		if !ok {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	for _, p := range gone {
		items = append(items, item{path: p, del: true})
	}
	return items, nil
}

// loadCheckpoint makes the records finished by an interrupted run reusable.
func (r *run) loadCheckpoint() error {
	h, _, ok, err := r.repo.Lookup(r.wip.Tree, memory.WIPDonePath)
	if err != nil || !ok {
		return err
	}
	b, err := r.repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return err
	}
	raw, err := memory.Decompress(b)
	if err != nil {
		return err
	}
	var done map[string]string
	if err := json.Unmarshal(raw, &done); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for p, blob := range done {
		bh := gitstore.ParseHash(blob)
		if bh.IsZero() || memory.ValidSourcePath(p) != nil {
			continue
		}
		rec, _, ok, err := r.repo.Lookup(r.wip.Tree, memory.FilePath(p))
		if err != nil || !ok {
			continue
		}
		ru := reusable{blob: bh, record: rec, path: p}
		r.reuse[p] = ru
		r.byBlob[bh] = ru
	}
	return nil
}

// outcome is the new state of one path.
type outcome struct {
	it     item
	skip   string        // gate reason, or ""
	record gitstore.Hash // record blob (new or reused)
	data   []byte        // encoded record, when new
	file   *memory.File  // decoded record (for counts), when known
	parse  time.Duration // time spent sectioning, when extracted anew
	err    error
}

// execute decides every item: gate, reuse or extract, and apply.
func (r *run) execute(ctx context.Context, items []item) error {
	t0 := time.Now()
	var toRead []item
	total := 0
	for _, it := range items {
		if it.del {
			if err := r.apply(outcome{it: it}); err != nil {
				return err
			}
			continue
		}
		total++
		if reason := r.gate.Path(it.path, it.kind); reason != "" {
			if err := r.apply(outcome{it: it, skip: reason}); err != nil {
				return err
			}
			continue
		}
		if ru, ok := r.reuse[it.path]; ok && ru.blob == it.blob {
			if err := r.apply(outcome{it: it, record: ru.record}); err != nil {
				return err
			}
			continue
		}
		if ru, ok := r.byBlob[it.blob]; ok && sameShape(ru.path, it.path) {
			// Same content at another path (a rename or copy): reuse the
			// record without reading or parsing the blob, but re-derive
			// what depends on the path.
			o, err := r.repath(it, ru.record)
			if err != nil {
				return err
			}
			if err := r.apply(o); err != nil {
				return err
			}
			continue
		}
		toRead = append(toRead, it)
	}
	r.stage("gate", t0)
	done := total - len(toRead)
	r.progress("extract", done, total)

	t1 := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		it   item
		blob gitstore.Blob
	}
	jobs := make(chan job, r.opt.Workers*4)
	results := make(chan outcome, r.opt.Workers*4)
	reader := r.repo.NewBlobReader(len(toRead))
	defer reader.Close()
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		ids := make([]gitstore.Hash, len(toRead))
		for i, it := range toRead {
			ids[i] = it.blob
		}
		i := 0
		readErr <- reader.ReadBlobs(ctx, ids, r.opt.MaxFileSize, func(b gitstore.Blob) error {
			j := job{it: toRead[i], blob: b}
			i++
			select {
			case jobs <- j:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var wg sync.WaitGroup
	for w := 0; w < r.opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- r.extractOne(j.it, j.blob)
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var firstErr error
	for o := range results {
		if firstErr != nil {
			continue
		}
		if o.err == nil {
			o.err = r.apply(o)
		}
		if o.err != nil {
			firstErr = o.err
			cancel()
			continue
		}
		done++
		r.progress("extract", done, total)
		if err := r.maybeCheckpoint(); err != nil {
			firstErr = err
			cancel()
		}
	}
	if err := <-readErr; err != nil && firstErr == nil {
		firstErr = err
	}
	r.stage("extract", t1)
	// The content gate runs on the workers: its time is their CPU time,
	// summed, next to the wall-clock stages.
	r.timings["gate-content-cpu"] += float64(r.gateNS.Swap(0)/1000) / 1000
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// repath makes the outcome of reusing record rec (made for the same blob
// at another path) at it.path.
func (r *run) repath(it item, rec gitstore.Hash) (outcome, error) {
	f, err := r.decodeRecord(rec, it.path)
	if err != nil {
		return outcome{}, err
	}
	if r.gate.Path(it.path, it.kind) != "" {
		return outcome{}, nil // not reached: callers gate first
	}
	repathRecord(f, it.path)
	data, err := memory.EncodeFile(f)
	if err != nil {
		return outcome{}, err
	}
	r.stats.Reused++
	r.stats.Extracted-- // apply counts a new record as extracted
	return outcome{it: it, file: f, data: data}, nil
}

// extractOne gates a blob's content and sections it. It runs on workers.
func (r *run) extractOne(it item, b gitstore.Blob) outcome {
	o := outcome{it: it}
	switch {
	case b.Missing:
		o.skip = SkipMissing
		return o
	case b.TooLarge:
		o.skip = SkipTooLarge
		return o
	}
	r.countRead(int64(len(b.Data)))
	gateCPU := threadCPU()
	reason := r.gate.Content(it.path, b.Data)
	var content []byte
	var kinds []string
	switch {
	case reason == "" && binaryFormat(it.path):
		content = b.Data // PDFs and media: checked by formatContent, whole
	case reason == "":
		content, kinds, reason = r.gate.Redact(it.path, b.Data)
	}
	r.gateNS.Add(int64(gateCPU()))
	if reason != "" {
		o.skip = reason
		return o
	}
	t0 := time.Now()
	f := buildRecord(it.path, it.blob.String(), content)
	f.Size = int64(len(b.Data))
	if len(kinds) > 0 {
		f.Warnings = append(f.Warnings, redactedWarning(kinds))
	}
	o.parse = time.Since(t0)
	if extractedSecret(f) { // text decoded from a PDF or media file (formats.go)
		o.skip = SkipSecretTxt
		return o
	}
	data, err := memory.EncodeFile(f)
	if err != nil {
		o.err = fmt.Errorf("%s: %w", it.path, err)
		return o
	}
	o.file, o.data = f, data
	return o
}

func (r *run) countRead(n int64) {
	r.readMu.Lock()
	r.stats.BytesRead += n
	r.readMu.Unlock()
}

// apply records one path's new state in the tree being built and in the
// counts: the old state's contribution is taken out, the new one's added.
func (r *run) apply(o outcome) error {
	p := o.it.path
	if !o.it.del {
		r.stats.Considered++
	}
	recPath := memory.FilePath(p)
	oldRec, _, hadRec, err := r.editor.Get(recPath)
	if err != nil {
		return err
	}
	key := memref.SkipKey(p)
	oldSkip, hadSkip := r.skipped[key]

	if o.data != nil {
		h, err := r.writer.Blob(o.data)
		if err != nil {
			return err
		}
		o.record = h
	}
	// Unchanged: same record, or same skip reason.
	if hadRec && !o.record.IsZero() && oldRec == o.record {
		r.stats.Reused++
		r.markDone(p, o.it.blob)
		return nil
	}
	if hadSkip && o.skip == oldSkip && !hadRec {
		r.stats.Skipped[o.skip]++
		return nil
	}
	// Take out the old contribution.
	if hadRec {
		old, err := r.decodeRecord(oldRec, p)
		if err != nil {
			return err
		}
		subRecord(&r.totals, old)
		r.moduleAdd(p, old, -1)
		r.changed[p] = true
		if err := r.editor.Delete(recPath); err != nil {
			return err
		}
		if o.record.IsZero() {
			r.stats.Removed++
		}
	}
	if hadSkip {
		r.totals.Skipped[oldSkip]--
		if r.totals.Skipped[oldSkip] <= 0 {
			delete(r.totals.Skipped, oldSkip)
		}
		delete(r.skipped, key)
	}
	switch {
	case o.it.del:
	case o.skip != "":
		r.skipped[key] = o.skip
		r.totals.Skipped[o.skip]++
		r.stats.Skipped[o.skip]++
	case !o.record.IsZero():
		f := o.file
		if f == nil {
			if f, err = r.decodeRecord(o.record, p); err != nil {
				return err
			}
			r.stats.Reused++
		} else {
			r.stats.Extracted++
			r.sinceCk++
			r.sinceCkSize += int64(len(o.data))
			countFormat(&r.stats, f, o.parse)
			r.keepFresh(o.record, f)
		}
		addRecord(&r.totals, f)
		r.moduleAdd(p, f, 1)
		r.changed[p] = true
		r.abstracts[p] = f.Abstract
		if err := r.editor.Set(recPath, gitstore.ModeRegular, o.record); err != nil {
			return err
		}
		r.markDone(p, o.it.blob)
	}
	return nil
}

// keepFresh keeps f, the record just written as h, for the index update
// after the run, within freshMax and freshBytes (see Result.Fresh).
func (r *run) keepFresh(h gitstore.Hash, f *memory.File) {
	if r.freshOff {
		return
	}
	n := 0
	for i := range f.Sections {
		n += len(f.Sections[i].Content)
	}
	if len(r.fresh) >= freshMax || r.freshSize+n > freshBytes {
		// A large run: its index build reads every record anyway, and
		// holding some would only add to its peak.
		r.fresh, r.freshOff = nil, true
		return
	}
	d, ok := memory.AsDecoded(f)
	if !ok {
		return
	}
	if r.fresh == nil {
		r.fresh = map[gitstore.Hash]*memory.File{}
	}
	r.fresh[h] = d
	r.freshSize += n
}

func (r *run) markDone(p string, blob gitstore.Hash) {
	if r.opt.CheckpointEvery > 0 {
		r.done = append(r.done, p+"\x00"+blob.String())
	}
}

func (r *run) decodeRecord(h gitstore.Hash, p string) (*memory.File, error) {
	f, err := memref.DecodeRecord(r.repo, h, p)
	if err != nil {
		return nil, fmt.Errorf("%w; run `git konteks extract --mode rebuild`", err)
	}
	return f, nil
}

func ensureMaps(t *manifest.Totals) {
	for _, m := range []*map[string]int{&t.Skipped, &t.SectionsByKind, &t.Parsers, &t.SectionsByParser, &t.Fallbacks} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
	if t.Languages == nil {
		t.Languages = map[string]int64{}
	}
}

func cloneTotals(t manifest.Totals) manifest.Totals {
	c := t
	cp := func(m map[string]int) map[string]int {
		out := make(map[string]int, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	c.Skipped, c.SectionsByKind, c.Parsers, c.Fallbacks = cp(t.Skipped), cp(t.SectionsByKind), cp(t.Parsers), cp(t.Fallbacks)
	c.SectionsByParser = cp(t.SectionsByParser)
	c.Languages = make(map[string]int64, len(t.Languages))
	for k, v := range t.Languages {
		c.Languages[k] = v
	}
	return c
}

func bump(m map[string]int, k string, d int) {
	if k == "" {
		return
	}
	m[k] += d
	if m[k] <= 0 {
		delete(m, k)
	}
}

func addRecord(t *manifest.Totals, f *memory.File) { recordDelta(t, f, 1) }
func subRecord(t *manifest.Totals, f *memory.File) { recordDelta(t, f, -1) }
func recordDelta(t *manifest.Totals, f *memory.File, d int) {
	t.Included += d
	t.Bytes += int64(d) * f.Size
	if lang := f.Language; lang != "" {
		t.Languages[lang] += int64(d) * f.Size
		if t.Languages[lang] <= 0 {
			delete(t.Languages, lang)
		}
	}
	t.Sections += d * len(f.Sections)
	if hasWarning(f, RedactedPrefix) {
		t.Redacted += d
	}
	if hasWarning(f, trimmedPrefix) {
		t.Trimmed += d
	}
	bump(t.Parsers, f.Parser, d)
	if f.Fallback != "" {
		bump(t.Fallbacks, f.Fallback, d)
	}
	for _, s := range f.Sections {
		bump(t.SectionsByKind, s.Kind, d)
		bump(t.SectionsByParser, s.Parser, d)
	}
}

// begin tells Progress that a stage starts, so that a terminal shows
// every stage that takes a while, and returns its start time.
func (r *run) begin(stage string) time.Time {
	r.progress(stage, 0, 0)
	return time.Now()
}

func (r *run) progress(stage string, done, total int) {
	if r.opt.Progress != nil {
		r.readMu.Lock() // workers count bytes read while stages report
		read := r.stats.BytesRead
		r.readMu.Unlock()
		r.opt.Progress(Progress{Stage: stage, Done: done, Total: total, Bytes: read})
	}
}
