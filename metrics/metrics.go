// Package metrics records operations: per operation ok/failed counts and
// points, an HdrHistogram of latencies (microseconds, 3 significant digits,
// up to one hour) with the exact sum, minimum and maximum, and points per
// one-second window. A Recorder belongs to one client goroutine and needs no
// locks; Snapshots merge exactly.
package metrics

import (
	"encoding/base64"
	"fmt"
	"math"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 µs resolution, values up to one hour.
const (
	lowestMicros  = 1
	highestMicros = int64(time.Hour / time.Microsecond)
	sigFigs       = 3
)

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(lowestMicros, highestMicros, sigFigs)
}

// Recorder collects one client's operations of one phase.
type Recorder struct {
	start time.Time
	ops   []*Op
	index map[string]int
}

// NewRecorder starts recording; one-second windows count from start.
func NewRecorder(start time.Time) *Recorder {
	return &Recorder{start: start, index: map[string]int{}}
}

// Op returns the handle of a named operation, creating it on first use.
// Hold on to it: recording through a handle costs no map lookup.
func (r *Recorder) Op(name string) *Op {
	if i, ok := r.index[name]; ok {
		return r.ops[i]
	}
	op := &Op{name: name, rec: r, min: math.MaxInt64}
	r.index[name] = len(r.ops)
	r.ops = append(r.ops, op)
	return op
}

// Op accumulates one operation kind of one client.
type Op struct {
	name                             string
	rec                              *Recorder
	okOps, okPoints, failOps, failPt int64
	sumMicros, min, max              int64
	hist                             *hdrhistogram.Histogram // created on first success
	perSecond                        []int64                 // ok points by completion second
	// Service time, recorded only by RecordWaited (a run with a schedule):
	// the request's own time, without its wait behind the schedule.
	svcSum, svcMin, svcMax int64
	svcHist                *hdrhistogram.Histogram
	errors                 map[string]int64 // failure messages and how often
	// Documents and bytes of the successful writes, where the database
	// counts them (AddVolume).
	okDocs, okBytes int64
	// Answers checked against the model (CHECK_ANSWERS), how many of them
	// were wrong (each also a failed operation), and the time the checks
	// took the client.
	checked, wrong, checkMicros int64
}

// CountAnswer adds one answer checked against the model of the workload,
// a check that took the client d; a wrong one is also recorded as a failed
// operation, with its reason.
func (o *Op) CountAnswer(wrong bool, d time.Duration) {
	o.checked++
	if wrong {
		o.wrong++
	}
	o.checkMicros += d.Microseconds()
}

// AddVolume adds the documents and bytes of a successful operation, for a
// document database whose reports count documents/s and MB/s.
func (o *Op) AddVolume(docs, bytes int64) {
	o.okDocs += docs
	o.okBytes += bytes
}

// OtherErrors counts the failures whose messages came after the kept few.
const OtherErrors = "(other errors)"

// maxErrorKinds bounds the distinct failure messages kept per operation, so
// a server that fails with ever-changing messages cannot grow memory.
const maxErrorKinds = 10

// Record adds one operation that started at start and took d; err is
// its failure, if it failed. Failed operations count but their latency does
// not go into the histogram (a timeout would otherwise look like a result).
func (o *Op) Record(start time.Time, d time.Duration, points int64, err error) {
	if err != nil {
		o.failOps++
		o.failPt += points
		msg := err.Error()
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		if o.errors == nil {
			o.errors = map[string]int64{}
		}
		if _, seen := o.errors[msg]; seen || len(o.errors) < maxErrorKinds {
			o.errors[msg]++
		} else {
			o.errors[OtherErrors]++
		}
		return
	}
	us := max(int64(d/time.Microsecond), lowestMicros)
	us = min(us, highestMicros)
	if o.hist == nil {
		o.hist = newHistogram()
	}
	_ = o.hist.RecordValue(us) // in range by construction
	o.okOps++
	o.okPoints += points
	o.sumMicros += us
	o.min = min(o.min, us)
	o.max = max(o.max, us)
	o.countSecond(start.Add(d), points)
}

