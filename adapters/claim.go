package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/tsbench/tsbench/config"
)

// A server's lock marker is renewed every RenewEvery while its run goes on;
// one not renewed for StaleAfter belongs to a run that is gone (killed,
// its machine lost) and is taken over. StaleAfter leaves room for the
// restarts of a cache clear, during which nothing can be renewed.
const (
	RenewEvery = 30 * time.Second
	StaleAfter = 5 * time.Minute
)

// Holder is who holds a target, as its marker says.
type Holder struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Beat is the last renewal.
	Beat time.Time `json:"beat"`
	// Group is set for an instance of a distributed run: the instances of
	// one run have the same group and share the target.
	Group string `json:"group,omitempty"`
}

func (h Holder) String() string {
	who := "bench"
	if h.Group != "" {
		who = "a distributed run's instance"
	}
	return fmt.Sprintf("%s (pid %d on %s, since %s, last renewed %s)", who, h.PID, h.Host,
		h.Since.UTC().Format(time.RFC3339), h.Beat.UTC().Format(time.RFC3339))
}

// A Marker is the lock entry of one target on a server (a document, a
// time series), reached over a connection of its own.
type Marker interface {
	// Create writes the marker if none exists, atomically on the server:
	// false when one does.
	Create(ctx context.Context, content []byte) (bool, error)
	// Read returns the marker's content; nil when there is none.
	Read(ctx context.Context) ([]byte, error)
	// Renew overwrites the content of the marker this process holds.
	Renew(ctx context.Context, content []byte) error
	// Remove deletes the marker.
	Remove(ctx context.Context) error
	// Where names the marker, for messages: how a user would find it.
	Where() string
	// Close drops the connection.
	Close()
}

// InUseError is a target held by another run.
type InUseError struct {
	Target string // "the Elasticsearch indices test-*"
	Holder Holder
	Where  string // the marker
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s: held by %s: two runs on one target measure each other (valid: wait for it to end, give this run its own DB_NAME, or, if that run is gone, wait until %s, when its marker %s turns stale, or delete the marker)",
		e.Target, e.Holder, e.Holder.Beat.Add(StaleAfter).UTC().Format(time.RFC3339), e.Where)
}

// Hold takes target's marker for this process: it creates the marker, or
// takes over a stale one, or, for an instance of a distributed run, joins
// the marker of its own run. A live marker of another run is an
// *InUseError. A server that cannot keep a marker (the user may not write
// it) leaves the run unguarded, with a note that says why; one that cannot
// be reached, with no note: the run's opening of the database then says
// so. release removes the marker this process created and closes the
// connection.
func Hold(ctx context.Context, m Marker, c *config.Config, target string) (release func(), note string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	host, _ := os.Hostname()
	now := time.Now().UTC()
	me := Holder{Host: host, PID: os.Getpid(), Since: now, Beat: now}
	if c.BenchmarkCluster {
		me.Group = config.InstanceFingerprint(c.Values(), c.WorkloadKeys())
	}
	unguarded := func(err error) (func(), string, error) {
		m.Close()
		var ne net.Error
		if errors.As(err, &ne) {
			return func() {}, "", nil // unreachable: opening the database says so, once
		}
		return func() {}, fmt.Sprintf("%s not guarded against a second run: the lock marker %s: %v", target, m.Where(), err), nil
	}
	var tookOver string
	for try := 0; ; try++ {
		created, err := m.Create(ctx, mustJSON(me))
		if err != nil {
			return unguarded(err)
		}
		if created {
			note := ""
			if tookOver != "" {
				note = fmt.Sprintf("took over %s from %s, which is gone (its marker %s was stale)", target, tookOver, m.Where())
			}
			return renew(m, me), note, nil
		}
		content, err := m.Read(ctx)
		if err != nil {
			return unguarded(err)
		}
		var h Holder
		if content == nil || json.Unmarshal(content, &h) != nil || h.Since.IsZero() {
			// Being written (a time series is created before its value)
			// or removed: look again shortly; a marker that stays empty or
			// unreadable is nobody's.
			if try < 20 {
				if err := sleep(ctx, 100*time.Millisecond); err != nil {
					return unguarded(err)
				}
				continue
			}
			h = Holder{}
		} else if !stale(h, host, now) {
			if me.Group != "" && h.Group == me.Group {
				m.Close()
				return func() {}, "", nil // an instance of the same run holds it
			}
			m.Close()
			return nil, "", &InUseError{Target: target, Holder: h, Where: m.Where()}
		}
		if try >= 22 {
			return unguarded(errors.New("another run keeps taking it over"))
		}
		tookOver = h.String()
		if h.Since.IsZero() {
			tookOver = "an unreadable marker"
		}
		if err := m.Remove(ctx); err != nil {
			return unguarded(err)
		}
	}
}

// stale: not renewed for StaleAfter, or its process is gone from this
// machine.
func stale(h Holder, host string, now time.Time) bool {
	if now.Sub(h.Beat) > StaleAfter {
		return true
	}
	return h.Host == host && h.PID != os.Getpid() && !alive(h.PID)
}

// renew keeps the marker fresh until release, which removes it.
func renew(m Marker, me Holder) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(RenewEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				me.Beat = now.UTC()
				rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
				_ = m.Renew(rctx, mustJSON(me)) // a restarting server misses a beat; StaleAfter allows for it
				rcancel()
			}
		}
	}()
	return func() {
		cancel()
		<-done
		rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer rcancel()
		_ = m.Remove(rctx) // a marker left behind turns stale
		m.Close()
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func mustJSON(h Holder) []byte {
	b, err := json.Marshal(h)
	if err != nil {
		panic(err) // a struct of strings, ints and times always encodes
	}
	return b
}
