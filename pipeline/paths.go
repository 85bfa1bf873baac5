package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckPath says why path cannot be a folder (folder) or a file to write:
// it is the other kind, or a part of it above is a file. A path that does
// not exist yet is fine: it is created.
func CheckPath(path string, folder bool) error {
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
