//go:build !unix

package null

import "time"

// sleepChunk blocks for d (timer resolution is the platform's).
func sleepChunk(d time.Duration) { time.Sleep(d) }
