package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/jsondec"
	"github.com/konteks/git-konteks/memory"
)

// Paths in the memory tree.
const (
	Dir         = "history"
	StatePath   = Dir + "/state"    // plain JSON: State
	TailPath    = Dir + "/tail"     // zstd JSON: the most recent commits, not yet in a segment
	SegmentsDir = Dir + "/segments" // zstd JSON: segments/<seq>, immutable once written
	BackDir     = Dir + "/back"     // zstd JSON: back/<n>, older history recorded after the first walk
)

// Storage limits. The tail is rewritten by every run that records a
// commit, so it stays small; once it holds TailMax commits it becomes
// segments of at most SegmentMax commits, which are never rewritten.
const (
	TailMax       = 256
	SegmentMax    = 4096
	maxStateSize  = 4 << 20
	maxSegments   = 1 << 14
	maxTips       = 64
	DefaultMax    = 200000
	maxPerSegment = SegmentMax * 2 // accepted when reading (a peer may choose differently)
)

// tailMax and segmentMax are TailMax and SegmentMax; tests lower them.
var tailMax, segmentMax = TailMax, SegmentMax

// ErrCorrupt marks history that cannot be read; a rebuild rewalks it.
var ErrCorrupt = errors.New("history memory is corrupt (run `git konteks extract --mode rebuild` to rewalk it)")

// Config bounds what is recorded (git config konteks.history.*).
type Config struct {
	Enabled bool `json:"-"`
	// Depth is how many commits back from the source commit a walk goes
	// (0: all).
	Depth int `json:"depth,omitempty"`
	// Max caps the commits kept: past it, the oldest segments are dropped.
	Max int `json:"max"`
	// Recent is how many commits a first walk records before it leaves
	// the rest to Backfill (0: RecentCommits, or all of the last
	// RecentAge, whichever is more). It does not change what is recorded
	// in the end, only when.
	Recent int `json:"-"`
}

// ReadConfig reads konteks.history.enabled, .depth, .max and .recent.
func ReadConfig(repo *gitstore.Repo) (Config, error) {
	cfg := Config{Enabled: true, Max: DefaultMax}
	vals := repo.ConfigValues("konteks.history.")
	if v, ok := vals["konteks.history.enabled"]; ok {
		on, ok := gitstore.ParseBool(v)
		if !ok {
			return cfg, fmt.Errorf("konteks.history.enabled: want true or false, got %q", v)
		}
		cfg.Enabled = on
	}
	for _, k := range []struct {
		key string
		dst *int
	}{{"konteks.history.depth", &cfg.Depth}, {"konteks.history.max", &cfg.Max}, {"konteks.history.recent", &cfg.Recent}} {
		if v, ok := vals[k.key]; ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return cfg, fmt.Errorf("%s: want a number of commits, got %q", k.key, v)
			}
			*k.dst = n
		}
	}
	if cfg.Max == 0 {
		cfg.Max = DefaultMax
	}
	return cfg, nil
}

// State is history/state: what has been recorded.
type State struct {
	Version int `json:"version"`
	// Tips are source commits whose history is recorded (up to the
	// bounds): the next walk excludes them.
	Tips     []string  `json:"tips"`
	Commits  int       `json:"commits"` // commits recorded (segments + tail + back)
	Segments []Segment `json:"segments,omitempty"`
	Tail     int       `json:"tail"`     // commits in the tail
	NextSeq  int       `json:"next_seq"` // sequence number of the next segment
	Dropped  int       `json:"dropped,omitempty"`
	Config   Config    `json:"config"`
	// Shallow identifies the shallow boundary the history was walked
	// with ("" for a complete clone): when a fetch deepens the clone, the
	// next run walks anew and records what the deeper history holds.
	Shallow string `json:"shallow,omitempty"`
	// Back holds the older part of the first walk, recorded after it in
	// segments of SegmentMax commits (back/<n> is the n-th of them, in
	// walk order); Pending says where the walk continues.
	Back    []Segment `json:"back,omitempty"`
	Pending *BackWalk `json:"pending,omitempty"`
	// Oldest is the author date of the oldest commit recorded.
	Oldest int64 `json:"oldest,omitempty"`
}

