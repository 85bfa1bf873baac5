// Package telemetry samples what a database server and its machine did
// while a phase was measured, on a fixed interval beside the clients, and
// sums each figure up per phase; no operation waits on it.
package telemetry

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Source is what one sampled thing reported over a phase: when each
// sample was taken and a series per figure.
type Source struct {
	Name string `json:"name"` // "machine", "process 1234 (java, port 6667)"
	// Started is when the sampling started; At is each sample's time,
	// milliseconds after it.
	Started time.Time `json:"started_at"`
	At      []int64   `json:"at_ms"`
	Series  []Series  `json:"series"`
	// Missed counts the samples that could not be read; Error is the last
	// reason. A source that never reported has no samples and says why.
	Missed int    `json:"missed,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Series is one figure of a source, a value per sample.
type Series struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Counter marks a cumulative figure (CPU seconds, bytes written): its
	// Values are the changes since the sample before, the first one 0, so
	// that the record stays small and the phase's total is their sum.
	Counter bool `json:"counter,omitempty"`
	// Chart marks one of a database's key series, which the HTML page
	// draws over time (flushes, compactions, heap, file sizes).
	Chart bool `json:"chart,omitempty"`
	// Written marks a counter of what the run wrote as the server counts
	// it (IoTDB's points in, Elasticsearch's documents indexed): compare
	// sets its total against the points or documents the run wrote.
	Written bool      `json:"written,omitempty"`
	Values  []float64 `json:"values"`
}

// Kind is a source's name without what another run of the same server
// changes, a process's pid: "process 123 (java, port 6667)" is "process
// (java, port 6667)", and a merged record's "instance 2: process 123 (…)"
// keeps its instance, and a disk found by a folder, "disk vda (folder)", is
// "disk vda". The compare tables and the charts match sources by it.
func Kind(name string) string {
	// A disk is named with the folder that found it: each side of a
	// routine has a state folder of its own on the same device.
	if d := strings.Index(name, "disk "); d >= 0 && (d == 0 || strings.HasSuffix(name[:d], ": ")) {
		if p := strings.Index(name[d:], " ("); p >= 0 && strings.HasSuffix(name, ")") {
			return name[:d+p]
		}
	}
	i := strings.Index(name, "process ")
	if i < 0 {
		return name
	}
	rest := name[i+len("process "):]
	if j := strings.IndexByte(rest, ' '); j >= 0 {
		rest = rest[j:]
	}
	return name[:i] + "process" + rest
}

// Kinds is Kind of each of one phase's sources, with the ports left out
// of those that stay unique without them ("process (java)", "IoTDB
// DataNode 127.0.0.1"): the sides of a routine whose servers all run at
// once listen on ports of their own, and their one server process or node
// is still the same kind of source. Sources that only their ports tell
// apart (the nodes of a cluster on one machine) keep them.
func Kinds(srcs []Source) []string {
	kinds := make([]string, len(srcs))
	bare := make([]string, len(srcs))
	count := map[string]int{}
	for i, src := range srcs {
		kinds[i] = Kind(src.Name)
		bare[i] = portNumbers.ReplaceAllString(kinds[i], "")
		count[bare[i]]++
	}
	for i := range kinds {
		if count[bare[i]] == 1 {
			kinds[i] = bare[i]
		}
	}
	return kinds
}

// portNumbers matches a port in a source's name: a process's ", port N",
// an endpoint's ":N".
var portNumbers = regexp.MustCompile(`(, port [0-9]+|:[0-9]+\b)`)

// Summary is a series summed up over its phase.
type Summary struct {
	Source, Name, Unit string
	Counter            bool
	Samples            int
	// Total is a counter's change over the phase, MaxRate its largest
	// change per second between two samples; Mean and Max a gauge's.
	Total, MaxRate, Mean, Max float64
}

// Summaries sums up every series of the source; a source without samples
// has none.
func (s Source) Summaries() []Summary {
	var out []Summary
	for _, se := range s.Series {
		if len(se.Values) == 0 {
			continue
		}
		sum := Summary{Source: s.Name, Name: se.Name, Unit: se.Unit, Counter: se.Counter, Samples: len(se.Values)}
		for i, v := range se.Values {
			if se.Counter {
				sum.Total += v
				if i > 0 && i < len(s.At) && s.At[i] > s.At[i-1] {
					sum.MaxRate = max(sum.MaxRate, v/(float64(s.At[i]-s.At[i-1])/1000))
				}
				continue
			}
			sum.Mean += v / float64(len(se.Values))
			if i == 0 || v > sum.Max {
				sum.Max = v
			}
		}
		out = append(out, sum)
	}
	return out
}

// Reader reads one source's figures, the same ones in the same order at
// every call: counters as their cumulative values. The host's readers are
// this package's; a database's own (its metrics endpoint, its statistics
// API) come from its adapter (adapters.Telemetry).
type Reader interface {
	Name() string
	Figures() []Series // names, units and kinds, without values
	Read(ctx context.Context) ([]float64, error)
}

// Spaced is a Reader that is read less often than every interval: at a
// phase's start and end, and between them once Every has passed since its
// last read (a metrics endpoint whose every read costs the server and
// tsbench more than the host's /proc does).
type Spaced interface {
	Every() time.Duration
}

// ReadTimeout bounds one read of a source: a server that stopped
// answering costs its samples, never the phase's end.
const ReadTimeout = 2 * time.Second

// Sampler samples its sources every Interval while a phase runs.
type Sampler struct {
	Interval time.Duration
	readers  []Reader
}

// Add adds sources to sample.
func (s *Sampler) Add(rs ...Reader) { s.readers = append(s.readers, rs...) }

// Sources names what the sampler reads.
func (s *Sampler) Sources() []string {
	var out []string
	for _, r := range s.readers {
		out = append(out, r.Name())
	}
	return out
}

// Sampling is one phase's sampling under way.
type Sampling struct {
	start   time.Time
	stop    chan struct{}
	done    sync.WaitGroup
	sources []Source
	last    [][]float64 // each reader's previous cumulative values
	lastAt  []time.Time // when each reader was last read
	readers []Reader
	every   time.Duration // the sampler's interval
	ctx     context.Context
}

// Start takes a first sample of every source and then one every Interval
// on a goroutine of its own, until Stop or ctx ends.
func (s *Sampler) Start(ctx context.Context) *Sampling {
	// The last sample is taken after the phase, whose context may be done.
	sm := &Sampling{start: time.Now(), stop: make(chan struct{}), readers: s.readers, ctx: context.WithoutCancel(ctx), every: s.Interval}
	for _, r := range s.readers {
		// A phase's own series: a reader may hand out the same figures to
		// every phase.
		series := slices.Clone(r.Figures())
		for i := range series {
			series[i].Values = nil
		}
		sm.sources = append(sm.sources, Source{Name: r.Name(), Started: sm.start.UTC(), Series: series})
	}
	sm.last = make([][]float64, len(s.readers))
	sm.lastAt = make([]time.Time, len(s.readers))
	sm.sample(true)
	if len(s.readers) == 0 || s.Interval <= 0 {
		return sm
	}
	sm.done.Add(1)
	go func() {
		defer sm.done.Done()
		t := time.NewTicker(s.Interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				sm.sample(false)
			case <-sm.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return sm
}

// Stop ends the sampling with a last sample and returns what every source
// reported.
func (sm *Sampling) Stop() []Source {
	close(sm.stop)
	sm.done.Wait()
	sm.sample(true)
	return sm.sources
}

// sample reads every source once, a Spaced one only when its time has
// come or all is true; a source that fails this time misses the sample
// (all its series alike, so their values stay aligned with At).
func (sm *Sampling) sample(all bool) {
	now := time.Now()
	at := now.Sub(sm.start).Milliseconds()
	for i, r := range sm.readers {
		if sp, ok := r.(Spaced); ok && !all && now.Sub(sm.lastAt[i]) < sp.Every()-sm.every/2 {
			continue
		}
		sm.lastAt[i] = now
		src := &sm.sources[i]
		ctx, cancel := context.WithTimeout(sm.ctx, ReadTimeout)
		vals, err := r.Read(ctx)
		cancel()
		if err == nil && len(vals) != len(src.Series) {
			err = fmt.Errorf("read %d figures, want %d", len(vals), len(src.Series))
		}
		if err != nil {
			src.Missed++
			src.Error = err.Error()
			continue
		}
		src.At = append(src.At, at)
		for j, v := range vals {
			se := &src.Series[j]
			if se.Counter {
				d := 0.0
				if sm.last[i] != nil {
					d = v - sm.last[i][j]
				}
				se.Values = append(se.Values, d)
				continue
			}
			se.Values = append(se.Values, v)
		}
		sm.last[i] = vals
	}
}

// Check says what makes a source read from a record unusable: a series
// whose values do not match the samples' times, times that go back, or a
// value that is not a number.
func (s Source) Check() error {
	for i := 1; i < len(s.At); i++ {
		if s.At[i] < s.At[i-1] {
			return fmt.Errorf("server source %q: sample %d is older than the one before", s.Name, i+1)
		}
	}
	for _, se := range s.Series {
		if len(se.Values) != len(s.At) {
			return fmt.Errorf("server source %q: %s has %d values for %d samples", s.Name, se.Name, len(se.Values), len(s.At))
		}
		for _, v := range se.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("server source %q: %s holds %v", s.Name, se.Name, v)
			}
		}
	}
	return nil
}
