//go:build linux

package gitstore

import "syscall"

// ctimeOf is the status change time of st: a write that kept the time
// (cp -p, touch -r), a chmod, a rename into place change it.
func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
