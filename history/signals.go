package history

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/mmap"
	"github.com/konteks/git-konteks/text"
)

// Signals is what recall needs of history, in flat arrays: the message
// index, each commit's weight and files (by identity), and each file's
// newest name and commits. It is derived from the commit records, cached
// in the process and on disk under $GIT_DIR/konteks/history/ keyed by the
// history tree id, so a recall process reads a few flat arrays instead of
// decoding and indexing every commit (on an 18,000-commit history, ~20 ms
// instead of a second).
type Signals struct {
	Key     string
	Version int
	N       int // commits

	// Message index: Terms sorted; the postings of Terms[i] are
	// Docs/TFs[Off[i]:Off[i+1]].
	Terms []string
	Off   []int32
	Docs  []int32
	TFs   []uint16
	DL    []uint16
	AvgDL float64

	// Commits, in time order: weight, paths changed, and the identities
	// of the kept changes (ChID[ChOff[i]:ChOff[i+1]]; deletions negative,
	// as -id-1).
	Weight []float32
	Files  []int32
	ChOff  []int32
	ChID   []int32

	// Files: the newest name of each identity, the commits that changed
	// it (IDCom[IDOff[id]:IDOff[id+1]], oldest first), and path ->
	// identity for live files, then for the last file of each name.
	Names     []string
	IDOff     []int32
	IDCom     []int32
	LivePaths []string
	LiveIDs   []int32
	LastPaths []string
	LastIDs   []int32

	// What the signals were built from, so that the next commits' are
	// appended instead of rebuilt (appendSignals): the sealed parts (the
	// segments' and back segments' trees), the tail's blob and number of
	// commits, and the newest commit's time.
	Sealed  string
	Tail    string
	TailN   int
	MaxTime int64
}

// signalsVersion is the version of the signals file. 2: message terms are
// text.Terms (stemmed, the shared stop list). 3: every array starts at a
// multiple of four bytes, so it can be used where it is mapped. 4: the
// parts the signals were built from and the newest commit's time.
const signalsVersion = 4

// InPlace has signals read from their cache file use its mapped bytes
// rather than copies: a short-lived process (one CLI command) then pages
// in only what it reads, and allocates nothing for them (rails' 15 MB
// cache cost a recall 50 ms of copying and page faults). The mapping is
// never unmapped, so a long-lived process (the MCP server) leaves this
// off: it would keep every replaced cache file's pages and disk space.
var InPlace bool

var (
	sigMu    sync.Mutex
	sigCache = map[gitstore.Hash]*Signals{}
)

// LoadSignals returns the recall signals of a memory tree's history (nil
// when it has none), from the process cache, the disk cache, or built
// from the records (and then cached).
func LoadSignals(repo *gitstore.Repo, memTree gitstore.Hash) (*Signals, error) {
	key, err := dirOf(repo, memTree)
	if err != nil || key.IsZero() {
		return nil, err
	}
	sigMu.Lock()
	s := sigCache[key]
	sigMu.Unlock()
	if s != nil {
		return s, nil
	}
	p := signalsPath(repo, key)
	if p != "" {
		if s = readSignals(p, key); s != nil {
			remember(key, s)
			return s, nil
		}
		// After a commit: the signals of the history before it, with
		// the new commits appended.
		if s = appendToCached(repo, memTree, key, filepath.Dir(p)); s != nil {
			_ = writeSignals(filepath.Dir(p), key, s)
			remember(key, s)
			return s, nil
		}
	}
	// A history this process holds already is flattened; otherwise the
	// commits are streamed, never all held at once.
	cacheMu.Lock()
	h := cache[key]
	cacheMu.Unlock()
	if h != nil {
		s = h.signals()
		if err := s.setParts(repo, memTree, &h.State); err != nil {
			return nil, err
		}
	} else if s, err = streamSignals(repo, memTree, key, nil); err != nil {
		return nil, err
	}
	if p != "" {
		_ = writeSignals(filepath.Dir(p), key, s) // a cache: failing to write it costs time only
	}
	remember(key, s)
	return s, nil
}

// signalsPath is the local cache file of the signals of the history whose
// tree is key, or "" when the repository has no state directory.
func signalsPath(repo *gitstore.Repo, key gitstore.Hash) string {
	d, err := repo.StateDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "history", key.String()+".sig")
}

