package gitstore

import (
	"container/heap"
	"strings"
)

// MaxWalk bounds the commits Distance visits by default.
const MaxWalk = 5000

// Distance is how commit to relates to commit from: how HEAD relates to
// the commit memory describes.
type Distance struct {
	// Ahead counts the commits reachable from to but not from from;
	// Behind those reachable from from but not from to, like
	// `git rev-list --left-right --count to...from`.
	Ahead, Behind int
	// Ancestor is true when from is an ancestor of (or equal to) to.
	Ancestor bool
	// Approximate marks counts the walk stopped short of: the commit
	// bound, or a parent missing from a shallow clone.
	Approximate bool
}

// Distance counts the commits between from (the commit memory describes)
// and to (HEAD), visiting at most max commits (MaxWalk when max <= 0).
//
// It is git's paint walk: commits are visited newest first, each carries
// the sides it is reachable from, and the walk ends once every commit left
// to visit is reachable from both. Commit dates are not trusted to be
// strictly ordered (a rebase gives many commits the same second, clocks
// skew): a commit whose sides grow after its visit is visited again, so
// they reach its ancestors, and the walk goes on through commits reachable
// from both sides as long as they are not older than a commit counted for
// one side (one of them could be its descendant).
func (r *Repo) Distance(from, to Hash, max int) (Distance, error) {
	if max <= 0 {
		max = MaxWalk
	}
	var d Distance
	if from == to {
		d.Ancestor = true
		return d, nil
	}
	const fromA, fromB, both = 1, 2, 3 // A: to, B: from
	flags := map[Hash]uint8{}
	loaded := map[Hash]queued{}
	q := &commitQueue{}
	single := 0 // queued commits reachable from one side only
	mark := func(h Hash, f uint8) error {
		old, seen := flags[h]
		nf := old | f
		if seen && nf == old {
			return nil
		}
		c, ok := loaded[h]
		if !ok {
			cm, err := r.commit(h)
			if err != nil {
				return err
			}
			c = queued{h: h, when: cm.Committer.When.Unix(), parents: cm.ParentHashes}
			loaded[h] = c
		}
		flags[h] = nf
		if q.has(h) {
			if old != both && nf == both {
				single--
			}
			return nil
		}
		heap.Push(q, c)
		if nf != both {
			single++
		}
		return nil
	}
	if err := mark(to, fromA); err != nil {
		return d, err
	}
	if err := mark(from, fromB); err != nil {
		return d, err
	}
	visited := map[Hash]bool{}
	oldestSingle := int64(1<<63 - 1) // date of the oldest commit visited for one side
	for n := 0; q.Len() > 0; n++ {
		if single == 0 && q.items[0].when < oldestSingle {
			break
		}
		if n == max {
			d.Approximate = true
			break
		}
		c := heap.Pop(q).(queued)
		f := flags[c.h]
		if f != both {
			single--
			oldestSingle = min(oldestSingle, c.when)
		}
		visited[c.h] = true
		for _, p := range c.parents {
			if err := mark(p, f); err != nil {
				// A missing parent (shallow clone): count what we can.
				d.Approximate = true
			}
		}
	}
	for h := range visited {
		switch flags[h] {
		case fromA:
			d.Ahead++
		case fromB:
			d.Behind++
		}
	}
	d.Ancestor = flags[from]&fromA != 0
	return d, nil
}

type queued struct {
	h       Hash
	when    int64
	parents []Hash
}

// commitQueue is a max-heap by commit time (newest first), ties broken by
// id so the walk is deterministic.
type commitQueue struct {
	items []queued
	in    map[Hash]bool
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	if q.items[i].when != q.items[j].when {
		return q.items[i].when > q.items[j].when
	}
	return strings.Compare(q.items[i].h.String(), q.items[j].h.String()) < 0
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any) {
	if q.in == nil {
		q.in = map[Hash]bool{}
	}
	it := x.(queued)
	q.in[it.h] = true
	q.items = append(q.items, it)
}
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	delete(q.in, it.h)
	return it
}
func (q *commitQueue) has(h Hash) bool { return q.in[h] }
