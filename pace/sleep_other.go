//go:build !unix || darwin || ios

package pace

import "time"

// sleepPrecise blocks for d (the timer's resolution is the platform's).
// macOS is here: golang.org/x/sys/unix has no nanosleep for it, and
// pace.Until's loop on the clock still ends the wait on time, at more CPU.
func sleepPrecise(d time.Duration) { time.Sleep(d) }
