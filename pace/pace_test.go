package pace

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestUntilReachesTheMoment(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, 3 * time.Millisecond} {
		due := time.Now().Add(d)
		if err := Until(context.Background(), due); err != nil {
			t.Fatalf("Until(+%v): %v", d, err)
		}
		if now := time.Now(); now.Before(due) {
			t.Errorf("Until(+%v) returned %v before the moment", d, due.Sub(now))
		}
	}
}

func TestUntilEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err := Until(ctx, t0.Add(time.Hour))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Until past the context's deadline: %v, want DeadlineExceeded", err)
	}
	// Generous: the point is that it did not wait the hour.
	if waited := time.Since(t0); waited > time.Second {
		t.Errorf("Until waited %v after its context ended", waited)
	}
}

func TestForNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := For(ctx, 0); err != nil {
		t.Errorf("For(0) on a done context: %v, want nil (no wait, nothing to end)", err)
	}
	if err := For(ctx, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Errorf("For(1ms) on a done context: %v, want Canceled", err)
	}
}

// BenchmarkLateness reports how late Until returns after a 2.5 ms wait,
// beside the lateness of a plain timer and of nanosleeps alone
// (lateness-µs/op); docs/performance.md's figures come from tools/perf.
func BenchmarkLateness(b *testing.B) {
	for _, c := range []struct {
		name string
		wait func(time.Time)
	}{
		{"pace", func(t time.Time) { _ = Until(context.Background(), t) }},
		{"timer", func(t time.Time) { time.Sleep(time.Until(t)) }},
		// Nanosleeps alone, without the loop on the clock at the end.
		{"nanosleep", func(t time.Time) {
			for d := time.Until(t); d > 0; d = time.Until(t) {
				sleepPrecise(min(d, chunk))
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var late time.Duration
			for b.Loop() {
				due := time.Now().Add(2500 * time.Microsecond)
				c.wait(due)
				late += time.Since(due)
			}
			b.ReportMetric(float64(late.Microseconds())/float64(b.N), "lateness-µs/op")
		})
	}
}