// countSecond adds ok points to the one-second window they completed in.
func (o *Op) countSecond(end time.Time, points int64) {
	sec := int(end.Sub(o.rec.start) / time.Second)
	if sec < 0 || points == 0 {
		return
	}
	for len(o.perSecond) <= sec {
		o.perSecond = append(o.perSecond, 0)
	}
	o.perSecond[sec] += points
}

// RecordWaited adds one operation of a scheduled run: it was due at
// start-wait, was issued at start and took service. Its latency is
// wait+service, as Rally counts it (the time it waited behind the schedule
// included); its service time, the request's own, goes into a histogram of
// its own. A failed operation has neither.
func (o *Op) RecordWaited(start time.Time, service, wait time.Duration, points int64, err error) {
	o.Record(start.Add(-wait), wait+service, points, err)
	if err != nil {
		return
	}
	us := min(max(int64(service/time.Microsecond), lowestMicros), highestMicros)
	if o.svcHist == nil {
		o.svcHist = newHistogram()
		o.svcMin = math.MaxInt64
	}
	_ = o.svcHist.RecordValue(us)
	o.svcSum += us
	o.svcMin = min(o.svcMin, us)
	o.svcMax = max(o.svcMax, us)
}

// RecordPartial adds one write that stored some of its points and not
// others (a bulk with failed items): it is a failed operation whose stored
// points still count as written, and whose failed points count as failed.
func (o *Op) RecordPartial(start time.Time, d time.Duration, okPoints, failedPoints int64, err error) {
	o.Record(start, d, failedPoints, err)
	o.okPoints += okPoints
	o.countSecond(start.Add(d), okPoints)
}

// Snapshot is the merged record of one operation. Its JSON form holds the
// histogram encoded (HdrHistogram V2, compressed, base64) so that records
// from several clients, processes or machines merge exactly.
type Snapshot struct {
	Operation  string  `json:"operation"`
	OKOps      int64   `json:"ok_operations"`
	OKPoints   int64   `json:"ok_points"`
	FailOps    int64   `json:"failed_operations"`
	FailPoints int64   `json:"failed_points"`
	SumMicros  int64   `json:"latency_sum_us"`
	MinMicros  int64   `json:"latency_min_us"`
	MaxMicros  int64   `json:"latency_max_us"`
	Histogram  string  `json:"latency_histogram,omitempty"`
	PerSecond  []int64 `json:"points_per_second,omitempty"`
	// Errors counts failures by message (at most a few distinct messages).
	Errors map[string]int64 `json:"errors,omitempty"`
	// Service time of a scheduled run (TARGET_THROUGHPUT): the requests' own
	// time; the latency fields above then include the wait behind the
	// schedule. Absent otherwise, where the two are the same.
	ServiceSumMicros int64  `json:"service_time_sum_us,omitempty"`
	ServiceMinMicros int64  `json:"service_time_min_us,omitempty"`
	ServiceMaxMicros int64  `json:"service_time_max_us,omitempty"`
	ServiceHistogram string `json:"service_time_histogram,omitempty"`
	// Documents and bytes (of request bodies) the successful operations
	// wrote, kept by document databases; absent elsewhere.
	OKDocs  int64 `json:"ok_documents,omitempty"`
	OKBytes int64 `json:"ok_bytes,omitempty"`
	// Answers checked against the model of the workload (CHECK_ANSWERS),
	// and the wrong ones among them, which are also failed operations.
	AnswersChecked int64 `json:"answers_checked,omitempty"`
	AnswersWrong   int64 `json:"answers_wrong,omitempty"`
	// CheckMicros is the time the checks took the clients, after each
	// query's latency was taken: what checking cost the run.
	CheckMicros int64 `json:"answers_check_us,omitempty"`

	hist, svcHist *hdrhistogram.Histogram
}

