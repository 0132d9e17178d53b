// Package index is the local search cache over memory: a BM25 index of
// every section's lexical text, name and path, a BM25 index of whole
// files (both the index's own segments, segs.go), a table of sections
// (docs.bin) and a table of their quantized vectors (vectors.bin), built
// from the memory ref and never pushed.
//
// It lives in $GIT_COMMON_DIR/konteks/index/ as generations: directories
// each reflecting one memory commit, and a "current" file naming the one
// to read. A generation is never modified once current: when refs/konteks
// moves, the next reader builds a new generation from the memory diff
// (hard-linking the indexes' immutable segments, so an update costs what
// changed) and switches "current" to it with a rename. Readers therefore
// never wait for an update or an extraction, and never see a half-written
// index; a missing or damaged generation is rebuilt.
package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Index is an open generation.
type Index struct {
	Memory gitstore.Hash // memory commit the index reflects
	Tree   gitstore.Hash // and its tree
	// Stale is set when the index lags the memory it was asked for
	// because another process is updating it right now.
	Stale bool
	// How says what Open did: "current" (up to date already), "update"
	// (from the memory diff), "build" (from scratch), "stale".
	How string
	// Took is the time Open spent updating or building.
	Took time.Duration

	dir   string
	meta  meta
	files int       // number of files (whole-file documents)
	sx    *segIndex // sections (see segs.go)
	fx    *segIndex // whole files (see files.go)
	docs  *docTable
	vecs  *vecTable // the base's vectors
	ovecs *vecTable // the overlay's, nil without one (see layers.go)

	layersOnce sync.Once
	layers     []vecLayer
	scratch    sync.Pool // Nearest's shortlist buffers between searches

	langOnce sync.Once
	langs    []string
}

// Options control Open.
type Options struct {
	// Model is the embedding model whose stored vectors the index loads
	// ("" for none).
	Model string
	// Rebuild builds a new generation from scratch.
	Rebuild bool
	// Building, when set, is called before a generation is built from
	// scratch (the first query after a clone, or after a large change:
	// seconds on a large tree, not milliseconds), with the number of
	// records to index, so a caller can tell its user why it waits.
	Building func(records int)
	// Progress, when set, is called as records are indexed by a build
	// or an update (done of total), from one goroutine at a time.
	Progress func(done, total int)
	// Budget, when set, is charged for every record the build or update
	// decodes (memref.Budget.Charge), and a record that does not decode
	// or does not fit fails it with memref.ErrCorrupt: the index of a
	// peer's memory, built before that memory is adopted, is the check
	// that its records decode (share.Indexer). Records the generation it
	// updates already holds were decoded when it was made.
	Budget *memref.Budget
	// Fresh holds records this process has just written, by blob, as
	// memory.AsDecoded gives them: a build or update indexes them without
	// reading them back from git and decoding them (a one-file
	// extraction's own record). A blob not in it is read. Ignored with
	// Budget set: a peer's records are always read.
	Fresh map[gitstore.Hash]*memory.File
}

// Dir is the index's directory under the state dir.
func Dir(repo *gitstore.Repo) (string, error) {
	return repo.StateSubdir("index")
}

const currentFile = "current"

// Open opens the index for the memory commit mem, bringing it up to date
// first when it reflects another commit (or another model). When another
// process is updating the index, Open does not wait: it opens the current
// generation as it is and sets Stale. Only when there is no usable
// generation at all does it wait for the updater.
func Open(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, opt Options) (*Index, error) {
	return openFor(ctx, repo, mem, opt, false, true)
}

// Update brings the index up to date with the memory commit mem and
// returns it open. Unlike Open it waits for another process updating the
// index, then updates from where that one left it: it is for the commands
// that move refs/konteks (extract, a merge of fetched memory), so that
// memory is searchable when they return and no reader builds it later.
func Update(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, opt Options) (*Index, error) {
	return openFor(ctx, repo, mem, opt, true, true)
}

// Refresh is Update for a command that moves refs/konteks and does not
// search (extract, fetch, sync, init): it brings the index up to date
// and says how ("current", "update" or "build"), without opening the new
// generation for reading, which a one-file update would otherwise spend a
// tenth of its index time on.
func Refresh(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, opt Options) (string, error) {
	ix, err := openFor(ctx, repo, mem, opt, true, false)
	if err != nil {
		return "", err
	}
	ix.Close()
	return ix.How, nil
}

