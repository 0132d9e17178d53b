package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// permuteArgs moves flags that follow positional arguments in front of
// them, so `git konteks memories forget ID --reason why` works like git's
// own commands (urfave/cli v2 stops reading flags at the first positional
// argument). It uses the command definitions to know which flags take a
// value; everything after "--" is left alone.
func permuteArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	flags := app.Flags
	cmds := app.Commands
	i, root := 1, true
	// Global flags and the command path.
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" && a != "--" {
			out = append(out, a)
			if takesValue(flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		c := findCommand(cmds, a)
		if c == nil {
			if root {
				return args // no command: left as typed, for the unknown-command answer
			}
			break
		}
		root = false
		out = append(out, a)
		flags, cmds = c.Flags, c.Subcommands
		i++
	}
	var named, positional []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			named = append(named, a)
			if takesValue(flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				named = append(named, args[i+1])
				i++
			}
			continue
		}
		positional = append(positional, a)
	}
	return append(append(out, named...), positional...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// takesValue reports whether the flag named by arg (-x, --name) expects a
// value in the next argument.
func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if _, ok := f.(*cli.BoolFlag); ok {
				return false
			}
			return true
		}
	}
	return false
}
