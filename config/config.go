// Package config loads iot-benchmark style config.properties files into a
// typed Config: defaults, old key names, environment and --set overrides,
// validation with messages a user can act on, and a printable dump with
// secrets masked.
package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Out-of-order modes (OUT_OF_ORDER_MODE).
const (
	OutOfOrderPoisson = "POISSON"
	OutOfOrderBatch   = "BATCH"
)

// Device-to-group strategies (SG_STRATEGY).
const (
	StrategyMod  = "mod"
	StrategyHash = "hash"
	StrategyDiv  = "div"
)

// Aggregates are the canonical names of QUERY_AGGREGATE_FUN's aggregates;
// CanonicalAggregate also takes max, min and mean.
var Aggregates = []string{"count", "sum", "avg", "max_value", "min_value"}

// CanonicalAggregate maps a QUERY_AGGREGATE_FUN value to its canonical name.
func CanonicalAggregate(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "max":
		s = "max_value"
	case "min":
		s = "min_value"
	case "mean":
		s = "avg"
	}
	for _, a := range Aggregates {
		if a == s {
			return s, true
		}
	}
	return "", false
}

// MaxLoop bounds LOOP: the main phase plans every operation of a client
// before it starts, a byte each (100 MB at the bound; a day and more of
// operations of a millisecond). LOOP=100000000000 ran out of memory.
const MaxLoop = 100_000_000

// Ingestion is the name of the write operation in reports and records, the
// operation OPERATION_PROPORTION's first weight gives; the queries are named
// by their families (queries.Family).
const Ingestion = "INGESTION"

// NumOperations is the number of weights in OPERATION_PROPORTION:
// INGESTION then Q1..Q12.
const NumOperations = 13

// The data models of IOTDB_DIALECT_MODE.
const (
	DialectTree  = "tree"
	DialectTable = "table"
)

// TableModel reports whether the run lays its devices out in tables
// (IOTDB_DIALECT_MODE=table): groups hold tables, tables hold devices.
func (c *Config) TableModel() bool { return c.Dialect == DialectTable }

// NumDataTypes is the number of weights in INSERT_DATATYPE_PROPORTION:
// BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT, STRING, BLOB, TIMESTAMP, DATE, OBJECT.
const NumDataTypes = 11

