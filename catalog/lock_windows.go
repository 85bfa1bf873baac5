//go:build windows

package catalog

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile holds the operating system's exclusive lock on f until unlock
// is called.
func lockFile(f *os.File) (unlock func(), err error) {
	h := windows.Handle(f.Fd())
	var ol windows.Overlapped
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		return nil, err
	}
	return func() { windows.UnlockFileEx(h, 0, 1, 0, &ol) }, nil
}