// BackWalk is the part of the first walk left for later.
type BackWalk struct {
	From  string `json:"from"`  // the first walk's source commit
	Next  int    `json:"next"`  // position in that walk of the next commit to record
	Start int    `json:"start"` // position where the back segments begin
	Limit int    `json:"limit"` // position where the walk stops (its bound)
}

// Segment describes one segment.
type Segment struct {
	Seq     int `json:"seq"`
	Commits int `json:"commits"`
}

// SegmentPath is the memory tree path of segment seq.
func SegmentPath(seq int) string { return fmt.Sprintf("%s/%06d", SegmentsDir, seq) }

// BackPath is the memory tree path of back segment n.
func BackPath(n int) string { return fmt.Sprintf("%s/%06d", BackDir, n) }

// Result is what Update or Backfill did.
type Result struct {
	New      int // commits recorded by this run
	Total    int // commits recorded in all
	Segments int
	Written  int  // objects written (segments, tail, state)
	Enabled  bool //
	// Pending reports that older history is still to be recorded
	// (Backfill continues it); Oldest is the author date of the oldest
	// commit recorded.
	Pending bool
	Oldest  int64
}

// The first walk records recent history only: the newest RecentCommits
// commits, and beyond them those at most RecentAge older than the source
// commit. The rest is recorded by Backfill, BackChunk commits at a time
// (a multiple of SegmentMax, so that segment boundaries do not depend on
// where a run was interrupted).
const (
	RecentCommits = 10000
	RecentAge     = 2 * 365 * 24 * 3600
	BackChunk     = 4 * SegmentMax
)

// recentCommits, recentAge and backChunk are the constants; tests lower them.
var recentCommits, recentAge, backChunk = RecentCommits, int64(RecentAge), BackChunk

// Progress is told how many commits a walk has read of how many (total
// 0 while unknown).
type Progress func(done, total int)

// errCut stops a walk at the end of recent history.
var errCut = errors.New("recent history recorded")