// Snapshots returns every operation of the recorder.
func (r *Recorder) Snapshots() []*Snapshot {
	var out []*Snapshot
	for _, o := range r.ops {
		s := &Snapshot{Operation: o.name, OKOps: o.okOps, OKPoints: o.okPoints, FailOps: o.failOps, FailPoints: o.failPt,
			SumMicros: o.sumMicros, PerSecond: append([]int64(nil), o.perSecond...), OKDocs: o.okDocs, OKBytes: o.okBytes,
			AnswersChecked: o.checked, AnswersWrong: o.wrong, CheckMicros: o.checkMicros}
		for msg, n := range o.errors {
			if s.Errors == nil {
				s.Errors = map[string]int64{}
			}
			s.Errors[msg] = n
		}
		if o.okOps > 0 {
			s.MinMicros, s.MaxMicros = o.min, o.max
			s.hist = o.hist.Clone()
		}
		if o.svcHist != nil {
			s.ServiceSumMicros, s.ServiceMinMicros, s.ServiceMaxMicros = o.svcSum, o.svcMin, o.svcMax
			s.svcHist = o.svcHist.Clone()
		}
		out = append(out, s)
	}
	return out
}

// Merge combines snapshots by operation name, keeping first-seen order.
func Merge(parts ...[]*Snapshot) []*Snapshot {
	var out []*Snapshot
	by := map[string]*Snapshot{}
	for _, part := range parts {
		for _, s := range part {
			m, ok := by[s.Operation]
			if !ok {
				m = &Snapshot{Operation: s.Operation}
				by[s.Operation] = m
				out = append(out, m)
			}
			m.add(s)
		}
	}
	return out
}

func (m *Snapshot) add(s *Snapshot) {
	if s.OKOps > 0 {
		if m.OKOps == 0 || s.MinMicros < m.MinMicros {
			m.MinMicros = s.MinMicros
		}
		m.MaxMicros = max(m.MaxMicros, s.MaxMicros)
		if h := s.histogram(); h != nil {
			if m.hist == nil {
				m.hist = newHistogram()
			}
			m.hist.Merge(h)
		}
	}
	if h := s.serviceHistogram(); h != nil {
		if m.svcHist == nil {
			m.svcHist = newHistogram()
			m.ServiceMinMicros = s.ServiceMinMicros
		}
		m.svcHist.Merge(h)
		m.ServiceMinMicros = min(m.ServiceMinMicros, s.ServiceMinMicros)
		m.ServiceMaxMicros = max(m.ServiceMaxMicros, s.ServiceMaxMicros)
		m.ServiceSumMicros += s.ServiceSumMicros
	}
	m.OKOps += s.OKOps
	m.OKPoints += s.OKPoints
	m.OKDocs += s.OKDocs
	m.OKBytes += s.OKBytes
	m.AnswersChecked += s.AnswersChecked
	m.AnswersWrong += s.AnswersWrong
	m.CheckMicros += s.CheckMicros
	m.FailOps += s.FailOps
	m.FailPoints += s.FailPoints
	m.SumMicros += s.SumMicros
	for msg, n := range s.Errors {
		if m.Errors == nil {
			m.Errors = map[string]int64{}
		}
		m.Errors[msg] += n
	}
	for len(m.PerSecond) < len(s.PerSecond) {
		m.PerSecond = append(m.PerSecond, 0)
	}
	for i, p := range s.PerSecond {
		m.PerSecond[i] += p
	}
}

// Delayed returns a copy whose one-second windows begin k windows later:
// a snapshot of a phase that started k seconds after another's, aligned
// with it before they merge.
func (s *Snapshot) Delayed(k int) *Snapshot {
	c := *s
	if k > 0 && len(s.PerSecond) > 0 {
		c.PerSecond = append(make([]int64, k), s.PerSecond...)
	}
	return &c
}

// Count is how many latencies the histogram holds: OKOps for a snapshot
// recorded or merged correctly.
func (s *Snapshot) Count() int64 {
	if h := s.histogram(); h != nil {
		return h.TotalCount()
	}
	return 0
}

// decoded returns *cached, decoding it from its saved form on first use;
// nil when there is none.
func decoded(cached **hdrhistogram.Histogram, saved string) *hdrhistogram.Histogram {
	if *cached == nil && saved != "" {
		if raw, err := base64.StdEncoding.DecodeString(saved); err == nil {
			*cached, _ = hdrhistogram.Decode(raw)
		}
	}
	return *cached
}