func remember(key gitstore.Hash, s *Signals) {
	sigMu.Lock()
	if len(sigCache) >= 4 {
		clear(sigCache)
	}
	sigCache[key] = s
	sigMu.Unlock()
}

func readSignals(p string, key gitstore.Hash) *Signals {
	// Mapped, not read: decoding either uses the file where it is mapped
	// (InPlace) or copies every value out.
	b, unmap, err := mmap.File(p)
	if err != nil {
		return nil
	}
	inPlace := InPlace
	defer func() {
		if !inPlace {
			unmap()
		}
	}()
	if len(b) > 1<<30 {
		return nil
	}
	s, err := decodeSignals(b, inPlace)
	if err != nil || s.Key != key.String() || s.check() != nil {
		// Nothing of a refused file is kept: unmap it.
		inPlace = false
		return nil
	}
	return s
}

// writeSignals writes the cache file atomically and drops older ones.
func writeSignals(dir string, key gitstore.Hash, s *Signals) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := key.String() + ".sig"
	if err := mmap.Replace(filepath.Join(dir, name), func(w *bufio.Writer) error {
		_, err := w.Write(s.encode())
		return err
	}); err != nil {
		return err
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != name && strings.HasSuffix(e.Name(), ".sig") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

// check validates a decoded cache file (a local file, but a truncated or
// foreign one must not crash recall).
func (s *Signals) check() error {
	bad := errors.New("inconsistent history cache")
	n := s.N
	if len(s.Off) != len(s.Terms)+1 || len(s.DL) != n || len(s.Weight) != n || len(s.Files) != n || len(s.ChOff) != n+1 ||
		len(s.IDOff) != len(s.Names)+1 || len(s.LivePaths) != len(s.LiveIDs) || len(s.LastPaths) != len(s.LastIDs) ||
		len(s.Docs) != len(s.TFs) || s.TailN < 0 || s.TailN > n {
		return bad
	}
	mono := func(off []int32, total int) bool {
		for i := 1; i < len(off); i++ {
			if off[i] < off[i-1] {
				return false
			}
		}
		return len(off) > 0 && off[0] == 0 && int(off[len(off)-1]) == total
	}
	if !mono(s.Off, len(s.Docs)) || !mono(s.ChOff, len(s.ChID)) || !mono(s.IDOff, len(s.IDCom)) {
		return bad
	}
	ids := int32(len(s.Names))
	for _, d := range s.Docs {
		if d < 0 || int(d) >= n {
			return bad
		}
	}
	for _, c := range s.IDCom {
		if c < 0 || int(c) >= n {
			return bad
		}
	}
	for _, id := range s.ChID {
		if id < 0 {
			id = -id - 1
		}
		if id < 0 || id >= ids {
			return bad
		}
	}
	for _, ls := range [][]int32{s.LiveIDs, s.LastIDs} {
		for _, id := range ls {
			if id < 0 || id >= ids {
				return bad
			}
		}
	}
	return nil
}

// signals flattens a history.
func (h *History) signals() *Signals {
	h.build()
	weight := make([]float32, len(h.Commits))
	files := make([]int32, len(h.Commits))
	chIDs := make([][]int32, len(h.Commits))
	var newest int64
	for i := range h.Commits {
		c := &h.Commits[i]
		weight[i], files[i] = float32(c.Weight), int32(c.Files)
		chIDs[i] = markDeleted(h.changeIDs[i], func(j int) bool { return c.Changes[j].Kind == "D" })
		newest = max(newest, c.Time)
	}
	s := newSignals(h.Key.String(), h.ix, weight, files, chIDs, &h.fileIDs)
	s.MaxTime = newest
	return s
}

// markDeleted is ids with the identities of deletions (del(j)) as -id-1.
func markDeleted(ids []int32, del func(j int) bool) []int32 {
	out := make([]int32, len(ids))
	for j, id := range ids {
		if del(j) {
			id = -id - 1
		}
		out[j] = id
	}
	return out
}

// newSignals flattens what a history's commits (in time order) gave:
// their message index, weights, numbers of files, the identities of
// their changes (deletions marked) and the files' identities.
func newSignals(key string, ix *msgIndex, weight []float32, files []int32, chIDs [][]int32, ids *fileIDs) *Signals {
	n := len(weight)
	s := &Signals{Key: key, Version: signalsVersion, N: n, DL: ix.dl, AvgDL: ix.avgdl, Weight: weight, Files: files}
	s.Terms = slices.Clone(ix.terms)
	sort.Strings(s.Terms)
	// Every array sized first: grown by appending, they were copied over
	// and over (40 ms of a recall after a commit on prometheus).
	posts, changes, idCommits := 0, 0, 0
	for _, p := range ix.posts {
		posts += len(p.docs)
	}
	for _, cs := range chIDs {
		changes += len(cs)
	}
	for _, cs := range ids.idCommits {
		idCommits += len(cs)
	}
	s.Docs, s.TFs = make([]int32, 0, posts), make([]uint16, 0, posts)
	s.ChID, s.IDCom = make([]int32, 0, changes), make([]int32, 0, idCommits)
	s.Off = make([]int32, 0, len(s.Terms)+1)
	s.Off = append(s.Off, 0)
	for _, t := range s.Terms {
		p := ix.posts[ix.ids[t]]
		s.Docs = append(s.Docs, p.docs...)
		s.TFs = append(s.TFs, p.tfs...)
		s.Off = append(s.Off, int32(len(s.Docs)))
	}
	s.ChOff = make([]int32, 0, n+1)
	s.ChOff = append(s.ChOff, 0)
	for _, cs := range chIDs {
		s.ChID = append(s.ChID, cs...)
		s.ChOff = append(s.ChOff, int32(len(s.ChID)))
	}
	s.Names = ids.idName
	s.IDOff = append(make([]int32, 0, len(ids.idName)+1), 0)
	for _, cs := range ids.idCommits {
		s.IDCom = append(s.IDCom, cs...)
		s.IDOff = append(s.IDOff, int32(len(s.IDCom)))
	}
	flat := func(m map[string]int32) ([]string, []int32) {
		ps := make([]string, 0, len(m))
		for p := range m {
			ps = append(ps, p)
		}
		sort.Strings(ps)
		ids := make([]int32, len(ps))
		for i, p := range ps {
			ids[i] = m[p]
		}
		return ps, ids
	}
	s.LivePaths, s.LiveIDs = flat(ids.live)
	s.LastPaths, s.LastIDs = flat(ids.last)
	return s
}

// streamSignals builds the signals of the history directory key without
// holding its commits: each part is decoded, reduced to what the signals
// read (time, weight, number of files, the changes with their paths
// shared, the message's terms) and dropped. On rails (99,000 commits)
// the decoded commits held 100 MB, and the phase's live heap fell from
// 188 MB to under 60 MB. The result is the one h.signals() gives.
func streamSignals(repo *gitstore.Repo, memTree, key gitstore.Hash, progress func(done, total int)) (*Signals, error) {
	st, err := readLoadable(repo, key)
	if err != nil {
		return nil, err
	}
	type change struct {
		kind      string
		path, old string
	}
	type slim struct {
		time    int64
		weight  float32
		files   int32
		changes []change
	}
	cs := make([]slim, 0, st.Commits)
	// Messages are indexed in recording order, renumbered below.
	ix := newMsgIndex(st.Commits)
	var mt msgTerms
	paths := map[string]string{}
	share := func(p string) string {
		if p == "" {
			return ""
		}
		if q, ok := paths[p]; ok {
			return q
		}
		paths[p] = p
		return p
	}
	err = eachPart(repo, memTree, st, readCommits, func(part []Commit) error {
		for i := range part {
			c := &part[i]
			ix.add(int32(len(cs)), c.Subject, c.Body, &mt)
			sc := slim{time: c.Time, weight: float32(c.Weight), files: int32(c.Files), changes: make([]change, len(c.Changes))}
			for j, ch := range c.Changes {
				sc.changes[j] = change{kind: kindOf(ch.Kind), path: share(ch.Path), old: share(ch.Old)}
			}
			cs = append(cs, sc)
		}
		if progress != nil {
			progress(len(cs), st.Commits)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ix.finish()
	// Time order, stable for equal dates, as Load sorts.
	order := make([]int32, len(cs))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return cs[order[a]].time < cs[order[b]].time })
	rank := make([]int32, len(cs))
	for r, i := range order {
		rank[i] = int32(r)
	}
	dl := make([]uint16, len(cs))
	for i, d := range ix.dl {
		dl[rank[i]] = d
	}
	ix.dl = dl
	for _, p := range ix.posts {
		for k, d := range p.docs {
			p.docs[k] = rank[d]
		}
		sort.Sort(byDoc(p))
	}
	ids := newFileIDs()
	weight := make([]float32, len(cs))
	files := make([]int32, len(cs))
	chIDs := make([][]int32, len(cs))
	for r, i := range order {
		c := &cs[i]
		weight[r], files[r] = c.weight, c.files
		got := make([]int32, len(c.changes))
		for j, ch := range c.changes {
			got[j] = ids.assign(int32(r), ch.kind, ch.path, ch.old)
		}
		chIDs[r] = markDeleted(got, func(j int) bool { return c.changes[j].kind == "D" })
		c.changes = nil
	}
	s := newSignals(key.String(), ix, weight, files, chIDs, &ids)
	for i := range cs {
		s.MaxTime = max(s.MaxTime, cs[i].time)
	}
	if err := s.setParts(repo, memTree, st); err != nil {
		return nil, err
	}
	return s, nil
}

// setParts records what s was built from: the sealed parts' trees, the
// tail and its length, as the history's state st gives them.
func (s *Signals) setParts(repo *gitstore.Repo, memTree gitstore.Hash, st *State) error {
	sealed, tail, err := partsOf(repo, memTree, st)
	if err != nil {
		return err
	}
	s.Sealed, s.Tail, s.TailN = sealed, tail, st.Tail
	return nil
}

// partsOf names what a history's signals are appended to: the sealed
// parts (never rewritten but as a whole) as the ids of the segments' and
// back segments' trees and the lists of them the state gives (sequence
// and number of commits: what reading them checks), and the id of the
// tail's blob ("" when there is none).
func partsOf(repo *gitstore.Repo, memTree gitstore.Hash, st *State) (sealed, tail string, err error) {
	var ids [3]string
	for i, p := range []string{SegmentsDir, BackDir, TailPath} {
		h, _, ok, err := repo.Lookup(memTree, p)
		if err != nil {
			return "", "", err
		}
		if ok {
			ids[i] = h.String()
		}
	}
	d := sha256.New()
	for _, segs := range [][]Segment{st.Segments, st.Back} {
		for _, sg := range segs {
			fmt.Fprintf(d, "%d:%d,", sg.Seq, sg.Commits)
		}
		d.Write([]byte{';'})
	}
	return ids[0] + " " + ids[1] + " " + hex.EncodeToString(d.Sum(nil)[:12]), ids[2], nil
}

// appendToCached derives the signals of the history key from a cached
// file of an earlier history of dir (writeSignals keeps one), or returns
// nil.
func appendToCached(repo *gitstore.Repo, memTree, key gitstore.Hash, dir string) *Signals {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".sig")
		if !ok || name == key.String() {
			continue
		}
		old := readSignals(filepath.Join(dir, e.Name()), gitstore.ParseHash(name))
		if old == nil {
			continue
		}
		if s := appendSignals(repo, memTree, key, old); s != nil {
			return s
		}
	}
	return nil
}

