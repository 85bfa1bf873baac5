package runner

import (
	"errors"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/telemetry"
)

// What a run did: its steps, phases, verify counts and result.

// Step is a lifecycle step's outcome.
type Step struct {
	Name    string
	Phase   string // the phase it prepared, if any
	Round   int
	Variant string
	Elapsed time.Duration
	Err     error
	Skipped string // why it did not run, when it did not
	Output  string // what a shell command printed (trimmed)
}

// Phase is one measured phase's outcome.
type Phase struct {
	Name       string
	Round      int
	Variant    string // query rounds: the variant this phase ran
	Clients    int
	Started    time.Time
	Elapsed    time.Duration
	Operations []*metrics.Snapshot
	// Cut says why the phase ended before its schedule (TEST_MAX_TIME);
	// empty when every scheduled operation ran.
	Cut string
	// Warmup is what ran before the measured part (WARMUP_TIME,
	// WARMUP_OPERATIONS): Started and Elapsed above then begin where it
	// ended. Nil for a phase without one.
	Warmup *Warmup
	// Server is the telemetry sampled over the phase, its warm-up
	// included (SERVER_METRICS_INTERVAL); nil when off.
	Server []telemetry.Source
	// Requests are the first of a variant's own requests, as the first
	// client sent them; nil for the family's queries.
	Requests []string
}

// Warmup is a phase's warm-up: its operations, kept apart from the
// phase's own, and how long it lasted.
type Warmup struct {
	Elapsed    time.Duration
	Operations []*metrics.Snapshot
}

// DeviceCount is one device's verify result.
type DeviceCount struct {
	Device   *generator.Device
	Expected int64
	Found    int64
	Err      error
	// Documents says the count is an index's documents (a track's run,
	// VerifyTrack): Device names the index.
	Documents bool
}

// Result is what a run did, also when it stopped early.
type Result struct {
	Started, Finished time.Time
	ServerVersion     string
	ServerBuild       string // adapters.Builder's answer, if the adapter has one
	// Wire is how the adapter sent the data (adapters.Wirer), if it says.
	Wire   string
	Steps  []Step
	Phases []Phase
	Verify []DeviceCount // nil unless VERIFY
	// ServerMetrics are the database's own figures over the run (its
	// MetricsReporter): counters as their change, the rest as read at the end.
	ServerMetrics []adapters.ServerMetric
	// Footprint is the data's size after the ingest (adapters.Sizer,
	// with SERVER_METRICS_INTERVAL on); nil when not measured.
	Footprint *Footprint
	// ServerMetricsErr says why they could not be read, if they could not.
	ServerMetricsErr error
	// Stopped says why the run ended before its plan was done (a signal, a
	// failed step); nil for a complete run.
	Stopped error
	// DataSet is the id of FILE_PATH's files when they are not the
	// workload's generated points (Plan.DataSet); the record's fingerprint
	// holds it as DATA_SET.
	DataSet string
	// DataFingerprint names the data the run wrote (Plan.DataFingerprint);
	// "" when it wrote nothing.
	DataFingerprint string
	// Track is the identity of TRACK_PATH's documents (Plan.TrackID); the
	// record's fingerprint holds it as TrackKey.
	Track string
	// Notes are facts of the run a reader must know (a phase that
	// TEST_MAX_TIME ended early).
	Notes []string
	// AnswersNotChecked says why CHECK_ANSWERS checked no answer of the
	// query rounds: the ingest did not store the whole workload.
	AnswersNotChecked string
}

// VerifyFailed reports whether a verify found a device that differs.
func (r *Result) VerifyFailed() bool {
	for _, v := range r.Verify {
		if v.Err != nil || v.Expected != v.Found {
			return true
		}
	}
	return false
}

// ErrConnect marks failures to open the database.
var ErrConnect = errors.New("cannot open the database")
