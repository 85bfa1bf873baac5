package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
		if e := checkPath(f.Value.String(), folder); e != nil {
			err = usageError(fmt.Errorf("--%s %s: %w", f.Name, f.Value.String(), e))
		}
	})
	return err
}

// checkPath says why path cannot be a folder (folder) or a file to write:
// it is the other kind, or a part of it above is a file. A path that does
// not exist yet is fine: it is created.
func checkPath(path string, folder bool) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && folder && !fi.IsDir():
		return errors.New("is a file; give a folder")
	case err == nil && !folder && fi.IsDir():
		return errors.New("is a folder; give the name of a file to write")
	case err == nil:
		return nil
	}
	// Missing, or under a file: the nearest part of the path that exists
	// must be a folder.
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		di, err := os.Stat(dir)
		if err == nil {
			if !di.IsDir() {
				return fmt.Errorf("%s is a file, so nothing can be created under it", dir)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return nil // unreadable: the write itself says why
		}
		if parent := filepath.Dir(dir); parent == dir {
			return nil
		}
	}
}

// isNotDir is a stat's error under a file ("afile/x").
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
