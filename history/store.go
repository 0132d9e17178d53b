package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// Paths in the memory tree.
const (
	Dir         = "history"
	StatePath   = Dir + "/state"    // plain JSON: State
	TailPath    = Dir + "/tail"     // zstd JSON: the most recent commits, not yet in a segment
	SegmentsDir = Dir + "/segments" // zstd JSON: segments/<seq>, immutable once written
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
}

// ReadConfig reads konteks.history.enabled, .depth and .max.
func ReadConfig(repo *gitstore.Repo) (Config, error) {
	cfg := Config{Enabled: true, Max: DefaultMax}
	vals := repo.ConfigValues("konteks.history.")
	if v, ok := vals["konteks.history.enabled"]; ok {
		switch strings.ToLower(v) {
		case "false", "no", "off", "0":
			cfg.Enabled = false
		case "true", "yes", "on", "1", "":
		default:
			return cfg, fmt.Errorf("konteks.history.enabled: want true or false, got %q", v)
		}
	}
	for _, k := range []struct {
		key string
		dst *int
	}{{"konteks.history.depth", &cfg.Depth}, {"konteks.history.max", &cfg.Max}} {
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
	Commits  int       `json:"commits"` // commits recorded (segments + tail)
	Segments []Segment `json:"segments,omitempty"`
	Tail     int       `json:"tail"`     // commits in the tail
	NextSeq  int       `json:"next_seq"` // sequence number of the next segment
	Dropped  int       `json:"dropped,omitempty"`
	Config   Config    `json:"config"`
}

// Segment describes one segment.
type Segment struct {
	Seq     int `json:"seq"`
	Commits int `json:"commits"`
}

// SegmentPath is the memory tree path of segment seq.
func SegmentPath(seq int) string { return fmt.Sprintf("%s/%06d", SegmentsDir, seq) }

// Result is what Update did.
type Result struct {
	New      int // commits recorded by this run
	Total    int // commits recorded in all
	Segments int
	Written  int // objects written (segments, tail, state)
	Enabled  bool
}

// Update brings the history in the tree being edited up to source: it
// walks the commits reachable from source that no recorded tip reaches,
// appends them to the tail, turns a full tail into segments, and drops the
// oldest segments past cfg.Max. Only the tail, the state and new segments
// are written; a run after one commit writes two small blobs.
func Update(ctx context.Context, repo *gitstore.Repo, ed *gitstore.TreeEditor, w *gitstore.Writer, source gitstore.Hash, cfg Config) (*Result, error) {
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
	if st == nil || st.Version != Version || st.Config.Depth != cfg.Depth || st.Config.Max != cfg.Max {
		// Nothing yet, an older format or other bounds: walk anew.
		if err := ed.Delete(Dir); err != nil {
			return nil, err
		}
		st = &State{Version: Version, Config: cfg}
	}
	res := &Result{Enabled: true, Total: st.Commits, Segments: len(st.Segments)}
	src := source.String()
	for _, t := range st.Tips {
		if t == src {
			return res, nil
		}
	}
	opt := gitstore.LogOptions{Include: []gitstore.Hash{source}, MaxCount: cfg.Max}
	if cfg.Depth > 0 && cfg.Depth < opt.MaxCount {
		opt.MaxCount = cfg.Depth
	}
	for _, t := range st.Tips {
		opt.Exclude = append(opt.Exclude, gitstore.ParseHash(t))
	}
	var fresh []Commit
	parentOfNew := map[string]bool{}
	// Blobs may be missing (a damaged object store, a mirror): git names
	// the one it could not read; the walk resumes at the commit that needed
	// it with that commit's paths for the blob left out (commits already
	// read keep their counts). Past 32 such blobs, the rest of the walk
	// records paths without line counts or renames.
	for tries := 0; ; tries++ {
		opt.Skip = len(fresh)
		err = repo.Log(ctx, opt, func(lc *gitstore.LogCommit) error {
			c := FromLog(lc)
			for _, p := range c.Parents {
				parentOfNew[p] = true
			}
			fresh = append(fresh, c)
			return nil
		})
		if !errors.Is(err, gitstore.ErrMissingObjects) || opt.NoBlobs {
			break
		}
		var me *gitstore.MissingObjectError
		var paths []string
		if tries < 32 && errors.As(err, &me) && !me.ID.IsZero() {
			if paths, err = repo.PathsOfObject(ctx, opt, len(fresh), me.ID); err != nil {
				return nil, err
			}
		}
		if len(paths) == 0 {
			opt.NoBlobs = true
		}
		opt.ExcludePaths = append(opt.ExcludePaths, paths...)
	}
	if err != nil {
		return nil, err
	}
	if len(fresh) == 0 {
		// source is in recorded history already (an older commit).
		return res, nil
	}
	// Oldest first, so that segments are in recording order and the
	// oldest can be dropped whole.
	for i, j := 0, len(fresh)-1; i < j; i, j = i+1, j-1 {
		fresh[i], fresh[j] = fresh[j], fresh[i]
	}
	var tail []Commit
	if st.Tail > 0 {
		if tail, err = readTailFromEditor(repo, ed, st.Tail); err != nil {
			return nil, err
		}
	}
	tail = append(tail, fresh...)
	if len(tail) >= tailMax {
		for len(tail) > 0 {
			n := min(len(tail), segmentMax)
			// Keep the last piece of a long first walk whole-sized: the
			// remainder below TailMax stays in the tail.
			if n < tailMax && len(st.Segments) > 0 && n == len(tail) {
				break
			}
			b, err := encodeCommits(tail[:n])
			if err != nil {
				return nil, err
			}
			if err := setBlob(ed, w, SegmentPath(st.NextSeq), b); err != nil {
				return nil, err
			}
			res.Written++
			st.Segments = append(st.Segments, Segment{Seq: st.NextSeq, Commits: n})
			st.NextSeq++
			tail = tail[n:]
		}
	}
	st.Tail = len(tail)
	if len(tail) == 0 {
		if err := ed.Delete(TailPath); err != nil {
			return nil, err
		}
	} else {
		b, err := encodeCommits(tail)
		if err != nil {
			return nil, err
		}
		if err := setBlob(ed, w, TailPath, b); err != nil {
			return nil, err
		}
		res.Written++
	}
	st.Commits += len(fresh)
	for st.Commits > cfg.Max && len(st.Segments) > 0 {
		s := st.Segments[0]
		if err := ed.Delete(SegmentPath(s.Seq)); err != nil {
			return nil, err
		}
		st.Segments = st.Segments[1:]
		st.Commits -= s.Commits
		st.Dropped += s.Commits
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
	sb, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	if err := setBlob(ed, w, StatePath, append(sb, '\n')); err != nil {
		return nil, err
	}
	res.Written++
	res.New, res.Total, res.Segments = len(fresh), st.Commits, len(st.Segments)
	return res, nil
}

func setBlob(ed *gitstore.TreeEditor, w *gitstore.Writer, p string, b []byte) error {
	h, err := w.Blob(b)
	if err != nil {
		return err
	}
	return ed.Set(p, filemode.Regular, h)
}

func encodeCommits(cs []Commit) ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	for i := range cs {
		if err := e.Encode(&cs[i]); err != nil {
			return nil, err
		}
	}
	return memory.Compress(buf.Bytes()), nil
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
// tail; they may come from a peer.
func decodeCommits(raw []byte, name string, want int) ([]Commit, error) {
	if want < 0 || want > maxPerSegment {
		return nil, corrupt("%s: %d commits expected", name, want)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	out := make([]Commit, 0, want)
	for {
		var c Commit
		err := d.Decode(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, corrupt("%s: %v", name, err)
		}
		if len(out) >= maxPerSegment {
			return nil, corrupt("%s: more than %d commits", name, maxPerSegment)
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

	once      sync.Once
	ix        *msgIndex
	byH       map[string]int
	live      map[string]int32 // path -> identity of the file there now
	last      map[string]int32 // path -> identity of the last file there (deleted too)
	idName    []string         // identity -> its newest path
	idCommits [][]int32        // identity -> commits that changed it, oldest first
	changeIDs [][]int32        // per commit, per change: the file identity
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

// Load reads the history of a memory tree (nil, nil when it has none).
// Histories are cached in the process by their tree id.
func Load(repo *gitstore.Repo, memTree gitstore.Hash) (*History, error) {
	h, isTree, ok, err := repo.Lookup(memTree, Dir)
	if err != nil || !ok {
		return nil, err
	}
	if !isTree {
		return nil, corrupt("%s is not a directory", Dir)
	}
	cacheMu.Lock()
	if hs := cache[h]; hs != nil {
		cacheMu.Unlock()
		return hs, nil
	}
	cacheMu.Unlock()
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
	hs := &History{Key: h, State: *st, Commits: make([]Commit, 0, st.Commits)}
	for _, s := range st.Segments {
		p := SegmentPath(s.Seq)
		bh, _, ok, err := repo.Lookup(memTree, p)
		if err != nil || !ok {
			return nil, corrupt("%s is missing", p)
		}
		cs, err := cachedSegment(repo, bh, p, s.Commits)
		if err != nil {
			return nil, err
		}
		hs.Commits = append(hs.Commits, cs...)
	}
	if st.Tail > 0 {
		th, _, ok, err := repo.Lookup(memTree, TailPath)
		if err != nil || !ok {
			return nil, corrupt("%s is missing", TailPath)
		}
		cs, err := readCommits(repo, th, TailPath, st.Tail)
		if err != nil {
			return nil, err
		}
		hs.Commits = append(hs.Commits, cs...)
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
