package adapters

import (
	"context"
	"testing"
	"time"
)

func TestAnswerClock(t *testing.T) {
	Answered(context.Background()) // no clock: nothing to note, no panic

	ctx, c := WithAnswerClock(context.Background())
	start := time.Now()
	time.Sleep(5 * time.Millisecond)
	Answered(ctx)
	at := c.At()
	time.Sleep(30 * time.Millisecond)
	if d := c.Since(start); d != at.Sub(start) || d >= 30*time.Millisecond {
		t.Fatalf("Since = %v, want the %v to the answer", d, at.Sub(start))
	}
	// An operation that makes several requests ends at the last answer.
	Answered(ctx)
	if !c.At().After(at) {
		t.Fatal("a later answer did not replace the earlier one")
	}
	c.Reset()
	start = time.Now()
	time.Sleep(10 * time.Millisecond)
	if d := c.Since(start); d < 10*time.Millisecond || !c.At().IsZero() {
		t.Fatalf("after Reset and no answer: Since = %v, At = %v; want the time to now", d, c.At())
	}
	// A note from before the operation began does not end it.
	Answered(ctx)
	start = time.Now().Add(time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	if d := c.Since(start); d <= 0 {
		t.Fatalf("an answer before the start gave %v", d)
	}
}
