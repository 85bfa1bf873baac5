package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tsbench/tsbench/pipeline"
)

// pathFlag says whether a flag of that name names a file the command
// writes (false) or a folder it writes into or reads (true); ok is false
// for a flag that names no path.
func pathFlag(name string) (folder, ok bool) {
	switch name {
	case "output", "queries", "cpuprofile":
		return false, true
	case "png", "out", "results":
		return true, true
	}
	return false, false
}

// checkPathFlags refuses, before any work, a path flag that cannot be
// what it names: a folder where a file is written, a file where a folder
// is, a path under a file. That is bad usage (exit 2) in one line naming
// the flag, not a failed write after the work is done.
func checkPathFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		folder, ok := pathFlag(f.Name)
		if !ok || err != nil || f.Value.String() == "" {
			return
		}
		if e := pipeline.CheckPath(f.Value.String(), folder); e != nil {
			err = usageError(fmt.Errorf("--%s %s: %w", f.Name, f.Value.String(), e))
		}
	})
	return err
}