// Update brings the history in the tree being edited up to source: it
// walks the commits reachable from source that no recorded tip reaches,
// appends them to the tail, turns a full tail into segments, and drops the
// oldest segments past cfg.Max. Only the tail, the state and new segments
// are written; a run after one commit writes two small blobs. A first walk
// records recent history only and leaves the rest to Backfill.
func Update(ctx context.Context, repo *gitstore.Repo, ed *gitstore.TreeEditor, w *gitstore.Writer, source gitstore.Hash, cfg Config, prog Progress) (*Result, error) {
	if !cfg.Enabled || !repo.HasCLI() {
		// Without the git command a walk would take go-git's per-commit
		// diffs: far too slow; history is left out.
		if err := ed.Delete(Dir); err != nil {
			return nil, err
		}
		return &Result{}, nil
	}
	st, err := readStateFromEditor(repo, ed)
	if err != nil {
		return nil, err
	}
	shallow := shallowKey(repo)
	if st == nil || st.Version != Version || st.Config.Depth != cfg.Depth || st.Config.Max != cfg.Max || st.Shallow != shallow {
		// Nothing yet, an older format, other bounds, or a clone deepened
		// or made shallow since: walk anew.
		if err := ed.Delete(Dir); err != nil {
			return nil, err
		}
		st = &State{Version: Version, Config: cfg, Shallow: shallow}
	}
	res := st.result()
	src := source.String()
	for _, t := range st.Tips {
		if t == src {
			return res, nil
		}
	}
	first := st.Commits == 0 && len(st.Tips) == 0
	opt := gitstore.LogOptions{Include: []gitstore.Hash{source}, MaxCount: cfg.limit()}
	for _, t := range st.Tips {
		opt.Exclude = append(opt.Exclude, gitstore.ParseHash(t))
	}
	recent, age := recentCommits, recentAge
	if cfg.Recent > 0 {
		recent, age = cfg.Recent, 0
	}
	var total atomic.Int64
	if prog != nil {
		prog(0, 0)
		// The total, counted by git while the walk runs (a first walk
		// stops at recent history: at least recentCommits of it).
		go func() {
			n, err := repo.CountLog(ctx, opt)
			if err == nil && first {
				n = min(n, recent)
			}
			total.Store(int64(n))
		}()
	}
	parentOfNew := map[string]bool{}
	var cutoff int64
	n := 0
	fresh, err := walk(ctx, repo, opt, func(c *gitstore.LogCommit) error {
		if first {
			if n == 0 {
				cutoff = c.AuthorTime - age
			} else if n >= recent && (age == 0 || c.AuthorTime < cutoff) {
				return errCut
			}
		}
		for _, p := range c.Parents {
			parentOfNew[p.String()] = true
		}
		n++
		if prog != nil && n%512 == 0 {
			if t := int(total.Load()); t > 0 {
				prog(n, max(t, n))
			} else {
				prog(n, 0)
			}
		}
		return nil
	})
	cut := errors.Is(err, errCut)
	if err != nil && !cut {
		return nil, err
	}
	if prog != nil {
		prog(len(fresh), len(fresh))
	}
	if len(fresh) == 0 {
		// source is in recorded history already (an older commit).
		return res, nil
	}
	if cut {
		st.Pending = &BackWalk{From: src, Next: len(fresh), Start: len(fresh), Limit: opt.MaxCount}
	}
	// Oldest first, so that segments are in recording order and the
	// oldest can be dropped whole.
	slices.Reverse(fresh)
	var tail []Commit
	if st.Tail > 0 {
		if tail, err = readTailFromEditor(repo, ed, st.Tail); err != nil {
			return nil, err
		}
	}
	tail = append(tail, fresh...)
	// Cut the commits into segments and the tail, then encode every piece
	// at once (JSON and zstd are most of this stage's own time).
	var pieces [][]Commit
	if len(tail) >= tailMax {
		for len(tail) > 0 {
			n := min(len(tail), segmentMax)
			// Keep the last piece of a long first walk whole-sized: the
			// remainder below TailMax stays in the tail.
			if n < tailMax && len(pieces)+len(st.Segments) > 0 && n == len(tail) {
				break
			}
			pieces = append(pieces, tail[:n])
			tail = tail[n:]
		}
	}
	if len(tail) > 0 {
		pieces = append(pieces, tail)
	}
	blobs, err := encodePieces(pieces)
	if err != nil {
		return nil, err
	}
	for i, b := range blobs {
		if len(tail) > 0 && i == len(blobs)-1 {
			break // the tail, below
		}
		if err := setBlob(ed, w, SegmentPath(st.NextSeq), b); err != nil {
			return nil, err
		}
		res.Written++
		st.Segments = append(st.Segments, Segment{Seq: st.NextSeq, Commits: len(pieces[i])})
		st.NextSeq++
	}
	st.Tail = len(tail)
	if len(tail) == 0 {
		if err := ed.Delete(TailPath); err != nil {
			return nil, err
		}
	} else {
		if err := setBlob(ed, w, TailPath, blobs[len(blobs)-1]); err != nil {
			return nil, err
		}
		res.Written++
	}
	st.Commits += len(fresh)
	st.noteOldest(fresh)
	if err := st.drop(ed, cfg); err != nil {
		return nil, err
	}
	// Tips: the source joins; a tip reached by this walk is now covered
	// by the source and leaves.
	var tips []string
	for _, t := range st.Tips {
		if !parentOfNew[t] {
			tips = append(tips, t)
		}
	}
	tips = append(tips, src)
	if len(tips) > maxTips {
		tips = tips[len(tips)-maxTips:]
	}
	st.Tips = tips
	if err := writeState(ed, w, st); err != nil {
		return nil, err
	}
	res.Written++
	written := res.Written
	res = st.result()
	res.New, res.Written = len(fresh), written
	return res, nil
}

