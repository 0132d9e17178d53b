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
	// Ratio is Tracked.Bytes / Source.Bytes (0 when either is unmeasured).
	Ratio float64 `json:"ratio"`
	// Unmeasured says which of the figures above could not be measured,
	// and why (an object missing from a partial or damaged clone): the
	// others are still reported.
	Unmeasured map[string]string `json:"unmeasured,omitempty"`
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
	// One missing object (a historic blob a partial clone never had) costs
	// the figure that walks past it, not the others.
	miss := func(what string, err error) {
		if s.Unmeasured == nil {
			s.Unmeasured = map[string]string{}
		}
		s.Unmeasured[what] = err.Error()
	}
	refs := []string{}
	if !tip.IsZero() {
		refs = append(refs, memory.Ref)
		if s.Local.Objects, s.Local.Bytes, err = repo.DiskUsage(memory.Ref); err != nil {
			miss("local", err)
		}
		if c, err := repo.Commit(tip); err != nil {
			miss("tip", err)
		} else if s.Tip.Objects, s.Tip.Bytes, err = repo.DiskUsage(c.TreeHash.String()); err != nil {
			miss("tip", err)
		}
		if s.Chain, err = repo.CountCommits(memory.Ref); err != nil {
			miss("chain", err)
		}
	}
	_, names, err := repo.RefsWithPrefix(TrackingPrefix)
	if err != nil {
		return s, err
	}
	refs = append(refs, names...)
	if s.Tracked.Objects, s.Tracked.Bytes, err = repo.DiskUsage(refs...); err != nil {
		miss("all_memory_refs", err)
	}
	if _, err := repo.Resolve("HEAD"); err == nil {
		if s.Source.Objects, s.Source.Bytes, err = repo.DiskUsage("HEAD"); err != nil {
			miss("source", err)
		}
	}
	if s.Source.Bytes > 0 && s.Unmeasured["source"] == "" && s.Unmeasured["all_memory_refs"] == "" {
		s.Ratio = float64(s.Tracked.Bytes) / float64(s.Source.Bytes)
	}
	return s, nil
}
