package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
)

// codedError is an error with its stable code for --json and its exit
// status.
type codedError struct {
	code string
	exit int
	msg  string
}

func (e codedError) Error() string { return e.msg }
func (e codedError) ExitCode() int { return e.exit }

// errorCodes maps the errors programs may want to tell apart to stable
// codes; docs/cli.md lists them. The first match wins, so more specific
// errors come first. Anything else is "error".
var errorCodes = []struct {
	err  error
	code string
}{
	{gitstore.ErrNotRepository, "not_a_repository"},
	{gitstore.ErrSHA256, "unsupported_repository"},
	{gitstore.ErrNoCommits, "no_commits"},
	{recall.ErrNoMemory, "no_memory"},
	{history.ErrNoHistory, "no_history"},
	{memref.ErrCorrupt, "corrupt_memory"},
	{memory.ErrCorrupt, "corrupt_memory"},
	{history.ErrCorrupt, "corrupt_memory"},
	{gitstore.ErrLocked, "locked"},
	{gitstore.ErrRefMoved, "ref_moved"},
	{durable.ErrRejected, "rejected"},
	{durable.ErrNoSkill, "not_found"},
	{gitstore.ErrNoRemote, "no_remote"},
	{gitstore.ErrNoRemoteRef, "no_remote_memory"},
	{gitstore.ErrNonFastForward, "non_fast_forward"},
	{embed.ErrUnavailable, "provider_unavailable"},
	{gitstore.ErrNoCLI, "no_git"},
	{context.Canceled, "interrupted"},
}

// classify returns an error's code and exit status.
func classify(err error) (code string, exit int) {
	var ce codedError
	if errors.As(err, &ce) {
		return ce.code, ce.exit
	}
	var ie interruptedError
	if errors.As(err, &ie) {
		return "interrupted", ie.ExitCode()
	}
	exit = 1
	var ec cli.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		exit = ec.ExitCode()
	}
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			return c.code, exit
		}
	}
	if exit == 2 {
		return "usage", exit
	}
	return "error", exit
}

// errorJSON is what a command run with --json writes to stderr when it
// fails: a stable code to branch on and the message a person would read.
type errorJSON struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Exit    int    `json:"exit"`
}

// reportError prints err to w (stderr), as one JSON object when asJSON,
// and returns the exit status.
func reportError(w io.Writer, err error, asJSON bool) int {
	code, exit := classify(err)
	msg := strings.TrimPrefix(err.Error(), "git-konteks: ")
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(errorJSON{Error: code, Message: msg, Exit: exit})
		return exit
	}
	if msg != "" {
		fmt.Fprintf(w, "git-konteks: %s\n", msg)
	}
	return exit
}
