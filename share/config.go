package share

import (
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
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
		if dst := specDst(s); dst != "" && refMatches(dst, memory.Ref) {
			return false, fmt.Errorf("remote %s has fetch refspec %q, which writes refs/konteks directly%s: a fetch would replace local memory with the remote's and lose memories saved here; remove it (git config --unset remote.%s.fetch %q) and run init again",
				remote, s, forced(s), remote, regexQuote(s))
		}
	}
	if have {
		return false, nil
	}
	return true, repo.AddFetchSpec(remote, want)
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