// Config is the validated, typed configuration of one run. Field comments
// name the key; docs/config.md (generated from the key table) explains them.
type Config struct {
	// Connection.
	DBSwitch string   // DB_SWITCH
	Hosts    []string // HOST
	Ports    []int    // PORT
	Username string   // USERNAME
	Password string   // PASSWORD (never printed)
	DBName   string   // DB_NAME

	// Run control.
	DeleteData       bool  // IS_DELETE_DATA
	InitWaitMS       int64 // INIT_WAIT_TIME
	CreateSchema     bool  // CREATE_SCHEMA
	Loop             int64 // LOOP
	TestMaxTimeMS    int64 // TEST_MAX_TIME
	BenchmarkCluster bool  // BENCHMARK_CLUSTER
	BenchmarkIndex   int   // BENCHMARK_INDEX
	// BenchmarkInstances is BENCHMARK_INSTANCES: instances 0..n-1 of a
	// distributed run, each on its own device range.
	BenchmarkInstances int
	LogPrintInterval   int     // LOG_PRINT_INTERVAL (seconds)
	WriteTimeoutMS     int64   // WRITE_OPERATION_TIMEOUT_MS
	ReadTimeoutMS      int64   // READ_OPERATION_TIMEOUT_MS
	DataClients        int     // DATA_CLIENT_NUMBER
	ClientBind         bool    // IS_CLIENT_BIND
	OpMinIntervalMS    int64   // OP_MIN_INTERVAL (-1 resolved to POINT_STEP)
	OpMinIntervalRand  bool    // OP_MIN_INTERVAL_RANDOM
	TargetThroughput   float64 // TARGET_THROUGHPUT (operations/s of all clients; 0 = off)
	BatchIntervalMS    int64   // INTERVAL_BETWEEN_WRITE_BATCH

	// Data model.
	Devices           int        // DEVICE_NUMBER
	Sensors           int        // SENSOR_NUMBER
	Groups            int        // GROUP_NUMBER
	SGStrategy        string     // SG_STRATEGY
	GroupPrefix       string     // GROUP_NAME_PREFIX
	Dialect           string     // IOTDB_DIALECT_MODE: tree or table
	Tables            int        // IOTDB_TABLE_NUMBER (table model; GROUP_NUMBER in the tree model)
	TablePrefix       string     // IOTDB_TABLE_NAME_PREFIX
	TimeColumn        string     // TABLE_TIME_COLUMN
	TagNumber         int        // TAG_NUMBER
	TagKeyPrefix      string     // TAG_KEY_PREFIX
	TagValuePrefix    string     // TAG_VALUE_PREFIX
	TagCardinality    []int      // TAG_VALUE_CARDINALITY
	DevicePrefix      string     // DEVICE_NAME_PREFIX
	SensorPrefix      string     // SENSOR_NAME_PREFIX
	RealInsertRate    float64    // REAL_INSERT_RATE
	TypeProportion    []float64  // INSERT_DATATYPE_PROPORTION (11 weights)
	StringLength      int        // STRING_LENGTH
	DoubleLength      int        // DOUBLE_LENGTH
	FunctionRatios    [5]float64 // LINE, SIN, SQUARE, RANDOM, CONSTANT _RATIO
	DataSeed          int64      // DATA_SEED
	SensorTSAlignment bool       // IS_SENSOR_TS_ALIGNMENT

	// Timestamps and batches.
	StartTime          time.Time // START_TIME
	PointStep          int64     // POINT_STEP (precision units)
	TimestampPrecision string    // TIMESTAMP_PRECISION: ms, us, ns
	RegularFrequency   bool      // IS_REGULAR_FREQUENCY
	BatchSize          int       // BATCH_SIZE_PER_WRITE
	DevicesPerWrite    int       // DEVICE_NUM_PER_WRITE

	// Out of order.
	OutOfOrder      bool    // IS_OUT_OF_ORDER
	OutOfOrderMode  string  // OUT_OF_ORDER_MODE
	OutOfOrderRatio float64 // OUT_OF_ORDER_RATIO
	Lambda          float64 // LAMBDA
	MaxK            int     // MAX_K

	// Operations and queries.
	OperationProportion []float64 // OPERATION_PROPORTION (13 weights)
	QueryDevices        int       // QUERY_DEVICE_NUM
	QuerySensors        int       // QUERY_SENSOR_NUM
	QueryInterval       int64     // QUERY_INTERVAL (precision units)
	StepSize            int64     // STEP_SIZE
	QueryLowerValue     float64   // QUERY_LOWER_VALUE
	GroupByTimeUnit     int64     // GROUP_BY_TIME_UNIT (precision units)
	QueryAggregateFun   string    // QUERY_AGGREGATE_FUN
	QuerySeed           int64     // QUERY_SEED
	RecentQuery         bool      // IS_RECENT_QUERY
	FixedQuery          bool      // ENABLE_FIXED_QUERY
	ResultRowLimit      int64     // RESULT_ROW_LIMIT

	// tsbench additions.
	FilePath          string  // FILE_PATH: a data set to replay, or empty
	TrackPath         string  // TRACK_PATH: a Rally track or a documents file, or empty
	TrackChallenge    string  // TRACK_CHALLENGE
	TrackIndexBody    string  // TRACK_INDEX_BODY
	ResultsDir        string  // RESULTS_DIR
	ResultsStore      string  // RESULTS_STORE: a store's URL, or empty
	Verify            bool    // VERIFY
	MaxErrorRate      float64 // MAX_ERROR_RATE (percent of operations that may fail before the run is "failed")
	CheckAnswers      bool    // CHECK_ANSWERS
	CheckAnswersRatio float64 // CHECK_ANSWERS_RATIO (0 < r ≤ 1)
	// ServerMetricsIntervalS is SERVER_METRICS_INTERVAL (seconds; 0 off).
	ServerMetricsIntervalS float64
	WarmupTimeS            int64 // WARMUP_TIME (seconds)
	WarmupOperations       int64 // WARMUP_OPERATIONS (per client)

	// Query rounds and lifecycle (tsbench additions).
	QueryRounds       int    // QUERY_ROUNDS (-1 resolved: 2 with a suite or restart commands, else 0)
	QueryLoop         int64  // QUERY_LOOP (0 resolved to LOOP)
	QuerySuite        string // QUERY_SUITE: "", "weekly" or a file
	RestartScope      string // RESTART_SCOPE: round or variant
	FlushCommand      string // FLUSH_COMMAND
	StopCommand       string // STOP_COMMAND
	DropCachesCommand string // DROP_CACHES_COMMAND
	StartCommand      string // START_COMMAND
	ClearCache        bool   // CLEAR_CACHE
	ReadyTimeoutMS    int64  // READY_TIMEOUT

	// Given records which keys were given explicitly (file, environment or
	// --set), by upper-case name. Defaults are not in it.
	Given map[string]bool

	// keys is the table this configuration was loaded with: the shared keys
	// and the chosen database's own, in dump order.
	keys []Key
	// values holds the effective text of every key, for the dump and the
	// run record.
	values map[string]string
	// driver is the key set of the chosen database, nil when it has none;
	// options is what its keys parsed into.
	driver  *KeySet
	options any
}

