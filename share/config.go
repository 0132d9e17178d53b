package share

import (
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/memory"
)

// ConfigureRemote adds FetchSpec to a remote so that a plain `git fetch`
// brings its memory into refs/konteks-remotes/<remote>. It refuses a remote
// whose configuration would write refs/konteks itself (a mirror, or a fetch
// refspec whose destination covers refs/konteks): every fetch would then
// replace local memory with the remote's, losing what was saved here and
// not pushed yet. added is false when the refspec was already there.
func ConfigureRemote(repo *gitstore.Repo, remote string) (added bool, err error) {
	specs, mirror, err := repo.RemoteFetchSpecs(remote)
	if err != nil {
		return false, err
	}
	if mirror {
		return false, fmt.Errorf("remote %s is a mirror (remote.%s.mirror=true): every fetch would overwrite refs/konteks with its memory and lose memories saved here; git konteks does not share memory with it", remote, remote)
	}
	want := FetchSpec(remote)
	have := false
	for _, s := range specs {
		if s == want {
			have = true
			continue
		}
		if s == legacyFetchSpec(remote) {
			continue // replaced by migrateRemote below
		}
		if dst := specDst(s); dst != "" && refMatches(dst, memory.Ref) {
			return false, fmt.Errorf("remote %s has fetch refspec %q, which writes refs/konteks directly%s: a fetch would replace local memory with the remote's and lose memories saved here; remove it (git config --unset remote.%s.fetch %q) and run init again",
				remote, s, forced(s), remote, regexQuote(s))
		}
	}
	if _, err := migrateRemote(repo, remote, specs); err != nil {
		return false, err
	}
	if have {
		return false, nil
	}
	return true, repo.AddFetchSpec(remote, want)
}

// migrateRemote carries a remote set up by format 1 over: the legacy
// tracking ref's memory is merged into ours (nothing a teammate pushed is
// lost), then the ref is deleted (it would clash, as a file, with the
// directory refs/konteks-remotes/<remote>/ of format 2), and the legacy
// refspec, which made `git fetch` fail on a remote without memory, is
// removed (the caller adds FetchSpec). legacy reports that it was there.
func migrateRemote(repo *gitstore.Repo, remote string, specs []string) (legacy bool, err error) {
	for _, s := range specs {
		if s == legacyFetchSpec(remote) {
			legacy = true
		}
	}
	old := legacyTrackingRef(remote)
	if h, err := repo.ReadRef(old); err == nil && !h.IsZero() {
		if _, err := Merge(repo, h, remote); err != nil {
			return legacy, fmt.Errorf("carry over memory of %s from %s: %w", remote, old, err)
		}
		killpoint.At("migrate-merged")
		if err := repo.UpdateRef(old, gitstore.ZeroHash, h, "konteks: memory format 2 tracks "+TrackingRef(remote)); err != nil {
			return legacy, err
		}
	}
	if !legacy {
		return false, nil
	}
	killpoint.At("migrate-dropped")
	if err := repo.RemoveFetchSpec(remote, legacyFetchSpec(remote)); err != nil {
		return true, fmt.Errorf("remove the old memory refspec of %s: %w", remote, err)
	}
	return true, nil
}

// MigrateRemotes moves every remote configured by format 1 to FetchSpec,
// so an upgraded tool mends `git fetch` without anyone running init again.
// Remotes that were never set up for sharing are left alone.
func MigrateRemotes(repo *gitstore.Repo) error {
	remotes, err := repo.Remotes()
	if err != nil {
		return err
	}
	for _, rm := range remotes {
		specs, _, err := repo.RemoteFetchSpecs(rm)
		if err != nil {
			continue
		}
		legacy, err := migrateRemote(repo, rm, specs)
		if err != nil {
			return err
		}
		if legacy && !contains(specs, FetchSpec(rm)) {
			if err := repo.AddFetchSpec(rm, FetchSpec(rm)); err != nil {
				return err
			}
		}
	}
	return nil
}

func specDst(spec string) string {
	spec = strings.TrimPrefix(spec, "+")
	if i := strings.LastIndexByte(spec, ':'); i >= 0 {
		return spec[i+1:]
	}
	return ""
}

func forced(spec string) string {
	if strings.HasPrefix(spec, "+") {
		return " and is forced"
	}
	return ""
}

// refMatches matches a refspec side with at most one '*' against a ref.
func refMatches(pattern, ref string) bool {
	i := strings.IndexByte(pattern, '*')
	if i < 0 {
		return pattern == ref
	}
	pre, post := pattern[:i], pattern[i+1:]
	return len(ref) >= len(pre)+len(post) && strings.HasPrefix(ref, pre) && strings.HasSuffix(ref, post)
}

func regexQuote(s string) string {
	r := strings.NewReplacer("*", `\*`, "+", `\+`, ".", `\.`)
	return "^" + r.Replace(s) + "$"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
