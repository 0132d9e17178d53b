package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Lock is an exclusive, process-wide lock on a file in the state dir. It
// uses flock(2), so a lock held by a process that died (even by kill -9) is
// released by the kernel: there is no stale lock to clean up by hand.
type Lock struct {
	f *os.File
}

// ErrLocked is returned by TryLock when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// TryLock takes the named lock without waiting. On ErrLocked, holder says
// which process has it (best effort).
func (r *Repo) TryLock(name string) (l *Lock, holder string, err error) {
	dir, err := r.StateDir()
	if err != nil {
		return nil, "", err
	}
	p := filepath.Join(dir, name+".lock")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("open lock %s: %w", p, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(p)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, strings.TrimSpace(string(b)), ErrLocked
		}
		return nil, "", fmt.Errorf("lock %s: %w", p, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+" since "+time.Now().UTC().Format(time.RFC3339)+"\n"), 0)
	return &Lock{f: f}, "", nil
}

// LockWait takes the named lock, waiting up to timeout (zero: forever).
// waiting is called once if the lock is busy, with the holder's note.
func (r *Repo) LockWait(name string, timeout time.Duration, waiting func(holder string)) (*Lock, error) {
	deadline := time.Now().Add(timeout)
	told := false
	for delay := 10 * time.Millisecond; ; {
		l, holder, err := r.TryLock(name)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, ErrLocked) {
			return nil, err
		}
		if !told && waiting != nil {
			waiting(holder)
			told = true
		}
		if timeout > 0 && time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, holder)
		}
		time.Sleep(delay)
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return err
}
