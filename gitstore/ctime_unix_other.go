//go:build unix && !linux

package gitstore

import "syscall"

func ctimeOf(*syscall.Stat_t) int64 { return 0 }
