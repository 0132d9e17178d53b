//go:build unix

package gitstore

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so a Ctrl-C on the
// terminal reaches git-konteks alone: it cancels its work and closes the
// git processes it started, instead of their dying under it and their
// broken pipes being reported as the error ("git cat-file: unexpected EOF").
// Only the readers of the object database (cat-file, log, blame) get one:
// a command that may talk to a remote stays in the terminal's foreground
// group, where it can ask for a password on /dev/tty.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// fileID names the file fi describes (device and inode) and its last
// change of status (ctime): a file replaced by rename, as git replaces its
// config, has another inode; one rewritten in place with its time set
// back (cp -p, touch -r) or made readable has another ctime.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10) + ":" + strconv.FormatInt(ctimeOf(st), 10)
	}
	return ""
}
