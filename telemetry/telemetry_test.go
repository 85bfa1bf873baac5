package telemetry

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSummaries(t *testing.T) {
	s := Source{Name: "p", At: []int64{0, 1000, 3000}, Series: []Series{
		{Name: "cpu", Unit: "s", Counter: true, Values: []float64{0, 0.5, 3}},
		{Name: "rss", Unit: "bytes", Values: []float64{10, 40, 10}},
		{Name: "never", Unit: "x"},
	}}
	got := s.Summaries()
	if len(got) != 2 {
		t.Fatalf("%d summaries, want 2 (a series without values has none): %+v", len(got), got)
	}
	if c := got[0]; !c.Counter || c.Total != 3.5 || c.MaxRate != 1.5 || c.Samples != 3 || c.Source != "p" {
		t.Errorf("counter %+v: total 3.5, max rate 1.5/s (3 s over 2 s)", c)
	}
	if g := got[1]; g.Counter || g.Mean != 20 || g.Max != 40 {
		t.Errorf("gauge %+v: mean 20, max 40", g)
	}
}

// fake reads cumulative values from a list; a nil entry fails.
type fake struct {
	vals [][]float64
	i    int
}

func (f *fake) Name() string { return "fake" }
func (f *fake) Figures() []Series {
	return []Series{{Name: "c", Counter: true}, {Name: "g"}}
}
func (f *fake) Read(context.Context) ([]float64, error) {
	v := f.vals[min(f.i, len(f.vals)-1)]
	f.i++
	if v == nil {
		return nil, errors.New("gone")
	}
	return v, nil
}

// TestSampling: a first sample at Start, a last at Stop; counters become
// changes; a failed read misses the sample for every series of its
// source, so values stay aligned with the times.
func TestSampling(t *testing.T) {
	f := &fake{vals: [][]float64{{10, 1}, nil, {15, 3}, {16, 4}}}
	s := &Sampler{Interval: 20 * time.Millisecond, readers: []Reader{f}}
	sm := s.Start(context.Background())
	time.Sleep(70 * time.Millisecond)
	src := sm.Stop()[0]
	if src.Missed != 1 || src.Error != "gone" {
		t.Errorf("missed %d (%q), want 1 gone", src.Missed, src.Error)
	}
	c, g := src.Series[0].Values, src.Series[1].Values
	if len(src.At) != len(c) || len(c) != len(g) || len(c) < 3 {
		t.Fatalf("times %v, counter %v, gauge %v: not aligned", src.At, c, g)
	}
	if c[0] != 0 || c[1] != 5 || c[2] != 1 || g[0] != 1 || g[1] != 3 {
		t.Errorf("counter %v, want 0 5 1 …; gauge %v, want 1 3 …", c, g)
	}
	for i := 1; i < len(src.At); i++ {
		if src.At[i] < src.At[i-1] {
			t.Errorf("times go back: %v", src.At)
		}
	}
	// Off: the first and the last sample only.
	f = &fake{vals: [][]float64{{1, 1}, {2, 2}}}
	sm = (&Sampler{readers: []Reader{f}}).Start(context.Background())
	time.Sleep(30 * time.Millisecond)
	if src := sm.Stop()[0]; len(src.At) != 2 || src.Series[0].Values[1] != 1 {
		t.Errorf("without an interval: %+v", src)
	}
	if math.IsNaN(src.Series[1].Values[0]) {
		t.Error("NaN")
	}
}

