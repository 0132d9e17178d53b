package share

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Derived memory (files/, dirs/, modules/, project.json, graph/, history/)
// is text an agent reads as if it came from the code. A peer can publish
// any text under any path, so derived memory from a peer is adopted only
// when its memory commit is signed (gitstore/sign.go) by a key listed in
// konteks.trust, an allowed-signers file in ssh-keygen's format (the
// format of git's gpg.ssh.allowedSignersFile). Otherwise the merge keeps
// ours (or none) and the next extraction derives memory locally. Durable
// entries are merged from anyone: they are shown with their author.

// TrustKey is the git config key naming the allowed-signers file.
const TrustKey = "konteks.trust"

// Trust is what a peer memory commit's signature proves.
type Trust struct {
	Trusted   bool   `json:"trusted"`
	Principal string `json:"principal,omitempty"` // the signer, as konteks.trust names it
	Reason    string `json:"reason,omitempty"`    // why not trusted
}

// TrustFile is the allowed-signers file konteks.trust names ("" when
// unset), with ~ expanded and a relative path taken from the top of the
// work tree.
func TrustFile(repo *gitstore.Repo) string {
	p := repo.ConfigValue(TrustKey)
	if p == "" {
		return ""
	}
	p = gitstore.ExpandHome(p)
	if !filepath.IsAbs(p) {
		base := repo.WorkTree
		if base == "" {
			base = repo.CommonDir
		}
		p = filepath.Join(base, p)
	}
	return p
}

// CheckTrust verifies the signature of memory commit h against
// konteks.trust with ssh-keygen (find-principals, then verify in the
// "git" namespace), as `git verify-commit` does.
func CheckTrust(repo *gitstore.Repo, h gitstore.Hash) Trust {
	allowed := TrustFile(repo)
	if allowed == "" {
		return Trust{Reason: "no trusted signers are configured (" + TrustKey + ")"}
	}
	if _, err := os.Stat(allowed); err != nil {
		return Trust{Reason: fmt.Sprintf("%s names %s, which cannot be read: %v", TrustKey, allowed, err)}
	}
	typ, raw, err := repo.RawObject(h, 1<<20)
	if err != nil || typ != "commit" {
		return Trust{Reason: fmt.Sprintf("memory commit %.12s cannot be read: %v", h, err)}
	}
	payload, sig := gitstore.SplitSignature(raw)
	if sig == "" {
		return Trust{Reason: "not signed"}
	}
	if !strings.HasPrefix(sig, "-----BEGIN SSH SIGNATURE-----") {
		return Trust{Reason: "signed, but not with an SSH key"}
	}
	f, err := os.CreateTemp("", "konteks-sig-*")
	if err != nil {
		return Trust{Reason: err.Error()}
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(sig)
	f.Close()
	if err != nil {
		return Trust{Reason: err.Error()}
	}
	prog := repo.ConfigValue("gpg.ssh.program")
	if prog == "" {
		prog = "ssh-keygen"
	}
	out, err := run(prog, nil, "-Y", "find-principals", "-f", allowed, "-s", f.Name())
	if err != nil {
		return Trust{Reason: "signed by a key not listed in " + TrustKey}
	}
	for _, principal := range strings.Fields(out) {
		if _, err := run(prog, payload, "-Y", "verify", "-f", allowed, "-I", principal, "-n", "git", "-s", f.Name()); err == nil {
			return Trust{Trusted: true, Principal: principal}
		}
	}
	return Trust{Reason: "its signature does not verify against " + TrustKey}
}

func run(prog string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command(prog, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", prog, args[1], err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// trustDerived settles whose derived memory a merge keeps: chooseDerived's
// "theirs" stands only when their memory commit is trusted; otherwise
// ours (or none) is kept and a note says so.
func trustDerived(repo *gitstore.Repo, side string, om, tm *memref.Memory, source string) (string, Trust, []string) {
	if side != "theirs" {
		return side, Trust{}, nil
	}
	tr := CheckTrust(repo, tm.Commit)
	if tr.Trusted {
		return side, tr, nil
	}
	side, kept := "ours", "kept ours"
	if !om.Derived() {
		side, kept = "none", "kept none"
	}
	return side, tr, []string{fmt.Sprintf("derived memory from %s is not signed by a trusted signer (%s: %s): %s; the next extraction re-derives it locally",
		source, TrustKey, tr.Reason, kept)}
}

// screenDurable adds to theirs' durable tree (td) this clone's declines
// of the tombstones durable.ScreenPeer does not accept, writing and
// flushing the new tree; the tombstones themselves stay (durable.go says
// why). A tombstone by the signer of a trusted memory commit is vouched
// for.
func screenDurable(repo *gitstore.Repo, oursTree, theirsTree, td gitstore.Hash, tr Trust, theirs gitstore.Hash, source string) (gitstore.Hash, durable.Screened, error) {
	vouched := func(author string) bool {
		if !tr.Trusted && tr.Reason == "" {
			tr = CheckTrust(repo, theirs) // not asked yet: derived memory was not theirs
		}
		return tr.Trusted && durable.SameAuthor(author, "<"+tr.Principal+">")
	}
	s, err := durable.ScreenPeer(repo, oursTree, theirsTree, durable.LocalAuthor(repo), source, vouched)
	if err != nil || len(s.Declines) == 0 {
		return td, s, err
	}
	w := repo.NewWriter()
	ed := repo.NewTreeEditor(td)
	for _, d := range s.Declines {
		h, err := w.Blob(s.Files[d.Path])
		if err != nil {
			return td, s, err
		}
		if err := ed.Set(strings.TrimPrefix(d.Path, memory.DurableDir+"/"), gitstore.ModeRegular, h); err != nil {
			return td, s, err
		}
	}
	h, err := ed.Write(w)
	if err != nil {
		return td, s, err
	}
	return h, s, w.Flush()
}
