//go:build unix

package null

import (
	"time"

	"golang.org/x/sys/unix"
)

// sleepChunk blocks the thread for d. Go's timers wake through the
// network poller, whose waits are whole milliseconds on Linux: a 5.5 ms
// timer fires near 6 ms, which would turn the delay target's uniform
// jitter into two spikes a millisecond apart. nanosleep keeps to tens of
// microseconds; the caller keeps each chunk short so that a cancelled
// context still ends the wait at once.
func sleepChunk(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
