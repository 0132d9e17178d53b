package gitstore

import "github.com/go-git/go-git/v5/plumbing/filemode"

// FileMode is the mode of a tree entry, the octal number git writes before
// its name in a tree object. It is gitstore's own type so that callers can
// name modes without importing go-git; its values are git's, and equal to
// go-git's, so a conversion at the boundary costs nothing and writes the
// same trees (and ids) as before.
type FileMode uint32

// The modes git stores. Memory writes ModeRegular for records and ModeDir
// for directories; the others appear in source trees.
const (
	ModeEmpty      FileMode = 0        // no entry
	ModeDir        FileMode = 0o040000 // a subtree
	ModeRegular    FileMode = 0o100644 // an ordinary file
	ModeDeprecated FileMode = 0o100664 // a group-writable file, as very old git wrote them
	ModeExecutable FileMode = 0o100755 // an executable file
	ModeSymlink    FileMode = 0o120000 // a symbolic link (the blob holds its target)
	ModeSubmodule  FileMode = 0o160000 // a gitlink: a commit of another repository
)

// IsFile reports whether m is a blob git checks out as a file: regular,
// executable, deprecated or a symlink (as go-git's FileMode.IsFile).
func (m FileMode) IsFile() bool {
	return m == ModeRegular || m == ModeDeprecated || m == ModeExecutable || m == ModeSymlink
}

// String is the mode as git prints it in ls-tree: seven octal digits.
func (m FileMode) String() string { return filemode.FileMode(m).String() }