// histogram returns the latency histogram (nil when there were no successes).
func (s *Snapshot) histogram() *hdrhistogram.Histogram { return decoded(&s.hist, s.Histogram) }

// serviceHistogram returns the service-time histogram, nil for a run
// without a schedule.
func (s *Snapshot) serviceHistogram() *hdrhistogram.Histogram {
	return decoded(&s.svcHist, s.ServiceHistogram)
}

// summarise is the Latency row of n values with an exact sum, minimum and
// maximum (µs) and their histogram; a percentile never leaves [min, max]
// (the histogram reports the top of a bucket).
func summarise(h *hdrhistogram.Histogram, n, sum, lo, hi int64) Latency {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	p := func(q float64) float64 { return ms(min(max(h.ValueAtPercentile(q), lo), hi)) }
	return Latency{
		Avg: float64(sum) / float64(n) / 1000, Min: ms(lo),
		P10: p(10), P25: p(25), Median: p(50), P75: p(75), P90: p(90), P95: p(95), P99: p(99), P999: p(99.9),
		Max: ms(hi),
	}
}

// Check says what makes a snapshot read from a file unusable: a negative
// count, sum or window, a minimum above the maximum, or a histogram that
// does not decode (successes without one could only be shown as 0 ms).
func (s *Snapshot) Check() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"ok_operations", s.OKOps}, {"ok_points", s.OKPoints}, {"failed_operations", s.FailOps}, {"failed_points", s.FailPoints},
		{"latency_sum_us", s.SumMicros}, {"latency_min_us", s.MinMicros}, {"latency_max_us", s.MaxMicros},
		{"service_time_sum_us", s.ServiceSumMicros}, {"service_time_min_us", s.ServiceMinMicros}, {"service_time_max_us", s.ServiceMaxMicros},
		{"ok_documents", s.OKDocs}, {"ok_bytes", s.OKBytes}, {"answers_checked", s.AnswersChecked}, {"answers_wrong", s.AnswersWrong}, {"answers_check_us", s.CheckMicros}} {
		if f.v < 0 {
			return fmt.Errorf("operation %q has %s %d, less than 0", s.Operation, f.name, f.v)
		}
	}
	for i, n := range s.PerSecond {
		if n < 0 {
			return fmt.Errorf("operation %q has %d points in second %d, less than 0", s.Operation, n, i+1)
		}
	}
	for msg, n := range s.Errors {
		if n < 0 {
			return fmt.Errorf("operation %q counts error %q %d times, less than 0", s.Operation, msg, n)
		}
	}
	if s.AnswersWrong > s.AnswersChecked || s.AnswersWrong > s.FailOps {
		return fmt.Errorf("operation %q has %d wrong answers of %d checked and %d failed operations: a wrong answer is a checked, failed operation", s.Operation, s.AnswersWrong, s.AnswersChecked, s.FailOps)
	}
	if s.OKOps > 0 && s.MinMicros > s.MaxMicros {
		return fmt.Errorf("operation %q has a minimum latency (%d µs) above its maximum (%d µs)", s.Operation, s.MinMicros, s.MaxMicros)
	}
	for _, h := range []struct {
		what, saved string
		need        bool
	}{{"latency", s.Histogram, s.OKOps > 0}, {"service time", s.ServiceHistogram, false}} {
		switch {
		case h.saved == "" && h.need:
			return fmt.Errorf("operation %q has %d successful operations but no %s histogram", s.Operation, s.OKOps, h.what)
		case h.saved == "":
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(h.saved)
		if err == nil {
			_, err = hdrhistogram.Decode(raw)
		}
		if err != nil {
			return fmt.Errorf("the %s histogram of operation %q does not decode: %w", h.what, s.Operation, err)
		}
	}
	return nil
}

