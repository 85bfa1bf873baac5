package adapters

import (
	"context"
	"testing"
	"time"
)

func TestResponseClock(t *testing.T) {
	Received(context.Background()) // no clock: nothing to note, no panic

	ctx, c := WithResponseClock(context.Background())
	start := time.Now()
	time.Sleep(5 * time.Millisecond)
	Received(ctx)
	at := c.At()
	time.Sleep(30 * time.Millisecond)
	if d := c.Since(start); d != at.Sub(start) || d >= 30*time.Millisecond {
		t.Fatalf("Since = %v, want the %v to the response", d, at.Sub(start))
	}
	// An operation that makes several requests ends at the last answer.
	Received(ctx)
	if !c.At().After(at) {
		t.Fatal("a later response did not replace the earlier one")
	}
	c.Reset()
	start = time.Now()
	time.Sleep(10 * time.Millisecond)
	if d := c.Since(start); d < 10*time.Millisecond || !c.At().IsZero() {
		t.Fatalf("after Reset and no response: Since = %v, At = %v; want the time to now", d, c.At())
	}
	// A note from before the operation began does not end it.
	Received(ctx)
	start = time.Now().Add(time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	if d := c.Since(start); d <= 0 {
		t.Fatalf("a response before the start gave %v", d)
	}
}
