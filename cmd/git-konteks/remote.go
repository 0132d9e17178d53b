package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/konteks/git-konteks/gitstore"
)

// openRemote opens the repository and picks the remote a sharing command
// works with.
func openRemote(c *cli.Context) (*gitstore.Repo, string, error) {
	g := globalsOf(c)
	repo, err := g.openRepo()
	if err != nil {
		return nil, "", err
	}
	remote, err := pickRemote(c, repo)
	return repo, remote, err
}

// pickRemote returns the remote named on the command line, else "origin",
// else the only remote.
func pickRemote(c *cli.Context, repo *gitstore.Repo) (string, error) {
	if c.NArg() > 1 {
		return "", cli.Exit(fmt.Sprintf("usage: git konteks %s [REMOTE]", c.Command.Name), 2)
	}
	if c.NArg() == 1 {
		return c.Args().First(), nil
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
