// Package cliargs parses a command's flags wherever they stand among its
// arguments, the one manner pgspec's and pgtrace's subcommands share.
package cliargs

import "flag"

// Parse parses fs's flags in args, before, between or after the
// positional arguments, and returns those in order; everything after
// "--" is positional.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
