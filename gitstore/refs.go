package gitstore

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// RefsWithPrefix lists the direct (non-symbolic) refs whose names start
// with prefix, sorted by name, with the commits they point at.
func (r *Repo) RefsWithPrefix(prefix string) (map[string]Hash, []string, error) {
	it, err := r.storage.IterReferences()
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	refs := map[string]Hash{}
	var names []string
	err = it.ForEach(func(ref *plumbing.Reference) error {
		n := ref.Name().String()
		if ref.Type() != plumbing.HashReference || !strings.HasPrefix(n, prefix) {
			return nil
		}
		refs[n] = ref.Hash()
		names = append(names, n)
		return nil
	})
	sort.Strings(names)
	return refs, names, err
}
