package adapters

import (
	"context"
	"time"
)

// answerKey is the context key of an AnswerClock.
type answerKey struct{}

// AnswerClock holds the moment the answer to an operation was in: the
// runner stops a latency's clock there rather than when the adapter
// returns, so that decoding the answer (JSON of a search or of a bulk's
// per-document results), which is tsbench's work and not the server's,
// stays out of the latency. The runner gives each client one, reset
// before every operation; an adapter that never calls Answered is timed
// to its return.
type AnswerClock struct{ at time.Time }

// WithAnswerClock returns ctx carrying a new clock, and the clock.
func WithAnswerClock(ctx context.Context) (context.Context, *AnswerClock) {
	c := &AnswerClock{}
	return context.WithValue(ctx, answerKey{}, c), c
}

// Answered notes that the whole answer to the operation of ctx has
// arrived and what follows is decoding it. A later call overwrites an
// earlier one: the answer to the last request of an operation that takes
// several (pages of a search) ends it. The calls of one operation must
// come from one goroutine.
func Answered(ctx context.Context) {
	if c, ok := ctx.Value(answerKey{}).(*AnswerClock); ok {
		c.at = time.Now()
	}
}

// At is the moment noted by Answered since the last Reset; zero if none.
func (c *AnswerClock) At() time.Time { return c.at }

// Reset forgets the last operation's answer.
func (c *AnswerClock) Reset() { c.at = time.Time{} }

// Since is the time from start to the answer noted since the last Reset,
// or to now when none was.
func (c *AnswerClock) Since(start time.Time) time.Duration {
	end := time.Now()
	if c.at.After(start) && c.at.Before(end) {
		end = c.at
	}
	return end.Sub(start)
}
