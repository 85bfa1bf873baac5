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
	// Held counts the responses held back; HeldFor their total delay.
	Held, HeldFor atomic.Int64
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
					hold := time.Duration(r.Share * float64(time.Now().UnixNano()-t))
					r.Held.Add(1)
					r.HeldFor.Add(int64(hold))
					select {
					case <-time.After(hold):
					case <-ctx.Done():
					}
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
