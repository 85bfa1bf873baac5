package null

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/queries"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// TestConformance runs what applies of the suite: Null declares no
// answers, counts or reconnects, so it shows that it declares exactly what
// it implements, accepts every write and query, and fails on a done context.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Target{Driver: Driver()})
}

// TestDelayTarget checks the delay target's promise: every operation takes
// at least NULL_DELAY_MS, the slow operation its share more, and a done
// context ends the wait at once with an error.
func TestDelayTarget(t *testing.T) {
	ctx := context.Background()
	cfg := adaptertest.Load(t, Driver(), "NULL_DELAY_MS=20", "NULL_JITTER_MS=0", "NULL_SLOW_OPERATION=PRECISE_POINT", "NULL_SLOWDOWN_PCT=100")
	a, err := Driver().Open(ctx, adapters.Params{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	took := func(f func() error) time.Duration {
		t.Helper()
		start := time.Now()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	write := took(func() error { return a.Write(ctx, nil) })
	other := took(func() error { _, err := a.Query(ctx, &queries.Query{Variant: "TIME_RANGE"}); return err })
	slow := took(func() error { _, err := a.Query(ctx, &queries.Query{Variant: "PRECISE_POINT"}); return err })
	// Lower bounds only: a timer never fires early, but a busy machine may
	// wake it late.
	if write < 20*time.Millisecond || other < 20*time.Millisecond || slow < 40*time.Millisecond {
		t.Fatalf("write %v, TIME_RANGE %v, PRECISE_POINT (100%% slower) %v; want ≥ 20, 20, 40 ms", write, other, slow)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	if err := a.Write(done, nil); !errors.Is(err, context.Canceled) || time.Since(start) > 15*time.Millisecond {
		t.Fatalf("a cancelled write returned %v after %v", err, time.Since(start))
	}
}

// TestNoDelayByDefault keeps the Null database what it was: a measure of
// tsbench's own cost, adding nothing.
func TestNoDelayByDefault(t *testing.T) {
	a, err := Driver().Open(context.Background(), adapters.Params{Config: adaptertest.Load(t, Driver())})
	if err != nil {
		t.Fatal(err)
	}
	if a.(*Adapter).rng != nil {
		t.Fatal("the Null database draws delays although NULL_DELAY_MS and NULL_JITTER_MS are 0")
	}
}