// appendSignals derives the signals of the history key from old, those
// of an earlier history, when the only difference is commits appended to
// the tail (what a post-commit extraction records): the sealed parts are
// the same trees, the tail starts with the commits old was built from,
// and no new commit is older than old's newest, so the time order (stable
// in recording order) is old's followed by the new commits'. Anything else
// (a tail turned into segments, segments dropped by the bound, a walk
// anew, an old tail no longer in the object database) returns nil, and
// the signals are built from every commit. The result is the one
// streamSignals gives (a test compares them); on prometheus a recall
// after a one-file extraction rebuilt them in about 600 ms.
func appendSignals(repo *gitstore.Repo, memTree, key gitstore.Hash, old *Signals) *Signals {
	st, err := readLoadable(repo, key)
	if err != nil || st.Tail <= old.TailN {
		return nil
	}
	sealed, tail, err := partsOf(repo, memTree, st)
	if err != nil || sealed != old.Sealed || tail == "" {
		return nil
	}
	// The mean message length is rebuilt from the lengths, exact unless
	// one was capped.
	total := 0
	for _, d := range old.DL {
		if d == math.MaxUint16 {
			return nil
		}
		total += int(d)
	}
	cur, err := readPart(repo, memTree, TailPath, st.Tail, readCommits)
	if err != nil {
		return nil
	}
	if old.TailN > 0 {
		prev, err := readCommits(repo, gitstore.ParseHash(old.Tail), TailPath, old.TailN)
		if err != nil {
			return nil
		}
		for i := range prev {
			if !sameForSignals(&prev[i], &cur[i]) {
				return nil
			}
		}
	}
	fresh := cur[old.TailN:]
	for i := range fresh {
		if fresh[i].Time < old.MaxTime {
			return nil
		}
	}
	sort.SliceStable(fresh, func(a, b int) bool { return fresh[a].Time < fresh[b].Time })

	n0, n := old.N, old.N+len(fresh)
	// Old arrays are only read (they may be where the file is mapped):
	// every slice that grows is capped at its length, so append copies.
	ix := &msgIndex{ids: make(map[string]int32, len(old.Terms)), terms: slices.Clip(old.Terms),
		posts: make([]postings, len(old.Terms)), dl: append(make([]uint16, 0, n), old.DL...), total: total}
	for i, t := range old.Terms {
		ix.ids[t] = int32(i)
		a, b := old.Off[i], old.Off[i+1]
		ix.posts[i] = postings{docs: old.Docs[a:b:b], tfs: old.TFs[a:b:b]}
	}
	ids := fileIDs{live: make(map[string]int32, len(old.LivePaths)), last: make(map[string]int32, len(old.LastPaths)),
		idName: slices.Clone(old.Names), idCommits: make([][]int32, len(old.Names))}
	for i, p := range old.LivePaths {
		ids.live[p] = old.LiveIDs[i]
	}
	for i, p := range old.LastPaths {
		ids.last[p] = old.LastIDs[i]
	}
	for id := range ids.idCommits {
		a, b := old.IDOff[id], old.IDOff[id+1]
		ids.idCommits[id] = old.IDCom[a:b:b]
	}
	weight := append(make([]float32, 0, n), old.Weight...)
	files := append(make([]int32, 0, n), old.Files...)
	chIDs := make([][]int32, n0, n)
	for r := range n0 {
		chIDs[r] = old.ChID[old.ChOff[r]:old.ChOff[r+1]]
	}
	var mt msgTerms
	newest := old.MaxTime
	for j := range fresh {
		c, r := &fresh[j], int32(n0+j)
		ix.add(r, c.Subject, c.Body, &mt)
		weight = append(weight, float32(c.Weight))
		files = append(files, int32(c.Files))
		got := make([]int32, len(c.Changes))
		for k, ch := range c.Changes {
			got[k] = ids.assign(r, kindOf(ch.Kind), ch.Path, ch.Old)
		}
		chIDs = append(chIDs, markDeleted(got, func(k int) bool { return c.Changes[k].Kind == "D" }))
		newest = max(newest, c.Time)
	}
	ix.finish()
	s := newSignals(key.String(), ix, weight, files, chIDs, &ids)
	s.Sealed, s.Tail, s.TailN, s.MaxTime = sealed, tail, st.Tail, newest
	return s
}