// Backfill records the next BackChunk commits of the older history the
// first walk left for later (State.Pending), as whole back segments. Its
// result is the same however often it is interrupted: each call starts at
// a segment boundary of one fixed walk, and an interrupted call writes
// nothing the memory ref names.
func Backfill(ctx context.Context, repo *gitstore.Repo, ed *gitstore.TreeEditor, w *gitstore.Writer, cfg Config, prog Progress) (*Result, error) {
	st, err := readStateFromEditor(repo, ed)
	if err != nil {
		return nil, err
	}
	if st == nil || st.Version != Version || st.Pending == nil || !cfg.Enabled ||
		st.Config.Depth != cfg.Depth || st.Config.Max != cfg.Max || st.Shallow != shallowKey(repo) {
		// Nothing to continue, or the next Update walks anew.
		if st == nil {
			return &Result{}, nil
		}
		return st.result(), nil
	}
	pd := st.Pending
	n := min(backChunk, pd.Limit-pd.Next)
	if pd.Limit <= 0 {
		n = backChunk
	}
	if prog != nil {
		prog(0, n)
	}
	seen := 0
	bs := takeBackStream(repo, pd)
	got, err := walkEach(ctx, repo, func(fn func(*gitstore.LogCommit) error) error { return bs.take(ctx, n, fn) }, func(*gitstore.LogCommit) error {
		if seen++; prog != nil && seen%512 == 0 {
			prog(seen, n)
		}
		return nil
	})
	if err != nil || len(got) < n {
		bs.close() // failed, or the walk is over
		if err != nil {
			return nil, err
		}
	} else {
		putBackStream(bs)
	}
	res := &Result{Enabled: true, New: len(got)}
	for off := 0; off < len(got); off += segmentMax {
		seg := slices.Clone(got[off:min(off+segmentMax, len(got))])
		slices.Reverse(seg) // oldest first, like every segment
		b, err := encodeCommits(seg)
		if err != nil {
			return nil, err
		}
		idx := (pd.Next + off - pd.Start) / segmentMax
		if err := setBlob(ed, w, BackPath(idx), b); err != nil {
			return nil, err
		}
		res.Written++
		st.Back = append(st.Back, Segment{Seq: idx, Commits: len(seg)})
	}
	st.Commits += len(got)
	st.noteOldest(got)
	pd.Next += len(got)
	if len(got) < n || (pd.Limit > 0 && pd.Next >= pd.Limit) {
		st.Pending = nil // the walk reached its end or its bound
	}
	if err := st.drop(ed, cfg); err != nil {
		return nil, err
	}
	if err := writeState(ed, w, st); err != nil {
		return nil, err
	}
	written := res.Written + 1
	res = st.result()
	res.New, res.Written = len(got), written
	return res, nil
}

// limit is how many commits one walk lists at most.
func (cfg Config) limit() int {
	n := cfg.Max
	if cfg.Depth > 0 && cfg.Depth < n {
		n = cfg.Depth
	}
	return n
}

func (st *State) result() *Result {
	return &Result{Enabled: true, Total: st.Commits, Segments: len(st.Segments) + len(st.Back), Pending: st.Pending != nil, Oldest: st.Oldest}
}

func (st *State) noteOldest(cs []Commit) {
	for i := range cs {
		if t := cs[i].Time; t > 0 && (st.Oldest == 0 || t < st.Oldest) {
			st.Oldest = t
		}
	}
}

// drop removes the oldest segments past cfg.Max: back segments first
// (the oldest history), then the first segments. A pending backfill
// ends: it would only record more of what is dropped.
func (st *State) drop(ed *gitstore.TreeEditor, cfg Config) error {
	for st.Commits > cfg.Max && len(st.Segments)+len(st.Back) > 0 {
		var s Segment
		var p string
		if k := len(st.Back); k > 0 {
			s, p = st.Back[k-1], BackPath(st.Back[k-1].Seq)
			st.Back = st.Back[:k-1]
		} else {
			s, p = st.Segments[0], SegmentPath(st.Segments[0].Seq)
			st.Segments = st.Segments[1:]
		}
		if err := ed.Delete(p); err != nil {
			return err
		}
		st.Commits -= s.Commits
		st.Dropped += s.Commits
		st.Pending = nil
	}
	return nil
}

