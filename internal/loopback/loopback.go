// Package loopback is a calibration target for tsbench's latency
// measurement: a server on 127.0.0.1 that speaks enough of Elasticsearch's
// REST API for the Elasticsearch adapter to create its indices, write bulks
// and run searches, and that answers each bulk and search after a delay of
// a known distribution. It records how long it held each request, so that
// a test can set the server's time beside the latency tsbench measured and
// see what the tool adds: the adapter's HTTP exchange, the runner, the
// recording, the scheduler of a two-core machine.
package loopback

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tsbench/tsbench/pace"
)

// Delay is the distribution of the server's time for a bulk or a search:
// uniform on [Base, Base+Jitter).
type Delay struct {
	Base, Jitter time.Duration
}

// Version is what the server reports as its Elasticsearch version; the
// suffix makes a run against it recognisable in its record.
const Version = "8.19.21-loopback"

// Kinds of request whose hold times the server records.
const (
	Bulk   = "bulk"
	Search = "search"
)

// Server is a running calibration target.
type Server struct {
	// Port is the port it listens on, on 127.0.0.1.
	Port int

	delay Delay
	srv   *http.Server
	done  chan struct{}

	mu   sync.Mutex
	rng  *rand.Rand
	held map[string]*hdrhistogram.Histogram // microseconds
}

// Start listens on a free port of 127.0.0.1 and serves until Close. seed
// fixes the sequence of delays.
func Start(d Delay, seed uint64) (*Server, error) {
	if d.Base < 0 || d.Jitter < 0 {
		return nil, fmt.Errorf("loopback delay %v + [0, %v): a delay cannot be negative", d.Base, d.Jitter)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback server: %w", err)
	}
	s := &Server{Port: ln.Addr().(*net.TCPAddr).Port, delay: d, done: make(chan struct{}),
		rng:  rand.New(rand.NewPCG(seed, 0x10095ac)),
		held: map[string]*hdrhistogram.Histogram{Bulk: newHistogram(), Search: newHistogram()}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Up to a minute in microseconds, 3 significant digits, as tsbench's own
// latency histograms.
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

// Close stops the server and waits until it has stopped.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Held returns a copy of the hold times of one kind of request
// (microseconds), from its handler's start to its answer's flush.
func (s *Server) Held(kind string) *hdrhistogram.Histogram {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := newHistogram()
	if src := s.held[kind]; src != nil {
		h.Merge(src)
	}
	return h
}

func (s *Server) next() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delay.Base + time.Duration(s.rng.Float64()*float64(s.delay.Jitter))
}

func (s *Server) record(kind string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.held[kind].RecordValue(max(d.Microseconds(), 1))
}

// Answers. A search answers one hit (a device and a timestamp, no sensor
// value, so it counts 0 points) and no aggregation buckets: a whole answer
// for the adapter to decode, small enough to cost it little.
const (
	rootAnswer   = `{"name":"loopback","cluster_name":"loopback","version":{"number":"` + Version + `","distribution":"elasticsearch"},"tagline":"You Know, for Search"}`
	bulkAnswer   = `{"took":0,"errors":false}`
	searchAnswer = `{"took":0,"timed_out":false,"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_source":{"device":"d_0","ts":0},"sort":[0,"d_0"]}]},"aggregations":{"d":{"buckets":[]}}}`
	ackAnswer    = `{"acknowledged":true}`
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	_, _ = io.Copy(io.Discard, r.Body)
	kind, answer := "", ackAnswer
	switch p := r.URL.Path; {
	case p == "/" && r.Method == http.MethodGet:
		answer = rootAnswer
	case strings.HasSuffix(p, "/_bulk"):
		kind, answer = Bulk, bulkAnswer
	case strings.HasSuffix(p, "/_search"):
		kind, answer = Search, searchAnswer
	case strings.HasSuffix(p, "/_count"):
		answer = `{"count":0}`
	}
	w.Header().Set("Content-Type", "application/json")
	if kind != "" {
		if err := pace.Until(r.Context(), t0.Add(s.next())); err != nil {
			return // the client gave up
		}
	}
	_, _ = io.WriteString(w, answer)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if kind != "" {
		s.record(kind, time.Since(t0))
	}
}
