package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
)

// openRemote opens the repository and picks the remote the sharing
// command name works with, from its arguments.
func openRemote(g *GlobalOptions, name string, args []string) (*gitstore.Repo, string, error) {
	repo, err := g.openRepo()
	if err != nil {
		return nil, "", err
	}
	remote, err := pickRemote(name, repo, args)
	return repo, remote, err
}

// pickRemote returns the remote named on the command line, else "origin",
// else the only remote.
func pickRemote(name string, repo *gitstore.Repo, args []string) (string, error) {
	if len(args) > 1 {
		return "", cli.Exit(fmt.Sprintf("usage: git konteks %s [REMOTE]", name), 2)
	}
	if len(args) == 1 {
		return args[0], nil
	}
	remotes, err := repo.Remotes()
	if err != nil {
		return "", err
	}
	for _, r := range remotes {
		if r == "origin" {
			return r, nil
		}
	}
	switch len(remotes) {
	case 0:
		return "", errors.New("no remote configured: add one with `git remote add NAME URL`")
	case 1:
		return remotes[0], nil
	}
	return "", fmt.Errorf("several remotes and none is origin: name one (%v)", remotes)
}
