// Package adapters defines what tsbench needs from a database: a small
// required interface, optional capabilities discovered by type assertion,
// and the registry that maps DB_SWITCH values to drivers. Each database lives
// in its own sub-package; the command assembles the registry, so there is no
// registration by side effect.
package adapters

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/corpus"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
	"github.com/tsbench/tsbench/telemetry"
)

// Adapter is one open database. Its methods are called from many client
// goroutines at once and must be safe for that. Every method that talks to
// the database honours ctx: when it is done, the call returns promptly with
// an error.
type Adapter interface {
	// Cleanup removes the benchmark's data and schema (IS_DELETE_DATA).
	Cleanup(ctx context.Context) error
	// CreateSchema prepares the database for the schema given at Open.
	CreateSchema(ctx context.Context) error
	// Write stores one batch. The batch is reused after Write returns.
	Write(ctx context.Context, b *generator.Batch) error
	// Query runs q, reads its whole result and returns the number of value
	// cells it held (see package queries for the definition of points).
	Query(ctx context.Context, q *queries.Query) (points int64, err error)
	// Close releases connections.
	Close() error
}

// PartialWriteError is a Write that stored some of the batch and not the
// rest (a bulk request whose items failed one by one): Failed points were
// not stored, the others were. The runner counts both.
type PartialWriteError struct {
	Failed int64
	Err    error
}

func (e *PartialWriteError) Error() string { return e.Err.Error() }
func (e *PartialWriteError) Unwrap() error { return e.Err }

// DocumentWriter is a document database's ingest of a track's documents
// (TRACK_PATH, package corpus): with Params.Track its Cleanup and
// CreateSchema act on the track's indices (their bodies, its pipelines)
// instead of the generated rows' layout.
type DocumentWriter interface {
	// WriteDocuments sends docs, a JSON document each, to index in one
	// request, as they are. A request whose documents failed one by one is
	// a PartialWriteError counting documents.
	WriteDocuments(ctx context.Context, index string, docs [][]byte) error
	// CountDocuments counts what index holds, once earlier writes can be
	// read.
	CountDocuments(ctx context.Context, index string) (int64, error)
}

// Flusher persists buffered writes (IoTDB FLUSH, SQLite WAL checkpoint).
type Flusher interface {
	Flush(ctx context.Context) error
}

// CacheClearer drops the database's own caches.
type CacheClearer interface {
	ClearCache(ctx context.Context) error
}

// MultiWriter sends the batches of several devices in one request
// (DEVICE_NUM_PER_WRITE > 1): one operation, counted once, whose points are
// the batches' together. A failure fails them all.
type MultiWriter interface {
	WriteDevices(ctx context.Context, bs []*generator.Batch) error
}

// Counter counts the points a device holds, for VERIFY.
type Counter interface {
	CountPoints(ctx context.Context, d *generator.Device) (int64, error)
}

// Answerer returns query results as values: for differential tests, and
// for CHECK_ANSWERS, where it stands in for Query (the same request and
// decoding, keeping the cells). The cells come in the database's order:
// queries.Answer.Sort, which the caller runs after the latency is taken,
// puts them in the model's.
type Answerer interface {
	Answer(ctx context.Context, q *queries.Query) (queries.Answer, error)
}

// Reconnecter drops every connection and opens a fresh one: after the
// database was restarted, or (SQLite) as its own restart, closing and
// reopening the database file. It fails while the database does not answer.
// The runner calls it between phases, never while other calls are running.
type Reconnecter interface {
	Reconnect(ctx context.Context) error
}

// ServerMetric is one node-level figure a database reports about itself,
// named and measured as Rally names them ("Cumulative indexing time of
// primary shards", min): the server's side of a benchmark.
type ServerMetric struct {
	Name  string
	Unit  string
	Value float64
	// Counter marks a cumulative figure of the whole server (GC time, an
	// ingest pipeline's count) whose change over the run is what counts;
	// the others are read at the end of the run.
	Counter bool
	// NotReported says the server did not report the figure (a field its
	// version does not have): Value means nothing, and reports say so
	// rather than print 0.
	NotReported bool
}

// MetricsReporter reports server metrics; the runner reads them before the
// first measured phase and after the last.
type MetricsReporter interface {
	ServerMetrics(ctx context.Context) ([]ServerMetric, error)
}

