package share

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// What a peer's memory may cost to check, on every path by which it
// enters (`git konteks fetch`/`sync`, and a plain `git fetch` whose
// refs/konteks-remotes/* the hooks merge). Variables so tests can lower
// them.
var (
	// MaxObjectSize bounds any one object a peer sends (a record is at
	// most memory.MaxCompressedSize stored, a tree far less).
	MaxObjectSize int64 = memory.MaxRecordSize
	// MaxNewBytes bounds the inflated size of all objects new to us.
	MaxNewBytes int64 = 4 << 30
	// MaxNewObjects bounds how many objects are new to us.
	MaxNewObjects = 4_000_000
	// MaxDecoded bounds the bytes decompressed reading the peer's records
	// (each new record blob once, however many paths name it), beyond
	// DecodedPerByte times their stored size.
	MaxDecoded int64 = 128 << 20
	// DecodedPerByte is the compression ratio a peer's records may use up
	// to before the budget counts against them: zstd on records is 4-10x.
	DecodedPerByte int64 = 16
	// CheckTimeout bounds the time one peer's memory may take to check.
	CheckTimeout = 60 * time.Second
)

// verifyPeer runs what `git fsck` would on every object of theirs that
// local memory does not have (bad names such as .git or .., bad modes,
// unsorted or duplicate entries, malformed commits), within size and count
// bounds, then checks that what would be merged decodes: durable entries
// always, history and records only when their derived memory is to be
// adopted (adoptDerived), under a decompression budget and a deadline.
// With opt.Index set and no records of ours, their records are checked
// by building the search index from them (see Indexer).
func verifyPeer(repo *gitstore.Repo, ours gitstore.Hash, oursTree gitstore.Hash, tm *memref.Memory, adoptDerived bool, opt FetchOptions) error {
	ctx, cancel := context.WithTimeout(context.Background(), CheckTimeout)
	defer cancel()
	if err := checkObjects(ctx, repo, tm.Commit, ours); err != nil {
		return err
	}
	if _, err := repo.CountTree(tm.Tree, MaxTreeEntries); err != nil {
		return err
	}
	if _, bad, err := durable.Load(repo, tm.Tree); err != nil {
		return err
	} else if len(bad) > 0 {
		return fmt.Errorf("broken durable entries: %s", strings.Join(bad, "; "))
	}
	if !adoptDerived {
		return nil // their records are not read: nothing of them is kept
	}
	// Their history: every segment, the tail and the state decode within
	// limits, with valid hashes and paths.
	if err := history.CheckProgress(repo, tm.Tree, opt.HistoryProgress); err != nil {
		return err
	}
	changes, err := memref.DiffRecords(repo, oursTree, tm.Tree)
	if err != nil {
		return err
	}
	stored := int64(0)
	for _, c := range changes {
		if !c.New.IsZero() {
			if o, err := repo.RawObjectSize(c.New); err == nil {
				stored += o
			}
		}
	}
	limit := MaxDecoded + DecodedPerByte*stored
	if ix := opt.Index; ix != nil && !hasRecords(repo, oursTree) {
		// Every record of theirs is new here, and the index built from
		// them decodes each one (once for each path, each charged): it
		// is the check, and the records are decoded once, not once to
		// check and again to index. Its budget has no deadline: the
		// bytes bound the work, a large tree's index takes longer than
		// CheckTimeout on a slow machine, and the fetch would build the
		// same index right after adopting anyway.
		err := ix(tm, memref.NewBudget(context.Background(), limit))
		if err == nil || errors.Is(err, memref.ErrCorrupt) {
			return err
		}
		// Anything else (a full disk, the index's lock) is not theirs:
		// the records are checked as without an index, within a
		// deadline of their own. The index's time, unbounded, is not
		// theirs either: charged to this check's deadline, a build that
		// failed late would have their good memory refused, and the
		// refusal remembered.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), CheckTimeout)
		defer cancel()
	}
	budget := memref.NewBudget(ctx, limit)
	for _, c := range changes {
		if c.New.IsZero() {
			continue
		}
		if err := memref.DecodeRecordWithin(budget, repo, c.New, c.Path); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// hasRecords reports whether the memory tree holds records (a memory of
// durable entries alone, or none, holds none; nor does an empty files
// directory). Lookup's error says only whether the tree could be read,
// not whether the directory is there: a tree that cannot be read is
// taken to hold records, so that theirs are decoded as before.
func hasRecords(repo *gitstore.Repo, tree gitstore.Hash) bool {
	if tree.IsZero() {
		return false
	}
	files, err := repo.Subtree(tree, memory.FilesDir)
	if err != nil {
		return true
	}
	if files.IsZero() {
		return false
	}
	t, err := repo.Tree(files)
	return err != nil || len(t.Entries) > 0
}

// checkObjects checks every commit and tree reachable from theirs and not
// from ours, and the sizes of every such object, without reading a blob.
func checkObjects(ctx context.Context, repo *gitstore.Repo, theirs, ours gitstore.Hash) error {
	var total int64
	n := 0
	var trees, commits []gitstore.Hash
	err := repo.NewObjects(ctx, []gitstore.Hash{theirs}, []gitstore.Hash{ours}, func(o gitstore.ObjectInfo) error {
		n++
		total += o.Size
		switch {
		case n > MaxNewObjects:
			return fmt.Errorf("more than %d new objects", MaxNewObjects)
		case total > MaxNewBytes:
			return fmt.Errorf("new objects total more than %d bytes", MaxNewBytes)
		case o.Size > MaxObjectSize:
			return fmt.Errorf("%s %s is %d bytes, over the %d byte limit", o.Type, o.Hash, o.Size, MaxObjectSize)
		}
		switch o.Type {
		case "tree":
			trees = append(trees, o.Hash)
		case "commit":
			commits = append(commits, o.Hash)
		case "blob":
		default:
			return fmt.Errorf("unexpected %s object %s", o.Type, o.Hash)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, h := range commits {
		if err := checkObject(ctx, repo, h, "commit", checkCommit); err != nil {
			return err
		}
	}
	for _, h := range trees {
		if err := checkObject(ctx, repo, h, "tree", checkTree); err != nil {
			return err
		}
	}
	return nil
}

func checkObject(ctx context.Context, repo *gitstore.Repo, h gitstore.Hash, typ string, check func([]byte) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("checking took too long: %w", err)
	}
	_, data, err := repo.RawObject(h, MaxObjectSize)
	if err != nil {
		return err
	}
	if err := check(data); err != nil {
		return fmt.Errorf("%s %s: %w", typ, h, err)
	}
	return nil
}

// Tree entry modes memory may hold: files and directories. (git's fsck
// also accepts executables, symlinks and gitlinks; no memory writer
// makes them, and a checkout of a memory tree must never make one.)
var memoryModes = map[string]bool{"40000": true, "100644": true}

// checkTree checks a raw tree object as git's fsck does (and stricter):
// every entry has a known mode written without padding, a name that is
// not empty, ".", "..", contains no "/" or NUL, and is not ".git" in any
// spelling a filesystem would treat as it; entries are sorted and unique;
// no entry names the null object.
func checkTree(data []byte) error {
	var prev string
	prevDir, first := false, true
	return gitstore.RawEntries(data, func(m []byte, name string, id gitstore.Hash) error {
		mode := string(m)
		if !memoryModes[mode] {
			return fmt.Errorf("entry %q has mode %q (memory holds only files, 100644, and directories, 40000)", name, mode)
		}
		if err := checkName(name); err != nil {
			return err
		}
		if id.IsZero() {
			return fmt.Errorf("entry %q names the null object", name)
		}
		dir := mode == "40000"
		if !first {
			switch c := gitstore.CompareEntries(prev, prevDir, name, dir); {
			case c == 0 || prev == name:
				return fmt.Errorf("duplicate entry %q", name)
			case c > 0:
				return fmt.Errorf("entries not sorted (%q after %q)", name, prev)
			}
		}
		prev, prevDir, first = name, dir, false
		return nil
	})
}

// checkName refuses a tree entry name that git's fsck refuses, or that a
// checkout on some filesystem would turn into ".git" or a parent.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty entry name")
	case name == "." || name == "..":
		return fmt.Errorf("entry %q", name)
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("entry name %q holds a path separator", name)
	case isDotGit(name):
		return fmt.Errorf("entry %q would be read as .git (a repository's own directory): refused as git's fsck and hosting sites refuse it", name)
	}
	return nil
}

// isDotGit reports whether a name is ".git" as git's fsck sees it: in any
// case; on HFS+ with ignorable code points anywhere (".g\u200cit"); on NTFS
// followed by dots or spaces, an alternate stream (".git::$INDEX_ALLOCATION")
// or as the short name "git~1".
func isDotGit(name string) bool {
	if isHFSDotGit(name) {
		return true
	}
	var rest string
	switch {
	case len(name) >= 4 && strings.EqualFold(name[:4], ".git"):
		rest = name[4:]
	case len(name) >= 5 && strings.EqualFold(name[:5], "git~1"):
		rest = name[5:]
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case ':', '\\':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

// isHFSDotGit compares name with ".git" case-insensitively, skipping the
// code points HFS+ ignores (git's is_hfs_dotgit).
func isHFSDotGit(name string) bool {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			continue
		case r == utf8.RuneError:
			return false
		}
		if b.Len() > 4 {
			return false
		}
		b.WriteRune(r)
	}
	return strings.EqualFold(b.String(), ".git")
}

// checkCommit checks a raw commit object's headers as git's fsck does:
// "tree", then "parent"s, then "author" and "committer" with well-formed
// identities.
func checkCommit(data []byte) error {
	head, _, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		head = data
		if !bytes.HasSuffix(head, []byte("\n")) {
			return errors.New("unterminated header")
		}
	}
	lines := strings.Split(string(head), "\n")
	i := 0
	next := func(key string) (string, bool) {
		if i < len(lines) && strings.HasPrefix(lines[i], key+" ") {
			i++
			return lines[i-1][len(key)+1:], true
		}
		return "", false
	}
	t, ok := next("tree")
	if !ok || gitstore.ParseHash(t).IsZero() {
		return errors.New("bad or missing tree line")
	}
	for {
		p, ok := next("parent")
		if !ok {
			break
		}
		if gitstore.ParseHash(p).IsZero() {
			return fmt.Errorf("bad parent %q", p)
		}
	}
	for _, k := range []string{"author", "committer"} {
		id, ok := next(k)
		if !ok {
			return fmt.Errorf("missing %s", k)
		}
		if err := checkIdent(id); err != nil {
			return fmt.Errorf("bad %s: %w", k, err)
		}
	}
	return nil
}

// checkIdent checks "Name <email> 1700000000 +0000" (git's fsck_ident).
func checkIdent(id string) error {
	lt := strings.IndexByte(id, '<')
	gt := strings.IndexByte(id, '>')
	switch {
	case lt < 0 || gt < lt:
		return errors.New("no <email>")
	case lt == 0:
		return errors.New("no name before the email")
	case strings.ContainsAny(id[:lt], ">"):
		return errors.New("bad name")
	case strings.ContainsAny(id[lt+1:gt], "<"):
		return errors.New("bad email")
	case lt > 0 && id[lt-1] != ' ':
		return errors.New("no space before email")
	}
	rest := id[gt+1:]
	if !strings.HasPrefix(rest, " ") {
		return errors.New("no date")
	}
	f := strings.Split(rest[1:], " ")
	if len(f) != 2 {
		return errors.New("bad date")
	}
	if f[0] == "" || (len(f[0]) > 1 && f[0][0] == '0') {
		return errors.New("bad date")
	}
	if _, err := strconv.ParseUint(f[0], 10, 64); err != nil {
		return errors.New("bad date")
	}
	tz := f[1]
	if len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') || strings.Trim(tz[1:], "0123456789") != "" {
		return errors.New("bad timezone")
	}
	return nil
}

