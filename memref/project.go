package memref

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// Project reads the portrait of a memory tree.
func Project(repo *gitstore.Repo, tree gitstore.Hash) (*memory.Project, error) {
	var p memory.Project
	if err := readMapJSON(repo, tree, memory.ProjectPath, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Modules reads the module artifacts of a memory tree, largest first.
func Modules(repo *gitstore.Repo, tree gitstore.Hash) ([]memory.Module, error) {
	h, err := repo.Subtree(tree, memory.ModulesDir)
	if err != nil || h.IsZero() {
		return nil, err
	}
	var mods []memory.Module
	err = repo.WalkTree(h, nil, func(e gitstore.Entry) error {
		var m memory.Module
		if err := readMapJSON(repo, tree, memory.ModulesDir+"/"+e.Path, &m); err != nil {
			return err
		}
		mods = append(mods, m)
		return nil
	})
	sort.Slice(mods, func(i, j int) bool {
		return mods[i].Files > mods[j].Files || mods[i].Files == mods[j].Files && mods[i].Name < mods[j].Name
	})
	return mods, err
}

// readMapJSON reads one JSON artifact of the project map, bounded.
func readMapJSON(repo *gitstore.Repo, tree gitstore.Hash, p string, v any) error {
	h, _, ok, err := repo.Lookup(tree, p)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("memory has no %s yet: run `git konteks extract`", p)
	}
	b, err := repo.BlobBytes(h, 4<<20)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("corrupt %s: %v; `git konteks extract --mode rebuild` rebuilds it", p, err)
	}
	return nil
}