// Telemetry is the database's own sources of server telemetry (a metrics
// endpoint per node, a statistics API), sampled beside the host's over every
// phase (SERVER_METRICS_INTERVAL). The runner asks when it looks the
// server's processes up: at the first phase and after each lifecycle step.
// A source it cannot reach is a note, never the run's error. Not declared
// in Driver.Can.
type Telemetry interface {
	TelemetrySources(ctx context.Context) (sources []telemetry.Reader, notes []string)
}

// Sizer says how many bytes the run's data takes where the database keeps
// it, and where that was read: the disk footprint, and with the points
// written, the bytes per point (a time-series database's compression). The
// runner asks after the ingest and a flush; not declared in Driver.Can.
type Sizer interface {
	DataSize(ctx context.Context) (bytes int64, where string, err error)
}

// Versioner reports the server's version for the run record.
type Versioner interface {
	ServerVersion(ctx context.Context) (string, error)
}

// Builder reports the server's build identity, where the server says more
// than its version (IoTDB's BuildInfo, Elasticsearch's build_hash), so that
// two builds of one version are told apart in the record. Asked after
// ServerVersion; not declared in Driver.Can.
type Builder interface {
	ServerBuild() string
}

// Wirer says how the adapter sends the data, where a key chooses between
// wire formats that load the server differently (IoTDB's encoded or plain
// tablets), for the run record: two runs that sent different bytes must
// not read as the same workload.
type Wirer interface {
	Wire() string
}

// Params is what a driver gets to open an adapter.
type Params struct {
	Config *config.Config
	Schema *generator.Schema
	// Track is TRACK_PATH's documents, for a DocumentWriter; nil: rows.
	Track *corpus.Track
	// Existing asks for a database that already exists: an embedded one
	// must not be created (bench verify of a file that is not there).
	Existing bool
}

// Driver describes one database kind.
type Driver struct {
	// Name is the canonical DB_SWITCH value; Aliases are other accepted
	// values. Matching ignores case.
	Name        string
	Aliases     []string
	Description string
	// Documents says a row is a document to this database (Elasticsearch):
	// its writes are also counted in documents, and reports give
	// documents/s beside points/s.
	Documents bool
	// Wire names the wire formats this build can send the database and the
	// key that chooses, for bench version; empty when there is no choice.
	Wire string
	// ReconnectRestarts says that Reconnect is this database's restart (an
	// embedded database closes and reopens its file), so a cold round needs
	// no STOP_COMMAND/START_COMMAND. For servers it only reconnects.
	ReconnectRestarts bool
	// Keys are the database's own configuration keys, nil when it has none.
	// The config loader reads them only when DB_SWITCH names this driver.
	Keys *config.KeySet
	// Can declares the optional interfaces its adapters implement, so that a
	// configuration is checked before connecting. CapabilitiesOf verifies it
	// in each adapter's tests.
	Can Capabilities
	// Servers are the servers bench server and bench routine provision for
	// this driver ("iotdb"; "elasticsearch", "opensearch"); none for an
	// embedded database or one tsbench cannot start.
	Servers []string
	// Discard removes what an embedded database keeps between runs (its
	// file), so that a run of the routine starts from nothing as a server
	// with a wiped state folder does; nil for servers.
	Discard func(c *config.Config) error
	// Footprint, for an embedded database, estimates the bytes a run of
	// points takes on disk and the space free where they go, so that a run
	// that cannot fit is refused before it starts; nil for servers.
	Footprint func(c *config.Config, points float64) (need float64, free int64, where string, err error)
	// Claim takes the database for this process for the length of a run,
	// so that a second run on the same target is refused at its start,
	// naming the holder, instead of both measuring each other; release
	// gives it back. A file's lock goes with its process; a server's
	// marker (Hold) turns stale. An *InUseError says who holds it; note,
	// when not empty, is for the user (a stale marker taken over, or a
	// server that keeps none). nil: nothing to claim.
	Claim func(ctx context.Context, c *config.Config) (release func(), note string, err error)
	// Address says where the database is (file path, host:port list), for
	// output and the run record; nil when it has no place.
	Address func(c *config.Config) []string
	// Check reports what this database cannot do with the configuration,
	// before anything runs (unsupported query families, aggregates, options).
	Check func(c *config.Config) config.Errors
	// Requests says how the database reads a query suite's own requests
	// (custom queries); nil: it reads none, and a suite that has some is
	// refused.
	Requests *Requests
	// Open connects (or opens the file) and checks that the database answers.
	Open func(ctx context.Context, p Params) (Adapter, error)
	// Track writes the workload's data as a Rally track of the database's
	// own documents (bench generate --format track), which TRACK_PATH and
	// esrally ingest; nil: the database has no documents.
	Track func(ctx context.Context, dir string, p TrackParams) error
}

