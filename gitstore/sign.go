package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Memory commits are signed the way git signs commits with an SSH key
// (gpg.format=ssh): `ssh-keygen -Y sign -n git` over the commit without
// its signature, stored in a gpgsig header. So `git verify-commit` with
// gpg.ssh.allowedSignersFile verifies a memory commit like any other, and
// peers verify it against konteks.trust (see share/trust.go).

// signer signs commit payloads; nil means memory commits are not signed.
type signer struct {
	program string // ssh-keygen or gpg.ssh.program
	key     string // private key file, or a public key file whose private half is in ssh-agent
	err     error  // why signing is on but cannot work (reported on the first commit)
}

// SigningEnabled reports whether memory commits written here are signed:
// konteks.sign=true, or (konteks.sign unset) git's own commit.gpgsign=true
// with gpg.format=ssh and a user.signingkey. konteks.sign=false turns it
// off whatever git's settings are.
func (r *Repo) SigningEnabled() bool { return r.commitSigner() != nil }

func (r *Repo) commitSigner() *signer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.signerRead {
		return r.signer
	}
	r.signerRead = true
	on := false
	switch v := r.ConfigValue("konteks.sign"); {
	case v != "":
		on, _ = ParseBool(v) // a value git does not read as a boolean: off
	default:
		sign, _ := ParseBool(r.ConfigValue("commit.gpgsign"))
		on = sign &&
			strings.EqualFold(r.ConfigValue("gpg.format"), "ssh") &&
			r.ConfigValue("user.signingkey") != ""
	}
	if !on {
		return nil
	}
	s := &signer{program: r.ConfigValue("gpg.ssh.program")}
	if s.program == "" {
		s.program = "ssh-keygen"
	}
	key := r.ConfigValue("konteks.signingkey")
	if key == "" {
		key = r.ConfigValue("user.signingkey")
	}
	switch {
	case key == "":
		s.err = fmt.Errorf("konteks.sign is on but no signing key is set (git config user.signingkey ~/.ssh/id_ed25519.pub, or konteks.sign=false)")
	case strings.HasPrefix(key, "key::") || strings.HasPrefix(key, "ssh-"):
		// A literal public key (its private half in ssh-agent), as git accepts.
		// ssh-keygen wants a file: kept in the state dir, rewritten each time.
		lit := strings.TrimPrefix(key, "key::")
		s.key = filepath.Join(r.CommonDir, "konteks", "signing-key.pub")
		if s.err = os.MkdirAll(filepath.Dir(s.key), 0o755); s.err == nil {
			s.err = os.WriteFile(s.key, []byte(lit+"\n"), 0o644)
		}
	default:
		s.key = ExpandHome(key)
		if !filepath.IsAbs(s.key) && r.WorkTree != "" {
			s.key = filepath.Join(r.WorkTree, s.key)
		}
	}
	r.signer = s
	return s
}

// ExpandHome expands a leading "~/" to the home directory, as git does
// for path-valued settings.
func ExpandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[2:])
		}
	}
	return p
}

// sign returns the armored SSH signature of payload.
func (s *signer) sign(payload []byte) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	cmd := exec.Command(s.program, "-Y", "sign", "-n", "git", "-f", s.key)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sign memory commit with %s (key %s): %w: %s; fix the key or set konteks.sign=false", s.program, s.key, err, strings.TrimSpace(errb.String()))
	}
	sig := strings.TrimSpace(out.String())
	if !strings.HasPrefix(sig, "-----BEGIN SSH SIGNATURE-----") {
		return "", fmt.Errorf("sign memory commit: %s wrote no SSH signature", s.program)
	}
	return sig + "\n", nil
}

// SplitSignature splits a raw commit object into the payload that was
// signed (the commit without its gpgsig header) and the signature (empty
// when the commit is not signed), as git does for verify-commit.
func SplitSignature(raw []byte) (payload []byte, sig string) {
	head, msg, ok := bytes.Cut(raw, []byte("\n\n"))
	if !ok {
		return raw, ""
	}
	var keep bytes.Buffer
	var sb strings.Builder
	in := false
	for _, l := range strings.SplitAfter(string(head)+"\n", "\n") {
		if l == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "gpgsig "):
			in = true
			sb.WriteString(strings.TrimPrefix(l, "gpgsig "))
		case in && strings.HasPrefix(l, " "):
			sb.WriteString(l[1:])
		default:
			in = false
			keep.WriteString(l)
		}
	}
	keep.WriteString("\n")
	keep.Write(msg)
	return keep.Bytes(), sb.String()
}