// openFor is Open, or with wait Update; without open, an update's or a
// build's new generation is not opened (the Index returned holds only
// what Refresh reports).
func openFor(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory, opt Options, wait, open bool) (*Index, error) {
	if mem == nil {
		return nil, errors.New("no memory to index: run `git konteks extract`")
	}
	dir, err := Dir(repo)
	if err != nil {
		return nil, err
	}
	var cur *Index // the current generation, open
	if !opt.Rebuild {
		if ix, err := openCurrent(dir, open); err == nil {
			if ix.serves(repo, mem, opt.Model) {
				ix.How = "current"
				return ix, nil
			}
			if !wait {
				lock, _, lerr := repo.TryLock("index")
				if errors.Is(lerr, gitstore.ErrLocked) {
					ix.Stale, ix.How = true, "stale"
					return ix, nil
				}
				if lerr != nil {
					ix.Close()
					return nil, lerr
				}
				defer lock.Unlock()
				return refresh(ctx, repo, dir, mem, opt, stillCurrent(dir, ix), open)
			}
			cur = ix
		}
	}
	lock, err := repo.LockWait("index", 0, nil)
	if err != nil {
		cur.Close()
		return nil, err
	}
	defer lock.Unlock()
	return refresh(ctx, repo, dir, mem, opt, stillCurrent(dir, cur), open)
}

// stillCurrent returns ix, a generation opened before the index lock was
// taken, when "current" still names it: an update then starts from it
// without opening it again. When another process made a newer generation
// current meanwhile, ix is closed and nil returned.
func stillCurrent(dir string, ix *Index) *Index {
	if ix == nil {
		return nil
	}
	if gen, err := readCurrent(dir); err != nil || gen != filepath.Base(ix.dir) {
		ix.Close()
		return nil
	}
	return ix
}

// fits reports whether the generation serves mem with model: it reflects
// mem and was built for model. A generation built for another model (or
// for none, by a lexical-only reader) never serves a query of model: its
// vectors are another model's or missing, and serving it would make
// recall lexical-only in silence. A reader that wants no vectors (model
// "") is served by any generation of mem.
func (ix *Index) fits(mem *memref.Memory, model string) bool {
	return ix.meta.Memory == mem.Commit.String() && ix.meta.Format == FormatVersion &&
		(ix.meta.Model == model || model == "")
}

// serves reports whether the generation answers for mem with model: it
// fits mem, or mem's records and stored vectors are exactly those the
// generation was built from (a memory commit that only recorded history,
// durable memories or a merge that kept the records). The index is a
// function of those two trees, so a new generation would be identical: the
// generation then describes mem and says so, and nothing is rebuilt.
func (ix *Index) serves(repo *gitstore.Repo, mem *memref.Memory, model string) bool {
	if ix.fits(mem, model) {
		return true
	}
	if ix.meta.Format != FormatVersion || (ix.meta.Model != model && model != "") || ix.meta.Content == "" {
		return false
	}
	if contentKey(repo, mem.Tree, ix.meta.Model) != ix.meta.Content {
		return false
	}
	ix.Memory, ix.Tree = mem.Commit, mem.Tree
	return true
}

// contentKey names what a generation is built from in a memory tree: the
// records' subtree and, for a model memory stores, its vectors' subtree
// ("" when it cannot be read: no generation then matches by content).
func contentKey(repo *gitstore.Repo, tree gitstore.Hash, model string) string {
	files, _, _, err := repo.Lookup(tree, memory.FilesDir)
	if err != nil {
		return ""
	}
	key := files.String()
	if embed.StoredInRef(model) {
		vecs, _, _, err := repo.Lookup(tree, embed.ModelPath(model))
		if err != nil {
			return ""
		}
		key += " " + vecs.String()
	}
	return key
}