// TrackParams is what Driver.Track writes: every written device's batches
// of Generator, in the indices and documents the adapter would send;
// Description goes into track.json, Done is told the documents written
// so far.
type TrackParams struct {
	Config      *config.Config
	Schema      *generator.Schema
	Generator   *generator.Generator
	Description string
	Done        func(documents int64)
}

// Requests is how a database reads a suite's own requests: the language
// of the request lines it runs, and the values of the placeholders
// (queries.Placeholders) for a query, as the database writes them. Both
// need no connection, so that --dry-run shows the requests as they will be
// sent. The adapter's Query sends a query's Request in place of the
// family's and counts the value cells of its answer.
type Requests struct {
	// Language names the request lines this configuration reads ("iotdb",
	// "iotdb-table", "sqlite", "elasticsearch").
	Language func(c *config.Config) string
	// Values are the placeholders' values for q; a placeholder the
	// database has no value for is left out.
	Values func(c *config.Config, s *generator.Schema, q *queries.Query) map[string]string
}

// Registry is the set of drivers a build knows.
type Registry []Driver

// Lookup finds the driver for a DB_SWITCH value.
func (r Registry) Lookup(dbSwitch string) (*Driver, error) {
	for i := range r {
		d := &r[i]
		if strings.EqualFold(d.Name, dbSwitch) {
			return d, nil
		}
		for _, a := range d.Aliases {
			if strings.EqualFold(a, dbSwitch) {
				return d, nil
			}
		}
	}
	return nil, &config.Error{Key: "DB_SWITCH", Value: dbSwitch, Msg: "is not a database this build supports", Valid: strings.Join(r.Names(), ", ")}
}

// KeySetOf is the config.Catalog view of Lookup: the keys of the database
// dbSwitch names.
func (r Registry) KeySetOf(dbSwitch string) (*config.KeySet, error) {
	d, err := r.Lookup(dbSwitch)
	if err != nil {
		return nil, err
	}
	return d.Keys, nil
}

// Check is the chosen driver's checks of a configuration (config.Checker),
// so that the loader reports them with the errors of the keys.
func (r Registry) Check(c *config.Config) config.Errors {
	d, err := r.Lookup(c.DBSwitch)
	if err != nil {
		return nil // DB_SWITCH itself is reported by KeySetOf
	}
	return d.Validate(c)
}

// KeySets lists every driver's keys once (config.Catalog).
func (r Registry) KeySets() []*config.KeySet {
	var out []*config.KeySet
	for _, d := range r {
		if d.Keys != nil {
			out = append(out, d.Keys)
		}
	}
	return out
}

var (
	_ config.Catalog = Registry(nil)
	_ config.Namer   = Registry(nil)
)

// Names lists every accepted DB_SWITCH value, sorted.
func (r Registry) Names() []string {
	var out []string
	for _, d := range r {
		out = append(out, d.Name)
		out = append(out, d.Aliases...)
	}
	sort.Strings(out)
	return out
}

// Validate runs the driver's Check plus the checks every driver shares.
// Embedded says the database has no server: it has no address (Null), or
// it keeps a file of its own that it sizes or discards (SQLite, whose
// address is the file's path). The routine refuses a server spec for it;
// the runner samples tsbench's own process as its server.
func (d Driver) Embedded() bool { return d.Address == nil || d.Discard != nil || d.Footprint != nil }

func (d Driver) Validate(c *config.Config) config.Errors {
	var errs config.Errors
	if d.Check != nil {
		errs = append(errs, d.Check(c)...)
	}
	if c.DevicesPerWrite > 1 && !d.Can.MultiWrite {
		// iot-benchmark: "DEVICE_NUM_PER_WRITE is only supported in IoTDB".
		errs = append(errs, &config.Error{Key: "DEVICE_NUM_PER_WRITE", Value: fmt.Sprint(c.DevicesPerWrite), Msg: fmt.Sprintf("is more than 1, but %s writes one device a request", d.Name), Valid: "1"})
	}
	if c.Verify && !d.Can.Count {
		errs = append(errs, &config.Error{Key: "VERIFY", Value: "true", Msg: fmt.Sprintf("%s cannot count the points it holds", d.Name), Valid: "false"})
	}
	return errs
}