func TestCheck(t *testing.T) {
	good := Source{Name: "m", At: []int64{0, 10}, Series: []Series{{Name: "a", Values: []float64{1, 2}}}}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Source{
		{Name: "m", At: []int64{0, 10}, Series: []Series{{Name: "a", Values: []float64{1}}}},
		{Name: "m", At: []int64{10, 0}, Series: []Series{{Name: "a", Values: []float64{1, 2}}}},
		{Name: "m", At: []int64{0}, Series: []Series{{Name: "a", Values: []float64{math.Inf(1)}}}},
	} {
		if err := bad.Check(); err == nil || !strings.HasPrefix(err.Error(), `server source "m": `) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// shared hands out the same figures to every phase, as a reader made from
// a MetricsReporter does.
type shared struct{ figs []Series }

func (s *shared) Name() string                            { return "shared" }
func (s *shared) Figures() []Series                       { return s.figs }
func (s *shared) Read(context.Context) ([]float64, error) { return []float64{1}, nil }

// TestPhasesOwnTheirSeries: one Sampler over two phases gives each its own
// values, whatever the reader hands out (a shared slice once made one
// phase's values pile onto the next's).
func TestPhasesOwnTheirSeries(t *testing.T) {
	s := &Sampler{readers: []Reader{&shared{figs: []Series{{Name: "g"}}}}}
	for phase := 1; phase <= 3; phase++ {
		src := s.Start(context.Background()).Stop()[0]
		if err := src.Check(); err != nil || len(src.Series[0].Values) != 2 {
			t.Fatalf("phase %d: %d values for %d samples (%v)", phase, len(src.Series[0].Values), len(src.At), err)
		}
	}
}

// spaced is a fake read every 100 ms at most.
type spaced struct{ fake }

func (*spaced) Every() time.Duration { return 100 * time.Millisecond }

// TestSpaced: a Spaced source is read at the phase's start and end and
// between them as its spacing allows, while the others are read at every
// interval; its series stay aligned with its own sample times.
func TestSpaced(t *testing.T) {
	every := &fake{vals: [][]float64{{1, 1}}}
	slow := &spaced{fake{vals: [][]float64{{1, 1}}}}
	s := &Sampler{Interval: 10 * time.Millisecond, readers: []Reader{every, slow}}
	sm := s.Start(context.Background())
	time.Sleep(350 * time.Millisecond)
	srcs := sm.Stop()
	n, m := len(srcs[0].At), len(srcs[1].At)
	t.Logf("%d samples every 10 ms, %d of the source spaced 100 ms apart", n, m)
	if m < 3 || m > 6 || n < 3*m || srcs[1].Check() != nil {
		t.Errorf("%d samples of the spaced source (want 3 to 6: start, about one in 100 ms, end) against %d of the other; %v", m, n, srcs[1].Check())
	}
	for i := 2; i < m-1; i++ {
		if gap := srcs[1].At[i] - srcs[1].At[i-1]; gap < 90 {
			t.Errorf("spaced samples %d ms apart, want about 100", gap)
		}
	}
}

func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		"process 123 (java, port 6667)":             "process (java, port 6667)",
		"instance 2: process 9 (bench)":             "instance 2: process (bench)",
		"machine":                                   "machine",
		"IoTDB DataNode 127.0.0.1:9092":             "IoTDB DataNode 127.0.0.1:9092",
		"disk vda (/root/.cache/tsbench/iotdb-run)": "disk vda",
		"disk vda (/tmp/r/servers/master)":          "disk vda",
		"instance 2: disk sdb (/data)":              "instance 2: disk sdb",
	} {
		if got := Kind(in); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKinds: one phase's sources lose their ports where they stay apart
// without them (a routine's sides on ports of their own are one kind), and
// keep them where only the port tells them apart (a cluster on one host).
func TestKinds(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"machine", "process 12 (java, port 6767)", "IoTDB DataNode 127.0.0.1:9192", "IoTDB ConfigNode 127.0.0.1:9191", "disk sda (/tmp/x)"},
			[]string{"machine", "process (java)", "IoTDB DataNode 127.0.0.1", "IoTDB ConfigNode 127.0.0.1", "disk sda"}},
		{[]string{"process 1 (java, port 6667)", "process 2 (java, port 6668)", "process 3 (bench)", "IoTDB DataNode 127.0.0.1:9092", "IoTDB DataNode 127.0.0.1:9093"},
			[]string{"process (java, port 6667)", "process (java, port 6668)", "process (bench)", "IoTDB DataNode 127.0.0.1:9092", "IoTDB DataNode 127.0.0.1:9093"}},
		{nil, []string{}},
	} {
		srcs := make([]Source, len(tc.in))
		for i, n := range tc.in {
			srcs[i].Name = n
		}
		if got := Kinds(srcs); !slices.Equal(got, tc.want) {
			t.Errorf("Kinds(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
