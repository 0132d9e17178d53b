// Package memtest makes memory for the tests of the packages that read
// it (recall, index, graph, memref, memory): a real extraction of a test
// repository, as `git konteks extract` makes it.
package memtest

import (
	"context"
	"testing"

	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
)

// Extract runs an extraction with the default options on the repository
// in dir at HEAD and returns the repository, opened.
func Extract(t testing.TB, dir string) *gitstore.Repo {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extract.Run(context.Background(), repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	return repo
}
