//go:build !unix

package pace

import "time"

// sleepPrecise blocks for d (the timer's resolution is the platform's).
func sleepPrecise(d time.Duration) { time.Sleep(d) }
