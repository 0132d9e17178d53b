//go:build !unix

package gitstore

import "os/exec"

// ownGroup is a no-op where process groups do not exist.
func ownGroup(cmd *exec.Cmd) {}