func writeState(ed *gitstore.TreeEditor, w *gitstore.Writer, st *State) error {
	sb, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return setBlob(ed, w, StatePath, append(sb, '\n'))
}

// shallowKey identifies the shallow boundary of the repository ("" when
// it is not a shallow clone).
func shallowKey(repo *gitstore.Repo) string {
	hs := repo.ShallowCommits()
	if len(hs) == 0 {
		return ""
	}
	ss := make([]string, len(hs))
	for i, h := range hs {
		ss[i] = h.String()
	}
	sort.Strings(ss)
	sum := sha256.Sum256([]byte(strings.Join(ss, "\n")))
	return hex.EncodeToString(sum[:16])
}

func setBlob(ed *gitstore.TreeEditor, w *gitstore.Writer, p string, b []byte) error {
	h, err := w.Blob(b)
	if err != nil {
		return err
	}
	return ed.Set(p, gitstore.ModeRegular, h)
}

// encodePieces encodes each piece (encodeCommits), in parallel.
func encodePieces(pieces [][]Commit) ([][]byte, error) {
	out := make([][]byte, len(pieces))
	errs := make([]error, len(pieces))
	var wg sync.WaitGroup
	for i, p := range pieces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = encodeCommits(p)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// encodeCommit is the JSON line of c, as encodeCommits writes it.
func encodeCommit(c *Commit) ([]byte, error) {
	return appendCommit(make([]byte, 0, 256+len(c.Subject)+len(c.Body)+64*len(c.Changes)), c), nil
}

func encodeCommits(cs []Commit) ([]byte, error) {
	size := 0
	for i := range cs {
		size += len(cs[i].enc)
		if cs[i].enc == nil {
			size += 512
		}
	}
	buf := make([]byte, 0, size)
	for i := range cs {
		if cs[i].enc != nil {
			buf = append(buf, cs[i].enc...)
		} else {
			buf = appendCommit(buf, &cs[i])
		}
	}
	return memory.Compress(buf), nil
}

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// ReadState returns the history state of a memory tree (nil when it has
// no history): what is recorded, up to which tips, without decoding a
// single commit record.
func ReadState(repo *gitstore.Repo, memTree gitstore.Hash) (*State, error) {
	h, isTree, ok, err := repo.Lookup(memTree, StatePath)
	if err != nil || !ok {
		return nil, err
	}
	if isTree {
		return nil, corrupt("%s is a directory", StatePath)
	}
	return readState(repo, h)
}

func readStateFromEditor(repo *gitstore.Repo, ed *gitstore.TreeEditor) (*State, error) {
	h, _, ok, err := ed.Get(StatePath)
	if err != nil || !ok {
		return nil, err
	}
	return readState(repo, h)
}

func readState(repo *gitstore.Repo, h gitstore.Hash) (*State, error) {
	b, err := repo.BlobBytes(h, maxStateSize)
	if err != nil {
		return nil, corrupt("%s: %v", StatePath, err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, corrupt("%s: %v", StatePath, err)
	}
	if st.Version != Version {
		return &st, nil // another format: rewalked by Update, refused by Load
	}
	if st.Commits < 0 || st.Tail < 0 || st.Tail > maxPerSegment || len(st.Segments) > maxSegments || len(st.Tips) > maxTips*2 {
		return nil, corrupt("%s: counts out of range", StatePath)
	}
	n := st.Tail
	last := -1
	for _, s := range st.Segments {
		if s.Seq <= last || s.Seq >= st.NextSeq || s.Commits <= 0 || s.Commits > maxPerSegment {
			return nil, corrupt("%s: bad segment %d", StatePath, s.Seq)
		}
		last = s.Seq
		n += s.Commits
	}
	if len(st.Back) > maxSegments {
		return nil, corrupt("%s: %d back segments", StatePath, len(st.Back))
	}
	for i, s := range st.Back {
		if s.Seq != i || s.Commits <= 0 || s.Commits > maxPerSegment {
			return nil, corrupt("%s: bad back segment %d", StatePath, s.Seq)
		}
		n += s.Commits
	}
	if pd := st.Pending; pd != nil && (!validHash(pd.From) || pd.Next < pd.Start || pd.Start < 0 || pd.Limit < 0) {
		return nil, corrupt("%s: bad pending walk", StatePath)
	}
	if n != st.Commits {
		return nil, corrupt("%s: %d commits counted, %d in segments and tail", StatePath, st.Commits, n)
	}
	for _, t := range st.Tips {
		if !validHash(t) {
			return nil, corrupt("%s: bad tip %q", StatePath, t)
		}
	}
	return &st, nil
}

func readTailFromEditor(repo *gitstore.Repo, ed *gitstore.TreeEditor, want int) ([]Commit, error) {
	h, _, ok, err := ed.Get(TailPath)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, corrupt("%s is missing", TailPath)
	}
	return readCommits(repo, h, TailPath, want)
}

// readCommits reads and validates one segment or the tail.
func readCommits(repo *gitstore.Repo, h gitstore.Hash, name string, want int) ([]Commit, error) {
	b, err := repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return nil, corrupt("%s: %v", name, err)
	}
	raw, err := memory.Decompress(b)
	if err != nil {
		return nil, corrupt("%s: %v", name, err)
	}
	return decodeCommits(raw, name, want)
}

