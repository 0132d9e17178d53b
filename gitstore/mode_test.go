package gitstore

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// TestFileModeValues: gitstore's modes are git's (and go-git's) numbers;
// a difference would change the trees memory writes, and their ids.
func TestFileModeValues(t *testing.T) {
	for _, c := range []struct {
		ours   FileMode
		goGit  filemode.FileMode
		listed string
	}{
		{ModeEmpty, filemode.Empty, "0000000"},
		{ModeDir, filemode.Dir, "0040000"},
		{ModeRegular, filemode.Regular, "0100644"},
		{ModeDeprecated, filemode.Deprecated, "0100664"},
		{ModeExecutable, filemode.Executable, "0100755"},
		{ModeSymlink, filemode.Symlink, "0120000"},
		{ModeSubmodule, filemode.Submodule, "0160000"},
	} {
		if uint32(c.ours) != uint32(c.goGit) || c.ours.String() != c.listed || c.ours.IsFile() != c.goGit.IsFile() {
			t.Errorf("mode %s: go-git %s, IsFile %v vs %v", c.ours, c.goGit, c.ours.IsFile(), c.goGit.IsFile())
		}
	}
}
