//go:build !unix

package gitstore

import (
	"os"
	"os/exec"
)

// ownGroup is a no-op where process groups do not exist.
func ownGroup(cmd *exec.Cmd) {}

// fileID names the file fi describes; here, by nothing more than its
// size and time.
func fileID(os.FileInfo) string { return "" }