// sameForSignals reports whether two records of a commit give the same
// signals.
func sameForSignals(a, b *Commit) bool {
	return a.Hash == b.Hash && a.Time == b.Time && a.Subject == b.Subject && a.Body == b.Body &&
		a.Weight == b.Weight && a.Files == b.Files && slices.EqualFunc(a.Changes, b.Changes, func(x, y Change) bool {
		return x.Kind == y.Kind && x.Path == y.Path && x.Old == y.Old
	})
}

// kindOf is a change kind as a constant string, so that the kinds of
// many changes share one.
func kindOf(k string) string {
	for _, c := range [...]string{"M", "A", "D", "R", "T", "C"} {
		if k == c {
			return c
		}
	}
	return k
}

// byDoc sorts postings by document.
type byDoc postings

func (p byDoc) Len() int           { return len(p.docs) }
func (p byDoc) Less(i, j int) bool { return p.docs[i] < p.docs[j] }
func (p byDoc) Swap(i, j int) {
	p.docs[i], p.docs[j] = p.docs[j], p.docs[i]
	p.tfs[i], p.tfs[j] = p.tfs[j], p.tfs[i]
}

func (s *Signals) fileID(p string) (int32, bool) {
	if i := sort.SearchStrings(s.LivePaths, p); i < len(s.LivePaths) && s.LivePaths[i] == p {
		return s.LiveIDs[i], true
	}
	if i := sort.SearchStrings(s.LastPaths, p); i < len(s.LastPaths) && s.LastPaths[i] == p {
		return s.LastIDs[i], true
	}
	return 0, false
}

