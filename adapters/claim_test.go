package adapters_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/internal/configtest"
)

// memMarker keeps a marker in memory with the servers' semantics (an
// atomic create), so that Hold's rules can be tried one by one; the
// servers' markers are tested against the servers (adapters/iotdb,
// adapters/elasticsearch).
type memMarker struct {
	mu      sync.Mutex
	content []byte
	fail    error
	removed int
}

func (m *memMarker) Create(_ context.Context, b []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return false, m.fail
	}
	if m.content != nil {
		return false, nil
	}
	m.content = b
	return true, nil
}

func (m *memMarker) Read(context.Context) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.content, nil
}

func (m *memMarker) Renew(_ context.Context, b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.content = b
	return nil
}

func (m *memMarker) Remove(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.content = nil
	m.removed++
	return nil
}

func (m *memMarker) Where() string { return "marker M" }
func (m *memMarker) Close()        {}

func (m *memMarker) holder(t *testing.T) adapters.Holder {
	t.Helper()
	var h adapters.Holder
	if err := json.Unmarshal(m.content, &h); err != nil {
		t.Fatalf("marker %q: %v", m.content, err)
	}
	return h
}

// deadPID is the pid of a process of this machine that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestHold(t *testing.T) {
	host, _ := os.Hostname()
	single := configtest.Load(t, nil)
	inst0 := configtest.Load(t, nil, "BENCHMARK_CLUSTER=true", "BENCHMARK_INSTANCES=2", "BENCHMARK_INDEX=0")
	inst1 := configtest.Load(t, nil, "BENCHMARK_CLUSTER=true", "BENCHMARK_INSTANCES=2", "BENCHMARK_INDEX=1")
	other := configtest.Load(t, nil, "BENCHMARK_CLUSTER=true", "BENCHMARK_INSTANCES=2", "BENCHMARK_INDEX=1", "LOOP=7")
	now := time.Now().UTC()
	marker := func(h adapters.Holder) *memMarker {
		b, _ := json.Marshal(h)
		return &memMarker{content: b}
	}
	live := adapters.Holder{Host: host, PID: os.Getppid(), Since: now.Add(-time.Hour), Beat: now.Add(-time.Minute)}

	t.Run("free", func(t *testing.T) {
		m := &memMarker{}
		release, note, err := adapters.Hold(context.Background(), m, single, "the target")
		if err != nil || note != "" {
			t.Fatalf("note %q, error %v", note, err)
		}
		if h := m.holder(t); h.PID != os.Getpid() || h.Host != host || h.Group != "" {
			t.Errorf("the marker says %+v", h)
		}
		release()
		if m.content != nil {
			t.Errorf("release left the marker %s", m.content)
		}
	})
	t.Run("held", func(t *testing.T) {
		m := marker(live)
		_, _, err := adapters.Hold(context.Background(), m, single, "the target")
		var inUse *adapters.InUseError
		if !errors.As(err, &inUse) || inUse.Holder.PID != live.PID {
			t.Fatalf("error %v, want an InUseError naming pid %d", err, live.PID)
		}
		for _, want := range []string{"the target: held by bench (pid", "on " + host, "marker M", "DB_NAME"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
		if m.removed != 0 {
			t.Error("a live marker was removed")
		}
	})
	for name, h := range map[string]adapters.Holder{
		"stale by age":      {Host: "elsewhere", PID: 1, Since: now.Add(-time.Hour), Beat: now.Add(-adapters.StaleAfter - time.Second)},
		"holder gone":       {Host: host, PID: deadPID(t), Since: now, Beat: now},
		"unreadable marker": {},
	} {
		t.Run(name, func(t *testing.T) {
			m := marker(h)
			if h.Since.IsZero() {
				m = &memMarker{content: []byte("{")}
			}
			release, note, err := adapters.Hold(context.Background(), m, single, "the target")
			if err != nil || !strings.Contains(note, "took over the target from") {
				t.Fatalf("note %q, error %v", note, err)
			}
			if m.holder(t).PID != os.Getpid() {
				t.Errorf("the marker says %s", m.content)
			}
			release()
		})
	}
	t.Run("instances of one run share", func(t *testing.T) {
		m := &memMarker{}
		release0, _, err := adapters.Hold(context.Background(), m, inst0, "the target")
		if err != nil {
			t.Fatal(err)
		}
		first := string(m.content)
		m2 := &memMarker{content: m.content}
		// Another process of the same run: the marker names another pid.
		h := m.holder(t)
		h.PID = os.Getppid()
		b, _ := json.Marshal(h)
		m2.content = b
		release1, note, err := adapters.Hold(context.Background(), m2, inst1, "the target")
		if err != nil || note != "" {
			t.Fatalf("the second instance: note %q, error %v", note, err)
		}
		release1()
		if m2.removed != 0 {
			t.Error("the instance that joined removed the marker")
		}
		if _, _, err := adapters.Hold(context.Background(), m2, other, "the target"); err == nil {
			t.Error("an instance of another distributed run joined")
		}
		if _, _, err := adapters.Hold(context.Background(), m2, single, "the target"); err == nil {
			t.Error("a run of its own joined a distributed run")
		}
		release0()
		if m.content != nil || first == "" {
			t.Errorf("the first instance's release left %s", m.content)
		}
	})
	t.Run("server unreachable", func(t *testing.T) {
		m := &memMarker{fail: fmt.Errorf("cannot reach Elasticsearch at http://127.0.0.1:1: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")})}
		release, note, err := adapters.Hold(context.Background(), m, single, "the target")
		if err != nil || note != "" {
			t.Fatalf("note %q, error %v; want neither: opening the database reports it", note, err)
		}
		release()
	})
	t.Run("no marker kept", func(t *testing.T) {
		m := &memMarker{fail: errors.New("permission denied")}
		release, note, err := adapters.Hold(context.Background(), m, single, "the target")
		if err != nil || !strings.Contains(note, "the target not guarded against a second run: the lock marker marker M: permission denied") {
			t.Fatalf("note %q, error %v", note, err)
		}
		release()
	})
}