// decodeCommits decodes and validates the JSON lines of a segment or the
// tail; they may come from a peer. It reads what encoding/json's Decoder
// reads, value for value (jsondec; FuzzDecodeCommitsLikeJSON), at a
// fraction of its cost: a cold recall decodes every recorded commit.
func decodeCommits(raw []byte, name string, want int) ([]Commit, error) {
	if want < 0 || want > maxPerSegment {
		return nil, corrupt("%s: %d commits expected", name, want)
	}
	p := &jsondec.Parser{Clone: true}
	if len(raw) > 0 {
		p.S = unsafe.String(&raw[0], len(raw))
	}
	out := make([]Commit, 0, want)
	for {
		p.WS()
		if p.I >= len(p.S) {
			break
		}
		if len(out) >= maxPerSegment {
			return nil, corrupt("%s: more than %d commits", name, maxPerSegment)
		}
		var c Commit
		parseCommit(p, &c)
		if p.Err != nil {
			return nil, corrupt("%s: %v", name, p.Err)
		}
		if err := c.validate(); err != nil {
			return nil, corrupt("%s: commit %d: %v", name, len(out), err)
		}
		out = append(out, c)
	}
	if len(out) != want {
		return nil, corrupt("%s: %d commits, the state says %d", name, len(out), want)
	}
	return out, nil
}

// The JSON keys of Commit and Change.
var (
	commitKeys = []string{"h", "p", "a", "e", "t", "s", "b", "c", "n", "f", "w"}
	changeKeys = []string{"p", "o", "k", "add", "del"}
)

func parseCommit(p *jsondec.Parser, c *Commit) {
	p.Fields("commit", commitKeys, func(k string) bool {
		switch k {
		case "h":
			p.Text(&c.Hash)
		case "p":
			jsondec.List(p, &c.Parents, p.Text)
		case "a":
			p.Text(&c.Author)
		case "e":
			p.Text(&c.Email)
		case "t":
			p.Integer64(&c.Time)
		case "s":
			p.Text(&c.Subject)
		case "b":
			p.Text(&c.Body)
		case "c":
			jsondec.List(p, &c.Changes, func(ch *Change) { parseChange(p, ch) })
		case "n":
			p.Integer(&c.Files)
		case "f":
			jsondec.List(p, &c.Flags, p.Text)
		case "w":
			p.Float64(&c.Weight)
		default:
			return false
		}
		return true
	})
}

func parseChange(p *jsondec.Parser, ch *Change) {
	p.Fields("change", changeKeys, func(k string) bool {
		switch k {
		case "p":
			p.Text(&ch.Path)
		case "o":
			p.Text(&ch.Old)
		case "k":
			p.Text(&ch.Kind)
		case "add":
			p.Integer(&ch.Add)
		case "del":
			p.Integer(&ch.Del)
		default:
			return false
		}
		return true
	})
}

