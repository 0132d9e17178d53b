package memref

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// ReadParallel reads the records refs name, in order, through one
// long-lived blob reader, and hands each one's stored (compressed) bytes
// to a pool of GOMAXPROCS workers. newWorker makes each worker's function,
// once per worker, so that a worker may keep state of its own (an
// analyzer, a buffer); i indexes refs. A record that is missing or over
// memory.MaxCompressedSize is ErrCorrupt. The first error, the reader's or
// a worker's, cancels the rest and is returned. The index and the graph
// cache build from memory this way.
func ReadParallel(ctx context.Context, repo *gitstore.Repo, refs []RecordRef, newWorker func() func(i int, data []byte) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		i    int
		data []byte
	}
	jobs := make(chan job, 64)
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err })
		cancel()
	}
	reader := repo.NewBlobReader(len(refs))
	defer reader.Close()
	go func() {
		defer close(jobs)
		ids := make([]gitstore.Hash, len(refs))
		for i, r := range refs {
			ids[i] = r.Blob
		}
		i := 0
		err := reader.ReadBlobs(ctx, ids, memory.MaxCompressedSize, func(b gitstore.Blob) error {
			k := i
			i++
			if b.Missing || b.TooLarge {
				return fmt.Errorf("%w: record of %s is missing or too large", ErrCorrupt, refs[k].Path)
			}
			select {
			case jobs <- job{k, b.Data}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err != nil {
			fail(err)
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		work := newWorker()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain: the reader stops at its next record
				}
				if err := work(j.i, j.data); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
