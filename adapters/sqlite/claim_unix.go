//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// claim holds an exclusive lock on path+".lock" for as long as the process
// runs the benchmark: two bench processes on one SQLite file both finished
// "complete" with each other's writes in their throughput, or failed later
// with "no such table". The lock is the operating system's (flock), so a
// process that dies leaves no stale lock; the file says who holds it. The
// instances of a distributed run (shared) hold it together, and any of
// them excludes a run of its own.
func claim(path string, shared bool) (func(), error) {
	lockPath := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		return nil, fmt.Errorf("create the folder of %s: %w", path, err)
	}
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the lock file %s: %w", lockPath, err)
	}
	how := unix.LOCK_EX
	if shared {
		how = unix.LOCK_SH
	}
	if err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(lockPath)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("the SQLite file %s is in use by %s: two runs on one file measure each other (valid: wait for it to end, or give this run its own SQLITE_PATH)", path, who)
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	host, _ := os.Hostname()
	what := "bench"
	if shared {
		what = "a distributed run's instance"
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%s (pid %d on %s, since %s)\n", what, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	return func() {
		if !shared {
			f.Truncate(0)
		}
		f.Close() // closing releases the flock
	}, nil
}