func (c *Commit) validate() error {
	if !validHash(c.Hash) {
		return fmt.Errorf("bad hash %q", c.Hash)
	}
	if len(c.Parents) > 64 {
		return fmt.Errorf("%d parents", len(c.Parents))
	}
	for _, p := range c.Parents {
		if !validHash(p) {
			return fmt.Errorf("bad parent %q", p)
		}
	}
	if len(c.Subject) > MaxSubject || len(c.Body) > MaxBody || len(c.Author) > 200 || len(c.Email) > 200 {
		return errors.New("oversized field")
	}
	if len(c.Changes) > MaxChanges || c.Files < 0 || c.Weight < 0 || c.Weight > 1 {
		return errors.New("counts out of range")
	}
	for _, ch := range c.Changes {
		if !validPath(ch.Path) || (ch.Old != "" && !validPath(ch.Old)) {
			return fmt.Errorf("bad path %q", ch.Path)
		}
		switch ch.Kind {
		case "A", "M", "D", "R", "T", "C":
		default:
			return fmt.Errorf("bad change kind %q", ch.Kind)
		}
	}
	return nil
}

// History is the recorded history of a memory tree, oldest commit first.
type History struct {
	Key     gitstore.Hash // the history/ tree id: identifies this state
	State   State
	Commits []Commit

	once sync.Once
	ix   *msgIndex
	byH  map[string]int
	fileIDs
	changeIDs [][]int32 // per commit, per change: the file identity
}

var (
	cacheMu sync.Mutex
	cache   = map[gitstore.Hash]*History{}
	// Segments never change, so a new memory commit (one more tail) reuses
	// the decoded segments of the last one.
	segCache     = map[gitstore.Hash][]Commit{}
	segCacheSize int
)

const maxSegCache = 400000 // commits kept decoded

func cachedSegment(repo *gitstore.Repo, h gitstore.Hash, name string, want int) ([]Commit, error) {
	cacheMu.Lock()
	cs, ok := segCache[h]
	cacheMu.Unlock()
	if ok && len(cs) == want {
		return cs, nil
	}
	cs, err := readCommits(repo, h, name, want)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	if segCacheSize+len(cs) > maxSegCache {
		clear(segCache)
		segCacheSize = 0
	}
	segCache[h] = cs
	segCacheSize += len(cs)
	cacheMu.Unlock()
	return cs, nil
}

// dirOf is the id of a memory tree's history directory: zero when it has
// none.
func dirOf(repo *gitstore.Repo, memTree gitstore.Hash) (gitstore.Hash, error) {
	h, isTree, ok, err := repo.Lookup(memTree, Dir)
	if err != nil || !ok {
		return gitstore.Hash{}, err
	}
	if !isTree {
		return gitstore.Hash{}, corrupt("%s is not a directory", Dir)
	}
	return h, nil
}

// readPart reads, through read, the part p of a memory tree's history (a
// segment or the tail) that its state says is there with want commits.
func readPart(repo *gitstore.Repo, memTree gitstore.Hash, p string, want int, read func(*gitstore.Repo, gitstore.Hash, string, int) ([]Commit, error)) ([]Commit, error) {
	h, _, ok, err := repo.Lookup(memTree, p)
	if err != nil || !ok {
		return nil, corrupt("%s is missing", p)
	}
	return read(repo, h, p, want)
}

// eachPart calls fn with the commits of each part of a history, in
// recording order: the recent segments, then the older ones the
// background walk recorded, then the tail. Segments are read through
// read (cachedSegment keeps them for the next memory commit).
func eachPart(repo *gitstore.Repo, memTree gitstore.Hash, st *State, read func(*gitstore.Repo, gitstore.Hash, string, int) ([]Commit, error), fn func([]Commit) error) error {
	for _, part := range []struct {
		segs []Segment
		path func(int) string
	}{{st.Segments, SegmentPath}, {st.Back, BackPath}} {
		for _, s := range part.segs {
			cs, err := readPart(repo, memTree, part.path(s.Seq), s.Commits, read)
			if err != nil {
				return err
			}
			if err := fn(cs); err != nil {
				return err
			}
		}
	}
	if st.Tail > 0 {
		cs, err := readPart(repo, memTree, TailPath, st.Tail, readCommits)
		if err != nil {
			return err
		}
		return fn(cs)
	}
	return nil
}