// live reports whether the file of identity id exists at the newest
// recorded commit under its newest name (not deleted, and its name not
// taken over by another file).
func (s *Signals) live(id int32) bool {
	name := s.Names[id]
	i := sort.SearchStrings(s.LivePaths, name)
	return i < len(s.LivePaths) && s.LivePaths[i] == name && s.LiveIDs[i] == id
}

func (s *Signals) small(i int32, maxFiles int) bool {
	return s.Weight[i] >= 0.5 && s.Files[i] >= 1 && int(s.Files[i]) <= maxFiles
}

// eachCoChange calls fn with every file entry (o, negative -o-1 where the
// commit deleted it; the file itself included) of each small commit (see
// small) that changed the file id, with that commit's weight, and returns
// the commits' total weight.
func (s *Signals) eachCoChange(id int32, maxFiles int, fn func(o int32, cw float64)) float64 {
	n := 0.0
	for _, ci := range s.IDCom[s.IDOff[id]:s.IDOff[id+1]] {
		if !s.small(ci, maxFiles) {
			continue
		}
		cw := float64(s.Weight[ci])
		n += cw
		for _, o := range s.ChID[s.ChOff[ci]:s.ChOff[ci+1]] {
			fn(o, cw)
		}
	}
	return n
}

// score is BM25 over commit messages (bm25).
func (s *Signals) score(terms []string) map[int32]float64 {
	return bm25(terms, s.DL, s.AvgDL, func(t string) ([]int32, []uint16) {
		i := sort.SearchStrings(s.Terms, t)
		if i >= len(s.Terms) || s.Terms[i] != t {
			return nil, nil
		}
		lo, hi := s.Off[i], s.Off[i+1]
		return s.Docs[lo:hi], s.TFs[lo:hi]
	})
}