// refresh runs with the index lock held: it updates the current
// generation from the memory diff, or builds a new one. cur is the
// current generation when the caller has it open (refresh then owns it),
// nil to open it here; without open the new generation is not opened.
func refresh(ctx context.Context, repo *gitstore.Repo, dir string, mem *memref.Memory, opt Options, cur *Index, open bool) (*Index, error) {
	t0 := time.Now()
	var old *Index
	if opt.Rebuild {
		cur.Close()
	} else {
		ix, err := cur, error(nil)
		if ix == nil {
			ix, err = openCurrent(dir, open)
		}
		if err == nil {
			if ix.serves(repo, mem, opt.Model) {
				ix.How = "current"
				return ix, nil // someone else just did it
			}
			old = ix
			if opt.Model == "" {
				// A reader without vectors updates the generation for
				// its model rather than building one without vectors
				// that the next reader with them would rebuild.
				opt.Model = old.meta.Model
			}
		}
	}
	gen := "g" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + mem.Commit.String()[:12]
	gdir := filepath.Join(dir, gen)
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return nil, err
	}
	how := "build"
	var err error
	if old != nil && old.meta.Format == FormatVersion && old.meta.Model == opt.Model && !vectorsFilled(repo, old, mem, opt.Model) {
		var changes []memref.Change
		changes, err = memref.DiffRecords(repo, gitstore.ParseHash(old.meta.Tree), mem.Tree)
		if err == nil && len(changes) <= maxUpdate {
			how = "update"
			_, err = update(ctx, repo, old, changes, mem, gdir, opt)
		}
		if err != nil || how != "update" {
			if ctx.Err() != nil || how == "update" && opt.Budget != nil {
				// Cancelled, or a failed update checking a peer's memory:
				// a record of theirs that does not decode would only be
				// read again, and whatever else failed (a damaged
				// generation of ours), the records the update decoded
				// were charged, so a build under the same budget would
				// charge them twice and refuse memory that fits it. The
				// caller checks their records another way.
				old.Close()
				os.RemoveAll(gdir)
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, err
			}
			// A failed update (damaged old generation, missing old tree)
			// falls back to a build.
			how = "build"
			os.RemoveAll(gdir)
			if err := os.MkdirAll(gdir, 0o755); err != nil {
				return nil, err
			}
		}
	}
	prev := ""
	if old != nil {
		prev = filepath.Base(old.dir)
		old.Close()
	}
	if how == "build" {
		if _, err := build(ctx, repo, mem, gdir, opt); err != nil {
			os.RemoveAll(gdir)
			return nil, err
		}
		// The build's garbage fills the heap up to the soft limit, and
		// the runtime keeps those pages until its scavenger gets to them:
		// the generation's tables are mapped and the history signals
		// built on top of them, which made a cold recall's peak RSS. One
		// collection returns them now (the Go tree: see
		// docs/performance.md).
		debug.FreeOSMemory()
	}
	if err := setCurrent(dir, gen); err != nil {
		os.RemoveAll(gdir)
		return nil, err
	}
	prune(dir, gen, prev)
	if !open {
		return &Index{Memory: mem.Commit, Tree: mem.Tree, How: how, Took: time.Since(t0), dir: gdir}, nil
	}
	ix, err := openGen(gdir, true)
	if err != nil {
		return nil, err
	}
	ix.How, ix.Took = how, time.Since(t0)
	return ix, nil
}

// vectorsFilled reports whether memory gained stored vectors of model for
// records that did not change since old's memory: after a run that could
// not embed everything (the provider was down; memory marked the model
// incomplete), or the first run with the model configured. An update
// reads the vectors of changed records only, so such a change needs a
// build.
func vectorsFilled(repo *gitstore.Repo, old *Index, mem *memref.Memory, model string) bool {
	if !embed.StoredInRef(model) {
		return false
	}
	oldTree := gitstore.ParseHash(old.meta.Tree)
	before, _, _, _ := repo.Lookup(oldTree, embed.ModelPath(model))
	after, _, _, _ := repo.Lookup(mem.Tree, embed.ModelPath(model))
	if before == after {
		return false
	}
	_, _, incomplete, _ := repo.Lookup(oldTree, embed.ModelPath(model)+"/"+embed.IncompleteName)
	return incomplete || old.meta.Vectors == 0
}

// setCurrent points "current" at gen, atomically.
func setCurrent(dir, gen string) error {
	tmp := filepath.Join(dir, currentFile+".tmp"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, []byte(gen+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, currentFile))
}

// prune removes generations other than the current one and the one just
// replaced (a reader may still be opening it). Files of an open generation
// survive removal on POSIX systems until closed.
func prune(dir, keep, prev string) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		n := e.Name()
		if e.IsDir() && strings.HasPrefix(n, "g") && n != keep && n != prev {
			os.RemoveAll(filepath.Join(dir, n))
		}
		if strings.HasPrefix(n, currentFile+".tmp") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
				os.Remove(filepath.Join(dir, n))
			}
		}
	}
}

// openCurrent opens the generation "current" names; without search, its
// tables only (see openGen).
func openCurrent(dir string, search bool) (*Index, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		gen, err := readCurrent(dir)
		if err != nil {
			return nil, err
		}
		ix, err := openGen(filepath.Join(dir, gen), search)
		if err == nil {
			return ix, nil
		}
		lastErr = err
		// The generation may have been replaced and pruned between
		// reading "current" and opening it: read "current" again.
	}
	return nil, lastErr
}