// readLoadable reads the state of the history directory h, refusing a
// format this tool does not read.
func readLoadable(repo *gitstore.Repo, h gitstore.Hash) (*State, error) {
	sh, _, ok, err := repo.Lookup(h, "state")
	if err != nil {
		return nil, corrupt("%v", err)
	}
	if !ok {
		return nil, corrupt("%s is missing", StatePath)
	}
	st, err := readState(repo, sh)
	if err != nil {
		return nil, err
	}
	if st.Version != Version {
		return nil, corrupt("format version %d, this tool reads %d", st.Version, Version)
	}
	return st, nil
}

// Check decodes the history of a memory tree as Load does (the state, the
// tail and every segment, within limits, with valid hashes and paths),
// which is what a peer's memory is checked with before it is adopted.
// Having decoded it all, it writes the history's signals to the local
// cache, where the first recall reads them instead of decoding the
// history again; it keeps nothing in the process. (Load keeps what it
// decodes for the rest of the process, and a fetch goes on to build the
// search index: on rails, 99,000 decoded commits stayed live through that
// build, which spent a third of its CPU collecting garbage under the
// heap's limit and peaked 100 MB higher.) A history whose signals are
// cached already was decoded by this clone before: the cache is keyed by
// the history's tree id.
func Check(repo *gitstore.Repo, memTree gitstore.Hash) error {
	return CheckProgress(repo, memTree, nil)
}

// CheckProgress is Check, calling progress (when set) with the commits
// decoded so far and their number, as each part of the history is (rails'
// 99,000 commits take a second and more).
func CheckProgress(repo *gitstore.Repo, memTree gitstore.Hash, progress func(done, total int)) error {
	key, err := dirOf(repo, memTree)
	if err != nil || key.IsZero() {
		return err
	}
	p := signalsPath(repo, key)
	if p != "" {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
		// A history that only gained commits in its tail since one this
		// clone decoded: its sealed parts are the ones decoded then (the
		// cache names their trees and the state's list of them), so only
		// the tail is decoded, checked as a whole one is.
		if s := appendToCached(repo, memTree, key, filepath.Dir(p)); s != nil {
			_ = writeSignals(filepath.Dir(p), key, s)
			return nil
		}
	}
	s, err := streamSignals(repo, memTree, key, progress)
	if err != nil {
		return err
	}
	if p != "" {
		_ = writeSignals(filepath.Dir(p), key, s) // a cache: failing to write it costs time only
	}
	return nil
}

// Load reads the history of a memory tree (nil, nil when it has none).
// Histories are cached in the process by their tree id.
func Load(repo *gitstore.Repo, memTree gitstore.Hash) (*History, error) {
	h, err := dirOf(repo, memTree)
	if err != nil || h.IsZero() {
		return nil, err
	}
	cacheMu.Lock()
	if hs := cache[h]; hs != nil {
		cacheMu.Unlock()
		return hs, nil
	}
	cacheMu.Unlock()
	st, err := readLoadable(repo, h)
	if err != nil {
		return nil, err
	}
	hs := &History{Key: h, State: *st, Commits: make([]Commit, 0, st.Commits)}
	if err := eachPart(repo, memTree, st, cachedSegment, func(cs []Commit) error {
		hs.Commits = append(hs.Commits, cs...)
		return nil
	}); err != nil {
		return nil, err
	}
	// Commits of several branches arrive in recording order; queries
	// want time order (stable for equal dates).
	sort.SliceStable(hs.Commits, func(i, j int) bool { return hs.Commits[i].Time < hs.Commits[j].Time })
	cacheMu.Lock()
	if len(cache) >= 4 {
		clear(cache)
	}
	cache[h] = hs
	cacheMu.Unlock()
	return hs, nil
}