// Evidence is what past commits say about one file: its MessageEvidence
// score and how many of the matching commits changed it.
type Evidence struct {
	Score   float64
	Commits int
}

// MessageEvidence scores files by the past commits whose messages match
// q: the best topCommits matching commits that are small (at most maxFiles
// paths, not a merge, bot, mass or formatting change) each give their
// files (by newest name; files deleted since left out) the commit's score
// relative to the best, divided by the square root of its file count.
// Scaled so the best file has 1. Each file's Evidence also counts the
// matching commits behind its score.
func (s *Signals) MessageEvidence(q string, maxFiles, topCommits int) map[string]Evidence {
	type cand struct {
		i int32
		s float64
	}
	var cs []cand
	for i, sc := range s.score(text.Terms(q)) {
		if s.small(i, maxFiles) {
			cs = append(cs, cand{i, sc * float64(s.Weight[i])})
		}
	}
	if len(cs) == 0 {
		return nil
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].s != cs[b].s {
			return cs[a].s > cs[b].s
		}
		return cs[a].i > cs[b].i
	})
	if len(cs) > topCommits {
		cs = cs[:topCommits]
	}
	out := map[string]Evidence{}
	top, best := cs[0].s, 0.0
	if top <= 0 {
		return out
	}
	for _, c := range cs {
		ids := s.ChID[s.ChOff[c.i]:s.ChOff[c.i+1]]
		v := c.s / top / math.Sqrt(float64(max(len(ids), 1)))
		for _, id := range ids {
			if id < 0 || !s.live(id) {
				continue
			}
			p := s.Names[id]
			e := out[p]
			e.Score += v
			e.Commits++
			out[p] = e
			best = max(best, e.Score)
		}
	}
	for p, e := range out {
		e.Score /= best
		out[p] = e
	}
	return out
}

// CoChange scores files by how often they changed together with the seed
// files (path -> weight) in small commits: per seed, a file's weighted
// share of the seed's commits, shrunk toward 0 for seeds with few.
func (s *Signals) CoChange(seeds map[string]float64, maxFiles int) map[string]float64 {
	out := map[string]float64{}
	for p, w := range seeds {
		id, ok := s.fileID(p)
		if !ok || w <= 0 {
			continue
		}
		counts := map[int32]float64{}
		n := s.eachCoChange(id, maxFiles, func(o int32, cw float64) {
			if o < 0 {
				o = -o - 1
			}
			if o != id {
				counts[o] += cw
			}
		})
		for o, k := range counts {
			out[s.Names[o]] += w * k / (n + 2)
		}
	}
	return out
}

// Companion is a file that changes together with another.
type Companion struct {
	Path    string
	Share   float64 // weighted share of the other file's small commits that changed it too
	Commits int     // how many of them did
}

