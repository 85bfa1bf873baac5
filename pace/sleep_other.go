//go:build !unix || darwin || ios

package pace

import "time"

// sleepPrecise blocks for d (the timer's resolution is the platform's).
// macOS is here: golang.org/x/sys/unix has no nanosleep for it. A wait
// then ends as late as the platform's timer wakes, when that is more than
// the 120 µs that pace.Until leaves to its loop on the clock.
func sleepPrecise(d time.Duration) { time.Sleep(d) }
