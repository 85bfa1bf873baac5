// Package pace waits until a moment with the precision a latency
// measurement needs. Go's timers wake through the network poller, whose
// waits are whole milliseconds on Linux: on the project's machine a 2.5 ms
// timer returned 0.7–0.8 ms late on average (BenchmarkLateness), and a
// scheduled operation (TARGET_THROUGHPUT) that starts late counts the
// lateness in its latency although no server spent it. Until sleeps on a
// timer to 2 ms before the moment, in nanosleeps (about 0.1 ms late there)
// to 120 µs before it, and ends the wait in a loop on the clock.
package pace

import (
	"context"
	"time"
)

// coarse is how early the timer's sleep ends: more than the timer's usual
// lateness, so that the precise sleeps finish the wait.
const coarse = 2 * time.Millisecond

// spin is how much of the wait ends in a loop on the clock instead of a
// sleep: about a nanosleep's lateness. It costs that much CPU a wait.
const spin = 120 * time.Microsecond

// chunk bounds one precise sleep, so that a cancelled context ends the
// wait within it.
const chunk = time.Millisecond

// Until blocks until t, or until ctx is done (then it returns ctx's error).
func Until(ctx context.Context, t time.Time) error {
	if d := time.Until(t) - coarse; d > 0 {
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		left := time.Until(t)
		if left <= spin {
			break
		}
		sleepPrecise(min(left-spin, chunk))
	}
	// The last microseconds: a nanosleep wakes about 0.1 ms late on a
	// virtual machine, so the wait ends in a loop on the clock.
	for time.Now().Before(t) {
	}
	return nil
}

// For blocks for d (nothing when d ≤ 0), or until ctx is done.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return Until(ctx, time.Now().Add(d))
}