// Companions returns the live files that changed in at least minCommits
// of the small commits (at most maxFiles paths, see MessageEvidence) that
// changed the file at p, with their share of those commits, largest
// first. The share is shrunk toward 0 for files with few commits (one
// commit more in the denominator), so a single shared commit does not
// read as "always together".
func (s *Signals) Companions(p string, maxFiles, minCommits int) []Companion {
	id, ok := s.fileID(p)
	if !ok {
		return nil
	}
	counts := map[int32]float64{}
	raw := map[int32]int{}
	n := s.eachCoChange(id, maxFiles, func(o int32, cw float64) {
		if o < 0 || o == id {
			return // deleted there, or the file itself
		}
		counts[o] += cw
		raw[o]++
	})
	var out []Companion
	for o, k := range counts {
		if raw[o] < max(minCommits, 1) {
			continue
		}
		name := s.Names[o]
		if !s.live(o) {
			continue
		}
		out = append(out, Companion{Path: name, Share: k / (n + 1), Commits: raw[o]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// Changes is how many recorded commits changed the file at p.
func (s *Signals) Changes(p string) int {
	id, ok := s.fileID(p)
	if !ok {
		return 0
	}
	return int(s.IDOff[id+1] - s.IDOff[id])
}

// Age is how many recorded commits are newer than the last one that
// changed the file at p; ok is false when none did.
func (s *Signals) Age(p string) (int, bool) {
	id, ok := s.fileID(p)
	if !ok {
		return 0, false
	}
	cs := s.IDCom[s.IDOff[id]:s.IDOff[id+1]]
	if len(cs) == 0 {
		return 0, false
	}
	return s.N - 1 - int(cs[len(cs)-1]), true
}

// String describes the signals briefly.
func (s *Signals) String() string {
	return fmt.Sprintf("history signals %.12s: %d commits, %d terms, %d files", s.Key, s.N, len(s.Terms), len(s.Names))
}

// The cache file: a magic, then each field in a fixed order; slices as a
// count and little-endian values, strings as a count, their lengths and
// their bytes. Decoding is a few copies, no reflection.
const signalsMagic = "konteks-history-signals\x00"

type enc struct{ b []byte }

// align pads the file to a multiple of four bytes: each array, its count
// first, starts there (the file is mapped at a page boundary).
func (e *enc) align() {
	for len(e.b)%4 != 0 {
		e.b = append(e.b, 0)
	}
}
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) i32s(v []int32) {
	e.align()
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.u32(uint32(x))
	}
}
func (e *enc) u16s(v []uint16) {
	e.align()
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.b = binary.LittleEndian.AppendUint16(e.b, x)
	}
}
func (e *enc) f32s(v []float32) {
	e.align()
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.u32(math.Float32bits(x))
	}
}
func (e *enc) strs(v []string) {
	e.align()
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.u32(uint32(len(x)))
	}
	for _, x := range v {
		e.b = append(e.b, x...)
	}
}

func (s *Signals) encode() []byte {
	// Sized first, padding included: grown by appending, the buffer was
	// copied over and over (60 ms of a recall after a commit on
	// prometheus).
	size := len(signalsMagic) + 64 + len(s.Key) + len(s.Sealed) + len(s.Tail)
	for _, v := range [][]string{s.Terms, s.Names, s.LivePaths, s.LastPaths} {
		size += 8 + 4*len(v)
		for _, x := range v {
			size += len(x)
		}
	}
	size += 4 * (len(s.Off) + len(s.Docs) + len(s.Weight) + len(s.Files) + len(s.ChOff) + len(s.ChID) +
		len(s.IDOff) + len(s.IDCom) + len(s.LiveIDs) + len(s.LastIDs) + 16)
	size += 2 * (len(s.TFs) + len(s.DL) + 4)
	e := &enc{b: append(make([]byte, 0, size), signalsMagic...)}
	e.strs([]string{s.Key})
	e.u32(uint32(s.Version))
	e.u32(uint32(s.N))
	e.strs([]string{s.Sealed, s.Tail})
	e.u32(uint32(s.TailN))
	e.u64(uint64(s.MaxTime))
	e.u64(math.Float64bits(s.AvgDL))
	e.strs(s.Terms)
	e.i32s(s.Off)
	e.i32s(s.Docs)
	e.u16s(s.TFs)
	e.u16s(s.DL)
	e.f32s(s.Weight)
	e.i32s(s.Files)
	e.i32s(s.ChOff)
	e.i32s(s.ChID)
	e.strs(s.Names)
	e.i32s(s.IDOff)
	e.i32s(s.IDCom)
	e.strs(s.LivePaths)
	e.i32s(s.LiveIDs)
	e.strs(s.LastPaths)
	e.i32s(s.LastIDs)
	return e.b
}

