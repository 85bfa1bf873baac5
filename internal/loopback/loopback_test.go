package loopback

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestServerHoldsAndRecords(t *testing.T) {
	const delay = 2 * time.Millisecond
	s, err := Start(Delay{Base: delay}, 1)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(s.Port)
	call := func(method, path, want string) time.Duration {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader("{}\n"))
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Fatalf("%s %s: %d %s, want 200 with %s", method, path, resp.StatusCode, body, want)
		}
		return took
	}
	call(http.MethodGet, "/", `"number":"`+Version+`"`)
	call(http.MethodPut, "/test-g_0", `"acknowledged":true`)
	if took := call(http.MethodPost, "/_bulk?filter_path=errors", `"errors":false`); took < delay {
		t.Errorf("a bulk answered after %v, before its %v delay", took, delay)
	}
	call(http.MethodPost, "/test-g_0/_search", `"hits"`)
	call(http.MethodPost, "/test-g_0/_search", `"hits"`)

	// Only bulks and searches are held and recorded, each at least the delay.
	for kind, n := range map[string]int64{Bulk: 1, Search: 2} {
		h := s.Held(kind)
		if h.TotalCount() != n || h.Min() < delay.Microseconds() {
			t.Errorf("%s: %d held, shortest %d µs; want %d, at least %d µs", kind, h.TotalCount(), h.Min(), n, delay.Microseconds())
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := http.Get(base + "/"); err == nil {
		t.Error("the server still answers after Close")
	}
}

func TestNegativeDelay(t *testing.T) {
	if _, err := Start(Delay{Base: time.Millisecond, Jitter: -time.Millisecond}, 1); err == nil {
		t.Fatal("a negative jitter was accepted")
	}
}