// Encode fills the histogram fields from the in-memory histograms, for saving.
func (s *Snapshot) Encode() error {
	for _, h := range []struct {
		hist *hdrhistogram.Histogram
		dst  *string
		what string
	}{{s.hist, &s.Histogram, "latency"}, {s.svcHist, &s.ServiceHistogram, "service time"}} {
		if h.hist == nil {
			continue
		}
		raw, err := h.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return fmt.Errorf("encode %s histogram of %s: %w", h.what, s.Operation, err)
		}
		*h.dst = base64.StdEncoding.EncodeToString(raw)
	}
	return nil
}

// ServiceTime summarises the service times of a scheduled run, like
// Latency; false when the run had no schedule (latency is service time).
func (s *Snapshot) ServiceTime() (Latency, bool) {
	h := s.serviceHistogram()
	if s.OKOps == 0 || h == nil {
		return Latency{}, false
	}
	return summarise(h, s.OKOps, s.ServiceSumMicros, s.ServiceMinMicros, s.ServiceMaxMicros), true
}

// ServicePercentile returns the service-time percentile q in milliseconds;
// false when the run had no schedule.
func (s *Snapshot) ServicePercentile(q float64) (float64, bool) {
	h := s.serviceHistogram()
	if s.OKOps == 0 || h == nil {
		return 0, false
	}
	return float64(min(max(h.ValueAtPercentile(q), s.ServiceMinMicros), s.ServiceMaxMicros)) / 1000, true
}

// Latency is the latency summary of the Latency Matrix, in milliseconds.
type Latency struct {
	Avg, Min, P10, P25, Median, P75, P90, P95, P99, P999, Max float64
}

// Latency summarises ok latencies. AVG, MIN and MAX are exact; percentiles
// are HdrHistogram's, exact to 3 significant digits.
func (s *Snapshot) Latency() Latency {
	h := s.histogram()
	if s.OKOps == 0 || h == nil {
		return Latency{}
	}
	return summarise(h, s.OKOps, s.SumMicros, s.MinMicros, s.MaxMicros)
}

// Percentile returns the latency percentile q (0..100) in milliseconds.
func (s *Snapshot) Percentile(q float64) float64 {
	h := s.histogram()
	if s.OKOps == 0 || h == nil {
		return 0
	}
	v := min(max(h.ValueAtPercentile(q), s.MinMicros), s.MaxMicros)
	return float64(v) / 1000
}

// Throughput summarises points per second over one-second windows. The
// last window is usually partial and is scaled by its real length.
type Throughput struct {
	Min, Mean, Median, Max float64
	Windows                int
}

// Rates returns the points per second of each one-second window of a phase
// that lasted elapsed, in order: the throughput over time. The last window
// is scaled by its real length; a sliver of less than half a second is
// folded into the window before it, since it says more about timing than
// about the database.
func (s *Snapshot) Rates(elapsed time.Duration) []float64 {
	secs := elapsed.Seconds()
	n := int(math.Ceil(secs))
	if n == 0 || s.OKPoints == 0 {
		return nil
	}
	pts := func(i int) float64 {
		if i < len(s.PerSecond) {
			return float64(s.PerSecond[i])
		}
		return 0
	}
	rates := make([]float64, n)
	for i := 0; i < n; i++ {
		length := 1.0
		if i == n-1 && secs < float64(n) {
			length = secs - float64(n-1)
		}
		if i == n-1 && n > 1 && length < 0.5 {
			rates = rates[:n-1]
			rates[n-2] = (pts(n-2) + pts(i)) / (1 + length)
			break
		}
		rates[i] = pts(i) / length
	}
	return rates
}

// WindowThroughput summarises the per-window throughput (Rates) of a phase
// that lasted elapsed.
func (s *Snapshot) WindowThroughput(elapsed time.Duration) Throughput {
	rates := s.Rates(elapsed)
	if len(rates) == 0 {
		return Throughput{}
	}
	sorted := append([]float64(nil), rates...)
	sort.Float64s(sorted)
	sum := 0.0
	for _, r := range sorted {
		sum += r
	}
	med := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		med = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	return Throughput{Min: sorted[0], Mean: sum / float64(len(sorted)), Median: med, Max: sorted[len(sorted)-1], Windows: len(sorted)}
}