// Capabilities says which optional interfaces a driver's adapters have, so
// that configurations can be checked before connecting.
type Capabilities struct {
	Flush, ClearCache, Count, Answer, Version, Reconnect, ServerMetrics, MultiWrite bool
}

// CapabilitiesOf inspects an adapter value.
func CapabilitiesOf(a Adapter) Capabilities {
	_, f := a.(Flusher)
	_, cc := a.(CacheClearer)
	_, cnt := a.(Counter)
	_, ans := a.(Answerer)
	_, v := a.(Versioner)
	_, r := a.(Reconnecter)
	_, sm := a.(MetricsReporter)
	_, mw := a.(MultiWriter)
	return Capabilities{Flush: f, ClearCache: cc, Count: cnt, Answer: ans, Version: v, Reconnect: r, ServerMetrics: sm, MultiWrite: mw}
}

// UnsupportedTypes is a Check helper: it reports the data types with a
// weight in INSERT_DATATYPE_PROPORTION that the database cannot store, as
// iot-benchmark refuses them (by weight, whatever sensors the weights give).
func UnsupportedTypes(c *config.Config, db string, types ...generator.DataType) config.Errors {
	var errs config.Errors
	for _, t := range types {
		if c.TypeProportion[t] > 0 {
			errs = append(errs, &config.Error{Key: "INSERT_DATATYPE_PROPORTION", Value: c.Value("INSERT_DATATYPE_PROPORTION"),
				Msg: fmt.Sprintf("gives %s a share, which %s cannot store", t, db), Valid: fmt.Sprintf("weight 0 at position %d (%s)", int(t)+1, t)})
		}
	}
	return errs
}

// TreeModelOnly is a Check helper for every database but IoTDB: the table
// model (IOTDB_DIALECT_MODE=table) is IoTDB's, and iot-benchmark too runs
// other databases in the tree layout.
func TreeModelOnly(c *config.Config, db string) config.Errors {
	if !c.TableModel() {
		return nil
	}
	return config.Errors{&config.Error{Key: "IOTDB_DIALECT_MODE", Value: c.Dialect, Msg: fmt.Sprintf("is IoTDB's table model, which %s does not have", db), Valid: "tree"}}
}

// UnsupportedFamilies is a Check helper: it reports every query family with
// weight that the database cannot run.
func UnsupportedFamilies(c *config.Config, db string, supported func(queries.Family) bool) config.Errors {
	var errs config.Errors
	for i := 1; i < config.NumOperations; i++ {
		f := queries.FamilyByIndex(i)
		if c.OperationProportion[i] > 0 && !supported(f) {
			errs = append(errs, &config.Error{Key: "OPERATION_PROPORTION", Value: c.Value("OPERATION_PROPORTION"),
				Msg: fmt.Sprintf("gives %s (%s) a share, which %s cannot run", f.ID(), f, db), Valid: fmt.Sprintf("weight 0 at position %d", i+1)})
		}
	}
	return errs
}

// CommonValues are the placeholders every database writes alike: the
// query's time bounds and window in TIMESTAMP_PRECISION units, its value
// bound, its row limit, and its aggregate as the database names it.
func CommonValues(q *queries.Query, aggregate string) map[string]string {
	return map[string]string{
		"start":     strconv.FormatInt(q.Start, 10),
		"end":       strconv.FormatInt(q.End, 10),
		"window":    strconv.FormatInt(q.GroupBy, 10),
		"value":     strconv.FormatFloat(q.ValueBound, 'f', -1, 64),
		"limit":     strconv.FormatInt(q.Limit, 10),
		"aggregate": aggregate,
	}
}

// SetNames sets the placeholders of the query's devices and sensors, each
// as the database writes it: the lists comma-separated, the singular the
// first of each.
func SetNames(v map[string]string, devices, sensors []string) {
	v["devices"], v["sensors"] = strings.Join(devices, ", "), strings.Join(sensors, ", ")
	if len(devices) > 0 {
		v["device"] = devices[0]
	}
	if len(sensors) > 0 {
		v["sensor"] = sensors[0]
	}
}

// KeyColumn reports whether an answer's column is one of the row's keys
// (its time, its device), which a suite's own request's points leave out.
func KeyColumn(name string, keys ...string) bool {
	for _, k := range keys {
		if strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}
