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

// TestRelayHoldsEachResponse: a server that answers each line after 20 ms,
// reached through a relay of share 0.5, answers after about 30 ms; every
// answer arrives, in order, and each was held once.
func TestRelayHoldsEachResponse(t *testing.T) {
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
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
					time.Sleep(20 * time.Millisecond)
					c.Write([]byte("re " + sc.Text() + "\n"))
				}
			}()
		}
	}()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &Relay{Target: srv.Addr().String(), Share: 0.5}
	go r.Serve(ctx, l)
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	const n = 10
	var took time.Duration
	for i := range n {
		t0 := time.Now()
		msg := string(rune('a' + i))
		if _, err := c.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadString('\n')
		if err != nil || line != "re "+msg+"\n" {
			t.Fatalf("answer %d: %q, %v", i, line, err)
		}
		took += time.Since(t0)
	}
	mean := took / n
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
	// A timer never fires early, so each hold took at least what it asked;
	// the server's time it was asked from is the 20 ms sleep at least.
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