// readCurrent is the generation "current" names, checked to be a name
// inside dir.
func readCurrent(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, currentFile))
	if err != nil {
		return "", err
	}
	gen := strings.TrimSpace(string(b))
	if gen == "" || strings.ContainsAny(gen, `/\`) || gen == "." || gen == ".." {
		return "", fmt.Errorf("%w: bad current generation %q", errTable, gen)
	}
	return gen, nil
}

// openGen opens one generation directory. Without search it opens the
// tables and not the search indexes: a generation an update starts from,
// or one Refresh finds current, is never searched. (Their damage then
// shows when the update opens them, and it builds instead.)
func openGen(gdir string, search bool) (*Index, error) {
	ix := &Index{dir: gdir}
	mb, err := os.ReadFile(filepath.Join(gdir, "meta.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mb, &ix.meta); err != nil {
		return nil, fmt.Errorf("%w: meta: %v", errTable, err)
	}
	if ix.meta.Format != FormatVersion {
		return nil, fmt.Errorf("%w: format %d", errTable, ix.meta.Format)
	}
	ix.Memory, ix.Tree = gitstore.ParseHash(ix.meta.Memory), gitstore.ParseHash(ix.meta.Tree)
	buf, unmap, err := mapFile(filepath.Join(gdir, "docs.bin"))
	if err != nil {
		return nil, err
	}
	if ix.docs, err = parseDocs(buf); err != nil {
		unmap()
		return nil, err
	}
	ix.docs.unmap = unmap
	ix.files = ix.meta.Files
	vbuf, vunmap, err := mapFile(filepath.Join(gdir, "vectors.bin"))
	if err != nil {
		ix.Close()
		return nil, err
	}
	if ix.vecs, err = parseVecs(vbuf, ix.docs.n); err != nil {
		vunmap()
		ix.Close()
		return nil, err
	}
	ix.vecs.unmap = vunmap
	if err := openLayers(gdir, ix); err != nil {
		ix.Close()
		return nil, err
	}
	// A layered generation's order missing (damaged, or pruned while
	// this open read it), or one naming other docs than it was written
	// with, is never read as docs.
	if (ix.meta.Layers && ix.docs.order == nil) || ix.meta.Docs != ix.docs.n {
		n := ix.docs.n
		ix.Close()
		return nil, fmt.Errorf("%w: %d docs, meta says %d (layers %v)", errTable, n, ix.meta.Docs, ix.meta.Layers)
	}
	if !search {
		return ix, nil
	}
	if ix.sx, err = openSegs(filepath.Join(gdir, sectionsDir), sectionFields); err != nil {
		ix.Close()
		return nil, err
	}
	if ix.fx, err = openSegs(filepath.Join(gdir, filesDir), 1); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// Close releases the generation.
func (ix *Index) Close() error {
	if ix == nil {
		return nil
	}
	err := ix.sx.close()
	if ferr := ix.fx.close(); err == nil {
		err = ferr
	}
	ix.sx, ix.fx = nil, nil
	ix.docs.close()
	ix.vecs.close()
	ix.ovecs.close()
	ix.docs, ix.vecs, ix.ovecs = nil, nil, nil
	return err
}

// Len is the number of indexed sections.
func (ix *Index) Len() int { return ix.docs.n }

// Doc returns indexed section i (0 <= i < Len()). Its Topics are shared
// with other callers: read them, never write them.
func (ix *Index) Doc(i int) Doc { return ix.docs.cachedDoc(i) }

// StartLine is Doc(i).StartLine, read without decoding the section (a
// file's first section is found by reading every section's line).
func (ix *Index) StartLine(i int) int { return ix.docs.startLine(i) }

// Find returns the ordinal of the section with this id, or -1.
func (ix *Index) Find(id string) int { return ix.docs.find(id) }

// PathDocs returns the ordinals of a path's sections.
func (ix *Index) PathDocs(path string) []int {
	lo, hi := ix.docs.pathRange(path)
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// Model is the embedding model the generation was built for ("" when
// none); Vectors says how many of its vectors it holds (none when memory
// stores none of that model).
func (ix *Index) Model() string { return ix.meta.Model }

// Vectors is the number of stored vectors loaded.
func (ix *Index) Vectors() int { return ix.layerRows() }

// Dim is the dimension of the loaded vectors (0 without any).
func (ix *Index) Dim() int {
	if ls := ix.vecLayers(); len(ls) > 0 {
		return ls[0].t.dim
	}
	return 0
}

// Languages names the languages of the indexed sections, most sections
// first (ties by name). The counts are kept in the generation's meta, so
// this costs nothing per call; a generation written before they were is
// counted once per open.
func (ix *Index) Languages() []string {
	ix.langOnce.Do(func() {
		counts := ix.meta.Languages
		if counts == nil {
			counts = map[string]int{}
			for i := 0; i < ix.docs.n; i++ {
				if l := ix.docs.language(i); l != "" {
					counts[l]++
				}
			}
		}
		for l, c := range counts {
			if c > 0 {
				ix.langs = append(ix.langs, l)
			}
		}
		sort.Slice(ix.langs, func(i, j int) bool {
			a, b := ix.langs[i], ix.langs[j]
			if counts[a] != counts[b] {
				return counts[a] > counts[b]
			}
			return a < b
		})
	})
	return ix.langs
}
