// Package relay is a controlled regression for the power curves of
// docs/weekly-regression.md: a TCP relay on loopback between a client and a
// real server that holds each response back by a known share of the time
// the server took for it. A contender that reaches its server through the
// relay is slower by that share on every operation, whatever the protocol
// (IoTDB's thrift, Elasticsearch's HTTP), as long as a connection carries
// one request at a time: the server's time is measured from the last bytes
// of a request to the first bytes of its response.
package relay

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Relay forwards connections from its listener to Target, delaying every
// response by Share times the server's time for it.
type Relay struct {
	Target string
	Share  float64
	// Held counts the responses held back; HeldFor their total delay as
	// asked (Share of ServerTime), HeldTook as it came: the regression a
	// contender gets is what the holds took.
	Held, HeldFor, HeldTook, ServerTime atomic.Int64
	// Waited counts the responses actually held: fewer than Held where
	// short holds give back a late one's excess (see plan).
	Waited atomic.Int64
	// sleepFor, when set, stands in for the timer in tests: it returns
	// how long the wait took.
	sleepFor func(ctx context.Context, d time.Duration) time.Duration
	// debt is what the holds took beyond what they asked, so far: the next
	// holds are shortened by it (see plan).
	debt atomic.Int64
}

// plan is how long to wait to hold a response for hold, owing debt. A timer
// wakes its goroutine late on a busy machine (here about half a millisecond,
// against holds of 0.2 ms for a 5% share of a 4 ms write), so waiting what
// each hold asks would slow the contender by several times its share. The
// holds that follow a late one give the excess back (a response whose debt
// covers its hold is not held at all), so that what the holds take sums to
// what they asked, within one wake-up's lateness: the mean slowdown is the
// share, spread over fewer responses when the holds are short.
func plan(hold, debt time.Duration) time.Duration {
	return max(hold-debt, 0)
}

// sleep waits d, or until ctx ends, and says how long it took.
func (r *Relay) sleep(ctx context.Context, d time.Duration) time.Duration {
	if r.sleepFor != nil {
		return r.sleepFor(ctx, d)
	}
	start := time.Now()
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	return time.Since(start)
}

// Serve accepts connections on l until ctx ends or l fails.
func (r *Relay) Serve(ctx context.Context, l net.Listener) error {
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Go(func() { r.relay(ctx, c) })
	}
}

// relay carries one connection both ways. The client's bytes go on at once
// and stamp the time; the first bytes the server sends after them are the
// start of a response, held back for Share of the time since that stamp.
func (r *Relay) relay(ctx context.Context, client net.Conn) {
	defer client.Close()
	var d net.Dialer
	server, err := d.DialContext(ctx, "tcp", r.Target)
	if err != nil {
		return
	}
	defer server.Close()
	var lastReq atomic.Int64 // unix nanoseconds of the latest request bytes; 0 once answered
	done := make(chan struct{}, 2)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				lastReq.Store(time.Now().UnixNano())
				if _, werr := server.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		closeWrite(server)
		done <- struct{}{}
	}()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				if t := lastReq.Swap(0); t != 0 {
					serverTook := time.Now().UnixNano() - t
					hold := time.Duration(r.Share * float64(serverTook))
					r.Held.Add(1)
					r.ServerTime.Add(serverTook)
					r.HeldFor.Add(int64(hold))
					var took time.Duration
					if wait := plan(hold, time.Duration(r.debt.Load())); wait > 0 {
						r.Waited.Add(1)
						took = r.sleep(ctx, wait)
					}
					r.HeldTook.Add(int64(took))
					r.debt.Add(int64(took - hold))
				}
				if _, werr := client.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		closeWrite(client)
		done <- struct{}{}
	}()
	for range 2 {
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// closeWrite says end of stream to the other side, which may still answer.
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// Summary says what r held, on average a response: what it asked and what
// the holds took, each also as a share of the server's time. The first
// words stay "held N responses, D each on average" (the asked hold), which
// the power curves' notes quote.
func Summary(r *Relay) string {
	n := max(r.Held.Load(), 1)
	server := float64(r.ServerTime.Load())
	share := func(d int64) float64 {
		if server == 0 {
			return 0
		}
		return float64(d) / server
	}
	return fmt.Sprintf("held %d responses, %v each on average (asked; %.3f of the server's %v), took %v (%.3f of it), waiting on %d of them",
		r.Held.Load(), time.Duration(r.HeldFor.Load()/n), share(r.HeldFor.Load()), time.Duration(r.ServerTime.Load()/n),
		time.Duration(r.HeldTook.Load()/n), share(r.HeldTook.Load()), r.Waited.Load())
}