// ErrRefused marks a peer's memory that was refused before and is
// skipped until the remote's memory moves.
var ErrRefused = errors.New("refused before")

func refusedFile(repo *gitstore.Repo, remote string) (string, error) {
	dir, err := repo.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "refused", strings.NewReplacer("/", "%2F", "%", "%25").Replace(remote)), nil
}

// checkRefused returns an error when theirs is a tip of remote refused
// before: it costs a file read, not another attempt.
func checkRefused(repo *gitstore.Repo, remote string, theirs gitstore.Hash) error {
	p, err := refusedFile(repo, remote)
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	h, reason, _ := strings.Cut(string(b), "\n")
	if gitstore.ParseHash(strings.TrimSpace(h)) != theirs {
		return nil
	}
	return fmt.Errorf("memory from %s (%.12s): %w: %w: %s; %s", remote, theirs, ErrInvalid, ErrRefused, strings.TrimSpace(reason), dropHint(remote))
}

// refuse remembers that theirs from remote failed its checks, so later
// merges (every hook pass) skip it until the remote's memory moves, and
// returns the error to report.
func refuse(repo *gitstore.Repo, remote string, theirs gitstore.Hash, cause error) error {
	if p, err := refusedFile(repo, remote); err == nil {
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			os.WriteFile(p, []byte(theirs.String()+"\n"+oneLine(cause.Error())+"\n"), 0o644)
		}
	}
	return fmt.Errorf("memory from %s (%.12s): %w: %v; nothing was merged, and it is skipped until %s's memory changes; %s", remote, theirs, ErrInvalid, cause, remote, dropHint(remote))
}

func dropHint(remote string) string {
	return fmt.Sprintf("to drop it run `git konteks fetch --forget-remote %s` (or `git update-ref -d %s`)", remote, TrackingRef(remote))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 2000 {
		s = s[:2000]
	}
	return s
}

// ForgetRemote drops what is kept locally of a remote's memory: its
// tracking ref refs/konteks-remotes/<remote> and the note that its tip was
// refused. Local memory is untouched; the next fetch brings the remote's
// memory again (and checks it again).
func ForgetRemote(repo *gitstore.Repo, remote string) error {
	ref := TrackingRef(remote)
	h, err := repo.ReadRef(ref)
	if err != nil {
		return err
	}
	if !h.IsZero() {
		if err := repo.UpdateRef(ref, gitstore.ZeroHash, h, "konteks: forget remote memory"); err != nil {
			return err
		}
	}
	if p, err := refusedFile(repo, remote); err == nil {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
