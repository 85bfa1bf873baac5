package relay

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// echoServer answers each line with "re LINE" after delay, until the test
// ends.
func echoServer(t *testing.T, delay time.Duration) string {
	t.Helper()
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	go func() {
		for {
			c, err := srv.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					time.Sleep(delay)
					c.Write([]byte("re " + sc.Text() + "\n"))
				}
			}()
		}
	}()
	return srv.Addr().String()
}

// ask sends n lines through the relay at addr, one at a time, checks each
// answer and returns their mean time.
func ask(t *testing.T, addr string, n int) time.Duration {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	var took time.Duration
	for i := range n {
		msg := fmt.Sprintf("m%d", i)
		t0 := time.Now()
		if _, err := c.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadString('\n')
		if err != nil || line != "re "+msg+"\n" {
			t.Fatalf("answer %d: %q, %v", i, line, err)
		}
		took += time.Since(t0)
	}
	return took / time.Duration(n)
}

// TestRelayGivesBackLateWakeUps: holds of a tenth of a millisecond (a 5%
// share of a 2 ms server) on a machine whose timers wake 0.9 ms late. The
// holds must take what they asked in all, within one late wake-up, and so
// wait on only some of the responses; waiting on each would have slowed the
// server by about 50% instead of 5%.
func TestRelayGivesBackLateWakeUps(t *testing.T) {
	const late = 900 * time.Microsecond
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &Relay{Target: echoServer(t, 2*time.Millisecond), Share: 0.05,
		sleepFor: func(_ context.Context, d time.Duration) time.Duration { return d + late }}
	go r.Serve(ctx, l)
	const n = 100
	ask(t, l.Addr().String(), n)
	asked, took := time.Duration(r.HeldFor.Load()), time.Duration(r.HeldTook.Load())
	if r.Held.Load() != n {
		t.Errorf("%d responses held, want %d", r.Held.Load(), n)
	}
	if took < asked || took > asked+late {
		t.Errorf("the holds asked %v in all and took %v; want within %v above", asked, took, late)
	}
	// Each asks at least 0.1 ms; a wait takes at least 0.9 ms more than it
	// asks, so at most about one in ten responses can have been waited on.
	if w := r.Waited.Load(); w == 0 || w > n/5 {
		t.Errorf("waited on %d of %d responses, want some and at most %d", w, n, n/5)
	}
}

// TestRelayHoldsEachResponse: a server that answers each line after 20 ms,
// reached through a relay of share 0.5, answers after about 30 ms; every
// answer arrives, in order, and each was held once.
func TestRelayHoldsEachResponse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &Relay{Target: echoServer(t, 20*time.Millisecond), Share: 0.5}
	go r.Serve(ctx, l)
	const n = 10
	mean := ask(t, l.Addr().String(), n)
	held := time.Duration(r.HeldFor.Load() / n)
	if r.Held.Load() != n {
		t.Errorf("%d responses held, want %d", r.Held.Load(), n)
	}
	// The server takes at least 20 ms, so the relay holds at least 10: a
	// slow machine may add to both, never take away.
	if held < 10*time.Millisecond || mean < 30*time.Millisecond {
		t.Errorf("a 20 ms server through a relay of share 0.5: answers in %v, held %v; want at least 30 and 10 ms", mean, held)
	}
	// What it held is half of what it saw the server take, which the
	// answer's time holds too: held ≤ 0.5 × (answer − held).
	if float64(held) > 0.5*float64(mean-held)*1.05+float64(time.Millisecond) {
		t.Errorf("held %v of answers of %v: more than half of the rest", held, mean)
	}
	// A timer never fires early, and a late one is given back by the next
	// holds, which are long enough here to give it all back: the holds took
	// at least what they asked. The server's time they were asked from is
	// the 20 ms sleep at least.
	if r.HeldTook.Load() < r.HeldFor.Load() {
		t.Errorf("the holds took %v in all, less than the %v asked", time.Duration(r.HeldTook.Load()), time.Duration(r.HeldFor.Load()))
	}
	if server := time.Duration(r.ServerTime.Load() / n); server < 20*time.Millisecond {
		t.Errorf("the server's time a response %v, want at least the 20 ms it slept", server)
	}
	want := fmt.Sprintf("held %d responses, %v each on average (asked; 0.500 of the server's", n, held)
	if got := Summary(r); !strings.HasPrefix(got, want) {
		t.Errorf("Summary = %q, want it to begin %q", got, want)
	}
}
