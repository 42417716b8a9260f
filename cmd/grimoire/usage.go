package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/grimoire-search/grimoire/internal/suggest"
)

// otherNames are the commands people reach for from other tools, and
// grimoire's for them.
var otherNames = map[string]string{
	"search":  "query",
	"find":    "query",
	"index":   "sync",
	"scan":    "sync",
	"version": "--version",
}

// useInstead says what grimoire's name for a command from elsewhere does.
var useInstead = map[string]string{
	"query":     "`grimoire query TEXT` searches the library",
	"sync":      "`grimoire sync` indexes the library (and `grimoire watch` keeps it indexed)",
	"--version": "`grimoire --version` names the build",
}

// unknownCommandRE reads the name out of cobra's error for an unknown
// command, the only place it is given.
var unknownCommandRE = regexp.MustCompile(`^unknown command ("(?:[^"\\]|\\.)*") for `)

// unknownCommand rewrites cobra's error for an unknown command below cmd
// with where to look instead: for a top-level command known from other
// tools, grimoire's name for it; else the nearest of cmd's commands. Any
// other error comes back as it is.
func unknownCommand(cmd *cobra.Command, err error) error {
	m := unknownCommandRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	name, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if cmd.HasParent() {
		msg += " for " + strconv.Quote(cmd.CommandPath())
	}
	typed := strings.ToLower(name)
	if other, ok := otherNames[typed]; ok && !cmd.HasParent() {
		return errors.New(msg + ": " + useInstead[other])
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if !cmd.HasParent() {
		for other := range otherNames {
			names = append(names, other)
		}
	}
	var near []string
	for _, n := range suggest.Closest(typed, names, 3) {
		if other, ok := otherNames[n]; ok && !cmd.HasParent() {
			n = other
		}
		if !slices.Contains(near, n) {
			near = append(near, n)
		}
	}
	if len(near) > 0 {
		msg += ": did you mean " + orList(near) + "?"
	}
	return errors.New(msg)
}

// flagError makes pflag's errors plain: an unknown flag with the nearest
// ones cmd has, a value that does not parse with the flag, the value and
// what the flag wants, in place of Go's parsing errors.
func flagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "" {
		name := unknown.GetSpecifiedName()
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if near := suggest.Closest(strings.ToLower(name), names, 3); len(near) > 0 {
			for i, n := range near {
				near[i] = "--" + n
			}
			return fmt.Errorf("unknown flag --%s: did you mean %s?", name, orList(near))
		}
		return err
	}
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		f := bad.GetFlag()
		return fmt.Errorf("--%s %q: %s", f.Name, bad.GetValue(), wants(f, bad.Unwrap()))
	}
	return err
}

// wants says what flag f takes, for a value that did not parse as one.
func wants(f *pflag.Flag, cause error) string {
	if errors.Is(cause, strconv.ErrRange) {
		return "out of range"
	}
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return "not a whole number"
	case "float32", "float64":
		return "not a number"
	case "bool":
		return "not true or false"
	case "duration":
		return "not a duration such as 500ms, 2s or 1m30s"
	}
	return cause.Error()
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
