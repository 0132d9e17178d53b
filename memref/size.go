package memref

import (
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// Size is what memory costs on disk and on the wire, beside the source.
type Size struct {
	// Local is everything reachable from refs/konteks (what a push sends
	// at most); Tip is the current memory tree alone (about what a fresh
	// clone fetches); Tracked is everything reachable from every memory
	// ref, remote copies included.
	Local   Usage `json:"local"`
	Tip     Usage `json:"tip"`
	Tracked Usage `json:"all_memory_refs"`
	Chain   int   `json:"chain"` // commits reachable from refs/konteks
	// Source is the source history reachable from HEAD.
	Source Usage `json:"source"`
	// Ratio is Tracked.Bytes / Source.Bytes.
	Ratio float64 `json:"ratio"`
}

// Usage counts reachable objects and their bytes on disk.
type Usage struct {
	Objects int   `json:"objects"`
	Bytes   int64 `json:"bytes"`
}

// MeasureSize measures memory against the source repository. It walks the
// source's whole history, so it is for `status --size` and `gc`, not for
// every status.
func MeasureSize(repo *gitstore.Repo) (Size, error) {
	var s Size
	tip, err := repo.ReadRef(memory.Ref)
	if err != nil {
		return s, err
	}
	refs := []string{}
	if !tip.IsZero() {
		refs = append(refs, memory.Ref)
		if s.Local.Objects, s.Local.Bytes, err = repo.DiskUsage(memory.Ref); err != nil {
			return s, err
		}
		c, err := repo.Commit(tip)
		if err != nil {
			return s, err
		}
		if s.Tip.Objects, s.Tip.Bytes, err = repo.DiskUsage(c.TreeHash.String()); err != nil {
			return s, err
		}
		if s.Chain, err = repo.CountCommits(memory.Ref); err != nil {
			return s, err
		}
	}
	_, names, err := repo.RefsWithPrefix(TrackingPrefix)
	if err != nil {
		return s, err
	}
	refs = append(refs, names...)
	if s.Tracked.Objects, s.Tracked.Bytes, err = repo.DiskUsage(refs...); err != nil {
		return s, err
	}
	if _, err := repo.Resolve("HEAD"); err == nil {
		if s.Source.Objects, s.Source.Bytes, err = repo.DiskUsage("HEAD"); err != nil {
			return s, err
		}
	}
	if s.Source.Bytes > 0 {
		s.Ratio = float64(s.Tracked.Bytes) / float64(s.Source.Bytes)
	}
	return s, nil
}
