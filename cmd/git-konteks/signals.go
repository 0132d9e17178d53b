package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptible returns a context derived from parent and cancelled by
// the first SIGINT or SIGTERM,
// for commands that write memory: they stop at the next safe point, leave
// refs/konteks as it was, and report errInterrupted. A second signal
// finds the default handler again and ends the process at once.
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
			signal.Stop(ch)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel()
	}
}

// interruptedError is what a command stopped by a signal returns; main
// exits with 130, as a shell reports a process ended by SIGINT.
type interruptedError struct{ extraction bool }

func (e interruptedError) Error() string {
	if e.extraction {
		return "interrupted; memory unchanged (run `git konteks extract --mode resume` to continue)"
	}
	return "interrupted"
}

// ExitCode makes the error a cli.ExitCoder.
func (interruptedError) ExitCode() int { return 130 }

// stopped turns the error of work cut short by ctx into interruptedError:
// whatever failed once the signal came (a closed pipe, a cancelled walk)
// is a consequence of it, not news.
func stopped(ctx context.Context, err error, extraction bool) error {
	if err != nil && ctx.Err() != nil {
		return interruptedError{extraction: extraction}
	}
	return err
}
