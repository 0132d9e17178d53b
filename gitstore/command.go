package gitstore

import (
	"context"
	"os"
	"os/exec"
)

// MinGitVersion is the oldest git this package runs (Debian 12's): the
// commands it spawns use nothing newer (cat-file --batch-command came in
// 2.36).
const MinGitVersion = "2.39"

// gitEnv is what every git process of this package has in its
// environment, beside the caller's and GIT_DIR:
//
//   - GIT_NO_REPLACE_OBJECTS: objects are read as stored. Replace refs are a
//     local view of history; honouring them in some reads (blobs) and not
//     others (trees) would derive memory from objects that disagree.
//   - GIT_NO_LAZY_FETCH: a partial clone's missing object is an error the
//     caller handles, never a network fetch from inside a read.
//   - KONTEKS_INTERNAL: our own hooks learn that git konteks itself moved a
//     ref (a fetch, a push, an update) and start no background runner to
//     race with the command that did.
var gitEnv = []string{"GIT_NO_REPLACE_OBJECTS=1", "GIT_NO_LAZY_FETCH=1", "KONTEKS_INTERNAL=1"}

// gitCommand is the one way this package runs git: bin with args on the
// repository at gitDir, in the environment above, killed when ctx ends.
// The caller sets stdin, stdout, stderr and the directory.
func gitCommand(ctx context.Context, bin, gitDir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	env := os.Environ()
	env = append(env[:len(env):len(env)], "GIT_DIR="+gitDir)
	cmd.Env = append(env, gitEnv...)
	return cmd
}

// command is gitCommand on r with its git.
func (r *Repo) command(ctx context.Context, args ...string) *exec.Cmd {
	return gitCommand(ctx, r.gitCLI, r.GitDir, args...)
}
