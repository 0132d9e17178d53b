//go:build !linux

package gitstore

import (
	"io"
	"os/exec"
)

// startPiped starts cmd with its standard output on a pipe and returns
// the pipe's reader; the caller closes it after cmd.Wait (closing it
// twice is harmless).
func startPiped(cmd *exec.Cmd) (io.ReadCloser, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return out, nil
}
