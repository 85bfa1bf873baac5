// Package record holds what a run leaves behind: the versioned run record,
// the results folder that stores records, one record merged from a
// distributed run's instances, and whether a run failed.
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/telemetry"
)

// SchemaVersion is the version of the run record format. Readers refuse
// records with a newer major version.
const SchemaVersion = 1

// Run statuses.
const (
	StatusComplete   = "complete"
	StatusIncomplete = "incomplete" // cut short by a signal, a step that failed or a fatal error (TEST_MAX_TIME, the user's own bound, is not: the record notes it)
	StatusFailed     = "failed"     // ran to its end, but too many operations failed or VERIFY found a difference
)

// Record is everything one run leaves behind.
type Record struct {
	SchemaVersion int       `json:"schema_version"`
	ID            string    `json:"id"`
	Label         string    `json:"label,omitempty"`
	Status        string    `json:"status"`
	Error         string    `json:"error,omitempty"`
	Tool          Tool      `json:"tool"`
	Host          Host      `json:"host"`
	Target        Target    `json:"target"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	Fingerprint   string    `json:"workload_fingerprint"`
	// DataFingerprint names the points the run wrote to its target (the
	// data keys and rows a device, without how many operations ran); a
	// later query-only run with CHECK_ANSWERS checks against data of its
	// own fingerprint. Empty when the run wrote nothing.
	DataFingerprint string `json:"data_fingerprint,omitempty"`
	// WorkloadKeys are the keys of Config that the fingerprint covers.
	WorkloadKeys []string          `json:"workload_keys,omitempty"`
	Config       map[string]string `json:"config"`
	Notes        []string          `json:"notes,omitempty"`
	Warnings     []string          `json:"warnings,omitempty"`
	Steps        []Step            `json:"steps,omitempty"`
	Phases       []Phase           `json:"phases"`
	Verify       *Verify           `json:"verify,omitempty"`
	// AnswersNotChecked says why CHECK_ANSWERS checked no answer (the
	// ingest did not store the whole workload); the per-operation counts
	// are in the phases (answers_checked, answers_wrong).
	AnswersNotChecked string `json:"answers_not_checked,omitempty"`
	// ServerMetrics are the database's own figures over the run, where its
	// adapter reports them (Elasticsearch's node statistics).
	ServerMetrics      []ServerMetric `json:"server_metrics,omitempty"`
	ServerMetricsError string         `json:"server_metrics_error,omitempty"`
	// Footprint is the data's size where the database keeps it, after the
	// ingest and a flush; its bytes per point are also among the server
	// metrics, where compare shows them. Nil where not measured.
	Footprint *Footprint `json:"footprint,omitempty"`
	// Instance says which part of a distributed run this record is
	// (BENCHMARK_CLUSTER), or which instances a merged record was made of.
	Instance *Instance `json:"instance,omitempty"`
	// Routine says where bench routine placed the run: side, block, position.
	Routine *Routine `json:"routine,omitempty"`
}

// Instance places a record in a distributed run: instance Index of Count
// (BENCHMARK_INDEX of BENCHMARK_INSTANCES), or, in a record made by bench
// merge, the runs it merged, in instance order.
type Instance struct {
	Index  int      `json:"index"`
	Count  int      `json:"count"`
	Merged []string `json:"merged,omitempty"`
	// Missing are the instances a merge with --force went without.
	Missing []int `json:"missing,omitempty"`
}

// Footprint is a run's data on disk after its ingest.
type Footprint struct {
	Bytes  int64  `json:"bytes"`
	Points int64  `json:"points"` // written by the ingest
	Where  string `json:"where"`  // what was measured: a file, the indices' store
	// Seconds is how long the flush and the measurement took.
	Seconds float64 `json:"seconds"`
}

// BytesPerPoint is the footprint of one point written.
func (f *Footprint) BytesPerPoint() float64 { return float64(f.Bytes) / float64(max(f.Points, 1)) }

// ServerMetric is one node-level figure, named as Rally names it.
type ServerMetric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	// NotReported says the server did not report it (its version has no
	// such figure): Value is meaningless, and no report prints it as 0.
	NotReported bool `json:"not_reported,omitempty"`
}

// Tool identifies the tsbench build.
type Tool struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// Host describes the machine tsbench ran on.
type Host struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
}

// Target is the database measured.
type Target struct {
	DB      string   `json:"db"`      // DB_SWITCH
	Version string   `json:"version"` // as the database reports it
	Address []string `json:"address,omitempty"`
	// Wire is how the data was sent where the adapter has a choice
	// (IoTDB: encoded or plain tablets).
	Wire string `json:"wire,omitempty"`
	// Documents says the database counts rows as documents
	// (Elasticsearch): reports follow Rally's conventions for it.
	Documents bool `json:"documents,omitempty"`
	// Build is the server's own build identity where it reports one
	// (IoTDB SHOW VERSION's BuildInfo, Elasticsearch's build_hash): two
	// SNAPSHOT builds of one version differ here.
	Build string `json:"build,omitempty"`
	// Server is what tsbench provisioned, when it did (bench routine).
	Server *Server `json:"server,omitempty"`
}

// Server is a server tsbench provisioned for a run: the spec it was given
// and what that spec resolved to.
type Server struct {
	// Spec is the user's words: "iotdb:2.0.10", "git:../iotdb@pr2689", a path.
	Spec string `json:"spec"`
	// Kind is iotdb, elasticsearch or opensearch; empty for external.
	Kind string `json:"kind,omitempty"`
	// Commit is the git commit a git spec built.
	Commit string `json:"commit,omitempty"`
	// Checksum is sha256 over the distribution's files (names and
	// contents), the same for the same build wherever it was unpacked.
	Checksum string `json:"checksum,omitempty"`
}

// Routine places a run in bench routine's order: its side, the block of
// runs (one run of every side, in an order that is reversed every other
// block) and its position in the block.
type Routine struct {
	Side     string `json:"side"`
	Block    int    `json:"block"`
	Position int    `json:"position"`
	// AA says the sides were declared the same build on purpose (--aa).
	AA bool `json:"aa,omitempty"`
	// Seed drew the order of the blocks (--order-seed).
	Seed uint64 `json:"order_seed,omitempty"`
	// Warmup marks a warm-up run (block 0), made before the first block
	// and kept apart from the runs the routine compares.
	Warmup bool `json:"warmup,omitempty"`
	// Change lists the keys, sorted, whose values the sides' --side-set
	// made differ: the routine compared configurations (of one build, or
	// beside a change of build), and compare admits runs whose workload
	// differs in exactly these keys.
	Change []string `json:"change,omitempty"`
	// Process counts the starts of the side's kept-running server, from 1,
	// where the routine restarts them between blocks (--restart-every):
	// runs of one process share what a start draws (JIT, memory layout).
	Process int `json:"process,omitempty"`
}

// Identity is the one line a report prints of the server a run measured.
func (t Target) Identity() string {
	s := t.Version
	if s == "" {
		s = t.DB
	}
	var extra []string
	if t.Build != "" {
		extra = append(extra, "build "+t.Build)
	}
	if t.Server != nil {
		if t.Server.Commit != "" {
			extra = append(extra, "commit "+short(t.Server.Commit))
		}
		if t.Server.Checksum != "" {
			extra = append(extra, "files sha256:"+short(t.Server.Checksum))
		}
		extra = append(extra, "from "+t.Server.Spec)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// BuildKey is what makes two servers the same build: the reported build or
// the provisioned files when either is known, else "" (unknown: an embedded
// database, an old record).
func (t Target) BuildKey() string {
	var k []string
	if t.Build != "" {
		k = append(k, t.Version+" build "+t.Build)
	}
	if t.Server != nil && t.Server.Checksum != "" {
		k = append(k, "files "+t.Server.Checksum)
	}
	return strings.Join(k, "; ")
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Step is a lifecycle step (cleanup, schema, flush, verify...) and how it went.
type Step struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
	Output  string  `json:"output,omitempty"`
	Phase   string  `json:"phase,omitempty"`
	Round   int     `json:"round,omitempty"`
	Variant string  `json:"variant,omitempty"`
	Skipped bool    `json:"skipped,omitempty"`
	Detail  string  `json:"detail,omitempty"`
}

// Phase is one measured part of a run, e.g. the main workload, or one round
// of queries.
type Phase struct {
	Name       string              `json:"name"`
	Round      int                 `json:"round,omitempty"`
	Variant    string              `json:"variant,omitempty"`
	Clients    int                 `json:"clients"`
	StartedAt  time.Time           `json:"started_at"`
	Seconds    float64             `json:"seconds"`
	Operations []*metrics.Snapshot `json:"operations"`
	// Cut says how TEST_MAX_TIME ended the phase before its plan: the run
	// stays complete (the bound is the user's), and its tables say so.
	Cut string `json:"cut,omitempty"`
	// Warmup holds the operations of the phase's warm-up (WARMUP_TIME,
	// WARMUP_OPERATIONS), which Operations, Seconds and StartedAt leave
	// out: no comparison reads them. Nil without a warm-up.
	Warmup *Warmup `json:"warmup,omitempty"`
	// Server is what the server and its machine did over the phase (its
	// warm-up included), a source each: the machine, each server process
	// on this machine. Absent where SERVER_METRICS_INTERVAL=0 or in records
	// made before it.
	Server []telemetry.Source `json:"server,omitempty"`
	// Requests are the first requests of a query variant of the suite's
	// own (a custom query), as the first client sent them, placeholders
	// filled; absent for the families' queries.
	Requests []string `json:"requests,omitempty"`
}

// Warmup is a phase's warm-up: how long it lasted and its operations.
type Warmup struct {
	Seconds    float64             `json:"seconds"`
	Operations []*metrics.Snapshot `json:"operations"`
}

// Unmeasured says the phase's warm-up took all of it: its operations ran,
// none after the warm-up, so its figures are not measured (never 0).
func (p *Phase) Unmeasured() bool {
	if p.Warmup == nil {
		return false
	}
	for _, op := range p.Operations {
		if op.OKOps+op.FailOps > 0 {
			return false
		}
	}
	for _, op := range p.Warmup.Operations {
		if op.OKOps+op.FailOps > 0 {
			return true
		}
	}
	return false
}

// NotMeasured says, for a phase that is Unmeasured, what happened and
// what to change.
func (p *Phase) NotMeasured() string {
	return fmt.Sprintf("%s was not measured: its warm-up (%.1f s) took all of it, so its figures are \"not measured\" and compare's gate cannot pass it; give the phase more work (LOOP, QUERY_LOOP) or the warm-up less (WARMUP_TIME, WARMUP_OPERATIONS)", p.Group(), p.Warmup.Seconds)
}

// AllOperations are the phase's measured operations and its warm-up's:
// what failed counts, whenever it failed.
func (p *Phase) AllOperations() []*metrics.Snapshot {
	if p.Warmup == nil {
		return p.Operations
	}
	return append(append([]*metrics.Snapshot(nil), p.Operations...), p.Warmup.Operations...)
}

// maxPhaseSeconds is the longest phase a record may hold: 30 days.
const maxPhaseSeconds = 30 * 24 * 3600

// check says what makes a record read from a file unusable: a phase with
// no operation where one is listed, a negative or infinite duration, an
// operation's damaged figures, or a verify with negative counts. Every
// reader may then use what it finds without checking again.
func (r *Record) check() error {
	for i := range r.Phases {
		p := &r.Phases[i]
		// The bound keeps the per-second figures a reader makes from it
		// in memory: a phase of 1e15 seconds made a slice no machine holds.
		if math.IsNaN(p.Seconds) || p.Seconds < 0 || p.Seconds > maxPhaseSeconds || p.Clients < 0 {
			return fmt.Errorf("phase %d (%s) lasted %g seconds with %d clients", i+1, p.Group(), p.Seconds, p.Clients)
		}
		if w := p.Warmup; w != nil && (math.IsNaN(w.Seconds) || w.Seconds < 0 || w.Seconds > maxPhaseSeconds) {
			return fmt.Errorf("phase %d (%s) has a warm-up of %g seconds", i+1, p.Group(), w.Seconds)
		}
		for _, src := range p.Server {
			if err := src.Check(); err != nil {
				return fmt.Errorf("phase %d (%s): %w", i+1, p.Group(), err)
			}
		}
		for j, op := range p.AllOperations() {
			if op == nil {
				return fmt.Errorf("phase %d (%s) lists operation %d as null", i+1, p.Group(), j+1)
			}
			if err := op.Check(); err != nil {
				return fmt.Errorf("phase %d (%s): %w", i+1, p.Group(), err)
			}
		}
	}
	if v := r.Verify; v != nil {
		if v.Devices < 0 || v.Expected < 0 || v.Found < 0 {
			return fmt.Errorf("its verify counts %d devices holding %d of %d points", v.Devices, v.Found, v.Expected)
		}
	}
	return nil
}

// Group names the phase with its round, "ingest" or "query round 1": the
// query variants of a round are phases of one group.
func (p *Phase) Group() string {
	if p.Round > 0 {
		return fmt.Sprintf("%s round %d", p.Name, p.Round)
	}
	return p.Name
}

// Elapsed is the phase's wall-clock duration.
func (p *Phase) Elapsed() time.Duration { return time.Duration(p.Seconds * float64(time.Second)) }

// Verify is the outcome of counting the points the database holds.
type Verify struct {
	Devices    int        `json:"devices"`
	Expected   int64      `json:"expected_points"`
	Found      int64      `json:"found_points"`
	Mismatches []Mismatch `json:"mismatches,omitempty"`
	// Documents says the counts are indices' documents (a run of a
	// track): Devices counts indices, the points are documents.
	Documents bool `json:"documents,omitempty"`
}

// Words are what a verify counted: ("device", "devices", "points"), or
// for a track's run ("index", "indices", "documents").
func (v *Verify) Words() (one, many, unit string) {
	if v.Documents {
		return "index", "indices", "documents"
	}
	return "device", "devices", "points"
}

// OK reports whether every device held what was written.
func (v *Verify) OK() bool { return len(v.Mismatches) == 0 }

// Summary says what a verify that is not OK found: devices that could not
// be counted (a count that failed or timed out proves nothing) apart from
// devices whose count differs.
func (v *Verify) Summary() string {
	var uncounted, differ int
	first := ""
	for _, m := range v.Mismatches {
		if m.Error != "" {
			if uncounted == 0 {
				first = m.Error
			}
			uncounted++
		} else {
			differ++
		}
	}
	one, many, unit := v.Words()
	var parts []string
	if differ > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s hold other %s counts than the workload writes", differ, v.Devices, many, strings.TrimSuffix(unit, "s")))
	}
	if uncounted > 0 {
		parts = append(parts, fmt.Sprintf("could not verify %d of %d %s: their count failed (first: %s)", uncounted, v.Devices, many, first))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("every %s holds exactly the %s the workload writes", one, unit)
	}
	return strings.Join(parts, "; ")
}

// Mismatch is one device whose count differs.
type Mismatch struct {
	Device   string `json:"device"`
	Expected int64  `json:"expected"`
	Found    int64  `json:"found"`
	Error    string `json:"error,omitempty"`
}

// NewID makes a run id: UTC start time plus a short hash, sortable by time.
func NewID(start time.Time, label string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d|%s|%d", start.UnixNano(), label, os.Getpid())))
	return start.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(h[:3])
}

// CurrentHost describes this machine.
func CurrentHost() Host {
	name, _ := os.Hostname()
	return Host{Hostname: name, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), MemoryBytes: memTotal()}
}

func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}

// FingerprintDiff lists the workload keys whose values differ between two
// records. A record written before records listed their workload keys
// contributes none; when neither lists any, every key that is not a secret
// is compared.
func FingerprintDiff(a, b *Record) []string {
	var out []string
	for _, k := range FingerprintDiffKeys(a, b) {
		out = append(out, fmt.Sprintf("%s: %q vs %q", k, a.Config[k], b.Config[k]))
	}
	return out
}

// FingerprintDiffKeys is FingerprintDiff's keys, sorted.
func FingerprintDiffKeys(a, b *Record) []string {
	keys := map[string]bool{}
	for _, k := range a.WorkloadKeys {
		keys[k] = true
	}
	for _, k := range b.WorkloadKeys {
		keys[k] = true
	}
	if len(keys) == 0 {
		for _, cfg := range []map[string]string{a.Config, b.Config} {
			for k := range cfg {
				keys[k] = !config.IsSecretName(k)
			}
		}
	}
	var out []string
	for k, use := range keys {
		if use && a.Config[k] != b.Config[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
