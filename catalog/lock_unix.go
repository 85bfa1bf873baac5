//go:build unix

package catalog

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile holds the operating system's exclusive lock on f until unlock
// is called: a process that dies leaves no lock behind.
func lockFile(f *os.File) (unlock func(), err error) {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN) }, nil
}