type dec struct {
	b       []byte
	size    int  // of the whole file, to find its offsets
	inPlace bool // arrays and strings alias b (see InPlace)
	err     error
}

// align skips the encoder's padding to a multiple of four bytes.
func (d *dec) align() {
	if pad := (d.size - len(d.b)) % 4; pad != 0 {
		d.take(uint64(4 - pad))
	}
}

var errShort = errors.New("truncated history cache")

func (d *dec) take(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errShort
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
func (d *dec) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
func (d *dec) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
func (d *dec) i32s() []int32 {
	return fixedSlice(d, 4, func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) })
}
func (d *dec) u16s() []uint16 { return fixedSlice(d, 2, binary.LittleEndian.Uint16) }
func (d *dec) f32s() []float32 {
	return fixedSlice(d, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
}

// fixedSlice reads a count, then that many values of size bytes each,
// each decoded by at; a short input leaves d.err set and returns nil.
// In place, on a machine of the file's byte order, the values are the
// file's own bytes.
func fixedSlice[T int32 | uint16 | float32](d *dec, size uint64, at func([]byte) T) []T {
	d.align()
	n := uint64(d.u32())
	b := d.take(size * n)
	if b == nil {
		return nil
	}
	if n == 0 {
		return []T{}
	}
	if mmap.LittleEndian && d.inPlace && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	v := make([]T, n)
	if mmap.LittleEndian {
		// One copy, not a call per value.
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(b)), b)
		return v
	}
	for i := range v {
		v[i] = at(b[size*uint64(i):])
	}
	return v
}

func (d *dec) strs() []string {
	d.align()
	n := uint64(d.u32())
	lens := d.take(4 * n)
	if lens == nil {
		return nil
	}
	total := uint64(0)
	for i := uint64(0); i < n; i++ {
		total += uint64(binary.LittleEndian.Uint32(lens[4*i:]))
	}
	blob := d.take(total)
	if blob == nil {
		return nil
	}
	var all string
	if d.inPlace && len(blob) > 0 {
		all = unsafe.String(&blob[0], len(blob))
	} else {
		all = string(blob) // one allocation; the strings share it
	}
	v := make([]string, n)
	off := uint64(0)
	for i := range v {
		l := uint64(binary.LittleEndian.Uint32(lens[4*i:]))
		v[i] = all[off : off+l]
		off += l
	}
	return v
}

func decodeSignals(b []byte, inPlace bool) (*Signals, error) {
	if len(b) < len(signalsMagic) || string(b[:len(signalsMagic)]) != signalsMagic {
		return nil, errors.New("not a history cache")
	}
	d := &dec{b: b[len(signalsMagic):], size: len(b), inPlace: inPlace}
	s := &Signals{}
	if k := d.strs(); len(k) == 1 {
		s.Key = k[0]
	}
	if s.Version = int(d.u32()); s.Version != signalsVersion {
		return nil, fmt.Errorf("history cache version %d, want %d", s.Version, signalsVersion)
	}
	s.N = int(d.u32())
	if b := d.strs(); len(b) == 2 {
		s.Sealed, s.Tail = b[0], b[1]
	} else if d.err == nil {
		return nil, errors.New("history cache: no parts")
	}
	s.TailN = int(d.u32())
	s.MaxTime = int64(d.u64())
	s.AvgDL = math.Float64frombits(d.u64())
	s.Terms = d.strs()
	s.Off = d.i32s()
	s.Docs = d.i32s()
	s.TFs = d.u16s()
	s.DL = d.u16s()
	s.Weight = d.f32s()
	s.Files = d.i32s()
	s.ChOff = d.i32s()
	s.ChID = d.i32s()
	s.Names = d.strs()
	s.IDOff = d.i32s()
	s.IDCom = d.i32s()
	s.LivePaths = d.strs()
	s.LiveIDs = d.i32s()
	s.LastPaths = d.strs()
	s.LastIDs = d.i32s()
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errors.New("trailing data in history cache")
	}
	return s, nil
}
