//go:build unix && !darwin && !ios

package pace

import (
	"time"

	"golang.org/x/sys/unix"
)

// sleepPrecise blocks the thread for d with nanosleep, which wakes within
// tens of microseconds (Go's timers: up to a millisecond late).
func sleepPrecise(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
