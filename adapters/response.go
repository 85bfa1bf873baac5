package adapters

import (
	"context"
	"time"
)

// responseKey is the context key of an ResponseClock.
type responseKey struct{}

// ResponseClock holds the moment the response to an operation was in: the
// runner stops a latency's clock there rather than when the adapter
// returns, so that decoding the response (JSON of a search or of a bulk's
// per-document results), which is tsbench's work and not the server's,
// stays out of the latency. The runner gives each client one, reset
// before every operation; an adapter that never calls Received is timed
// to its return.
//
// It also adds up the bytes the operation's requests carried (Sent), for
// the MB/s of document databases.
type ResponseClock struct {
	at    time.Time
	bytes int64
}

// WithResponseClock returns ctx carrying a new clock, and the clock.
func WithResponseClock(ctx context.Context) (context.Context, *ResponseClock) {
	c := &ResponseClock{}
	return context.WithValue(ctx, responseKey{}, c), c
}

// Received notes that the whole response to the operation of ctx has
// arrived and what follows is decoding it. A later call overwrites an
// earlier one: the response to the last request of an operation that takes
// several (pages of a search) ends it. The calls of one operation must
// come from one goroutine.
func Received(ctx context.Context) {
	if c, ok := ctx.Value(responseKey{}).(*ResponseClock); ok {
		c.at = time.Now()
	}
}

// Sent notes that a request of the operation of ctx carried n bytes of
// data (a bulk's body): reports give the operation's MB/s from them.
func Sent(ctx context.Context, n int) {
	if c, ok := ctx.Value(responseKey{}).(*ResponseClock); ok {
		c.bytes += int64(n)
	}
}

// Bytes are the bytes noted by Sent since the last Reset.
func (c *ResponseClock) Bytes() int64 { return c.bytes }

// At is the moment noted by Received since the last Reset; zero if none.
func (c *ResponseClock) At() time.Time { return c.at }

// Reset forgets the last operation's response.
func (c *ResponseClock) Reset() { c.at, c.bytes = time.Time{}, 0 }

// Since is the time from start to the response noted since the last Reset,
// or to now when none was.
func (c *ResponseClock) Since(start time.Time) time.Duration {
	end := time.Now()
	if c.at.After(start) && c.at.Before(end) {
		end = c.at
	}
	return end.Sub(start)
}