// Precision returns how many timestamp units make one millisecond.
func (c *Config) Precision() int64 {
	switch c.TimestampPrecision {
	case "us":
		return 1000
	case "ns":
		return 1000000
	}
	return 1
}

// StartUnits is START_TIME in timestamp-precision units.
func (c *Config) StartUnits() int64 {
	return c.StartTime.UnixMilli() * c.Precision()
}

// Rounds reports whether the run has separate query rounds after ingest.
func (c *Config) Rounds() bool { return c.QueryRounds > 0 }

// HasRestart reports whether the lifecycle restarts the database.
func (c *Config) HasRestart() bool { return c.StopCommand != "" || c.StartCommand != "" }

// HasWrites reports whether OPERATION_PROPORTION gives ingestion any weight.
// LOOP=0 writes nothing, whatever the weights say.
func (c *Config) HasWrites() bool { return c.OperationProportion[0] > 0 && c.Loop > 0 }

// HasQueries reports whether any query family Q1..Q12 has weight.
func (c *Config) HasQueries() bool {
	for _, w := range c.OperationProportion[1:] {
		if w > 0 {
			return true
		}
	}
	return false
}

// Distributed says the run is one instance of several (BENCHMARK_CLUSTER
// with BENCHMARK_INSTANCES > 1).
func (c *Config) Distributed() bool { return c.BenchmarkCluster && c.BenchmarkInstances > 1 }

// FirstDeviceIndex is the id of this instance's first device
// (BENCHMARK_CLUSTER with BENCHMARK_INDEX: instance i takes ids i*D..i*D+D-1).
func (c *Config) FirstDeviceIndex() int {
	if c.BenchmarkCluster {
		return c.BenchmarkIndex * c.Devices
	}
	return 0
}

// Error is a configuration problem: which key, which value, what is wrong and
// what would be valid. Its message is one sentence a user can act on.
type Error struct {
	Key   string
	Value string
	Msg   string
	Valid string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Key != "" {
		b.WriteString(e.Key)
		if e.Value != "" || e.Msg == "" {
			v := e.Value
			if strings.ContainsFunc(v, unicode.IsControl) {
				// A value with a newline would break the error into lines
				// that each look like an error of their own.
				v = strconv.Quote(v)
			}
			fmt.Fprintf(&b, "=%s", v)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Valid != "" {
		b.WriteString(" (valid: ")
		b.WriteString(e.Valid)
		b.WriteString(")")
	}
	return b.String()
}

// Errors is every problem found in one load, reported together so a user
// fixes a file in one pass.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}
