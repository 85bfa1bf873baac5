package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Groups of the configuration dump, in iot-benchmark's "Main Configurations"
// order, plus tsbench's own. A database's own keys form one more group,
// named by its key set and shown after GroupOther.
const (
	GroupTestMode   = "Test Mode"
	GroupConnection = "Database Connection Information"
	GroupDataMode   = "Data Mode"
	GroupDataAmount = "Data Amount"
	GroupQuery      = "Query Param"
	GroupOther      = "Other Param"
	GroupTSBench    = "tsbench"
	GroupRounds     = "Query Rounds and Lifecycle"
)

// GroupOrder is the order of the shared groups in the dump and in
// docs/config.md; the database's group goes after GroupOther.
var GroupOrder = []string{GroupTestMode, GroupConnection, GroupDataMode, GroupDataAmount, GroupQuery, GroupOther, GroupRounds, GroupTSBench}

// Key describes one configuration key: the single source for parsing,
// defaults, the dump, the workload fingerprint and docs/config.md. Shared
// keys parse into Config; a database's keys parse into its options type
// (see KeySet). Build keys with Int, Long, Float, Bool, String, Enum or Custom.
type Key struct {
	Name    string
	Group   string // set by the key set for a database's keys
	Default string
	Valid   string // what values are accepted, for messages and docs
	Doc     string
	Secret  bool // masked in every output
	// Workload says the key changes the data written or the queries asked:
	// two runs that differ in it did different work, so it is part of the
	// workload fingerprint. Where the database is, how to log in, how it
	// stores data, timeouts and output are not.
	Workload bool
	// parse assigns the (trimmed) value to dst (*Config or the database's
	// options), or explains why it cannot.
	parse func(dst any, v string) error
}

// AsSecret marks a key whose value is never printed or saved.
func (k Key) AsSecret() Key { k.Secret = true; return k }

// AsWorkload marks a key that changes the workload (see Key.Workload).
func (k Key) AsWorkload() Key { k.Workload = true; return k }

// problem is returned by parse functions; the loader adds key and value.
type problem struct{ msg string }

func (p problem) Error() string { return p.msg }

func bad(format string, a ...any) error { return problem{fmt.Sprintf(format, a...)} }

func parseInt(v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && ne.Err == strconv.ErrRange && strings.HasPrefix(v, "-"):
		return 0, bad("out of range")
	case errors.As(err, &ne) && ne.Err == strconv.ErrRange:
		return 0, bad("out of range: the largest allowed is %d", hi)
	case err != nil:
		return 0, bad("not a whole number")
	case n < lo:
		return 0, bad("out of range")
	case n > hi:
		// The valid text often names only the lower bound (≥ 1); the
		// upper one (a Java int) must be said.
		return 0, bad("out of range: the largest allowed is %d", hi)
	}
	return n, nil
}

func parseFloat(v string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(v, "d"), "D"), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, bad("not a number")
	}
	if f < lo {
		return 0, bad("out of range")
	}
	if f > hi {
		return 0, bad("out of range: the largest allowed is %g", hi)
	}
	return f, nil
}

// parseBool accepts true/false in any case. Unlike Java, which reads anything
// but "true" as false, a typo is an error here.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, bad("not true or false")
}

const maxInt32 = math.MaxInt32

// The schema (every device and sensor) is built in memory before a run, and
// for --dry-run too: these bounds keep that under a gigabyte, where a typo
// of a few digits would otherwise ask for hundreds.
const (
	maxDevices = 1_000_000
	maxSensors = 100_000
)

// Custom is a key with its own parser; the others are built on it. A parse
// error's text becomes the message after "KEY=value: ".
func Custom[T any](name, def, valid, doc string, parse func(o *T, v string) error) Key {
	return Key{Name: name, Default: def, Valid: valid, Doc: doc, parse: func(dst any, v string) error {
		o, ok := dst.(*T)
		if !ok {
			return fmt.Errorf("key %s parses into %T, not %T", name, (*T)(nil), dst)
		}
		return parse(o, v)
	}}
}

// Int is a whole-number key within [lo, hi].
func Int[T any](name, def string, lo, hi int64, valid, doc string, field func(*T) *int) Key {
	return Custom(name, def, valid, doc, func(o *T, v string) error {
		n, err := parseInt(v, lo, hi)
		if err != nil {
			return err
		}
		*field(o) = int(n)
		return nil
	})
}

// Long is Int for int64 fields.
func Long[T any](name, def string, lo, hi int64, valid, doc string, field func(*T) *int64) Key {
	return Custom(name, def, valid, doc, func(o *T, v string) error {
		n, err := parseInt(v, lo, hi)
		if err != nil {
			return err
		}
		*field(o) = n
		return nil
	})
}

// Float is a finite number within [lo, hi] (Java's 1.5d suffix accepted).
func Float[T any](name, def string, lo, hi float64, valid, doc string, field func(*T) *float64) Key {
	return Custom(name, def, valid, doc, func(o *T, v string) error {
		f, err := parseFloat(v, lo, hi)
		if err != nil {
			return err
		}
		*field(o) = f
		return nil
	})
}

// Bool is true or false in any case.
func Bool[T any](name, def, doc string, field func(*T) *bool) Key {
	return Custom(name, def, "true or false", doc, func(o *T, v string) error {
		b, err := parseBool(v)
		if err != nil {
			return err
		}
		*field(o) = b
		return nil
	})
}

// String takes any text.
func String[T any](name, def, doc string, field func(*T) *string) Key {
	return Custom(name, def, "any text", doc, func(o *T, v string) error {
		*field(o) = v
		return nil
	})
}

// Enum matches one of values case-insensitively and stores its canonical spelling.
func Enum[T any](name, def string, values []string, doc string, field func(*T) *string) Key {
	return Custom(name, def, strings.Join(values, ", "), doc, func(o *T, v string) error {
		for _, s := range values {
			if strings.EqualFold(s, v) {
				*field(o) = s
				return nil
			}
		}
		return bad("unknown value")
	})
}

// The shared keys' constructors: the generic ones on Config, in a group.

func in(group string, k Key) Key { k.Group = group; return k }

func onConfig(parse func(c *Config, v string) error) func(any, string) error {
	return func(dst any, v string) error { return parse(dst.(*Config), v) }
}

func intKey(name, group, def string, lo, hi int64, valid, doc string, field func(*Config) *int) Key {
	return in(group, Int(name, def, lo, hi, valid, doc, field))
}

func longKey(name, group, def string, lo, hi int64, valid, doc string, field func(*Config) *int64) Key {
	return in(group, Long(name, def, lo, hi, valid, doc, field))
}

func floatKey(name, group, def string, lo, hi float64, valid, doc string, field func(*Config) *float64) Key {
	return in(group, Float(name, def, lo, hi, valid, doc, field))
}

func boolKey(name, group, def, doc string, field func(*Config) *bool) Key {
	return in(group, Bool(name, def, doc, field))
}

func stringKey(name, group, def, doc string, field func(*Config) *string) Key {
	return in(group, String(name, def, doc, field))
}

func enumKey(name, group, def string, values []string, doc string, field func(*Config) *string) Key {
	return in(group, Enum(name, def, values, doc, field))
}

// weightsKey parses a colon-separated list of n non-negative weights.
// Shorter lists are padded by the legacy layer before they get here.
func weightsKey(name, group, def string, n int, names, doc string, field func(*Config) *[]float64) Key {
	return in(group, Custom(name, def, fmt.Sprintf("%d non-negative numbers separated by ':' (%s)", n, names), doc,
		func(c *Config, v string) error {
			parts := strings.Split(v, ":")
			if len(parts) != n {
				return bad("has %d fields, not %d", len(parts), n)
			}
			ws := make([]float64, n)
			sum := 0.0
			for i, p := range parts {
				f, err := parseFloat(strings.TrimSpace(p), 0, math.MaxFloat64)
				if err != nil {
					return bad("field %d (%q) is not a non-negative number", i+1, p)
				}
				ws[i] = f
				sum += f
			}
			if sum <= 0 {
				return bad("all weights are zero")
			}
			if math.IsInf(sum, 0) {
				// Shares of an infinite sum are all zero or undefined.
				return bad("the weights add up to more than a number holds; give smaller weights in the same ratios")
			}
			*field(c) = ws
			return nil
		}))
}

// parseStartTime accepts ISO-8601 with or without offset (no offset means
// UTC, so that every machine makes the same timestamps), single-digit month
// and day as Joda's lenient parser does, and plain epoch milliseconds.
func parseStartTime(v string) (time.Time, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.UnixMilli(n).UTC(), nil
	}
	// Normalise single-digit month/day/hour: 2018-9-20T0:00:00 -> 2018-09-20T00:00:00.
	norm := v
	if date, rest, ok := strings.Cut(v, "T"); ok {
		dp := strings.Split(date, "-")
		if len(dp) == 3 {
			for i := 1; i < 3; i++ {
				if len(dp[i]) == 1 {
					dp[i] = "0" + dp[i]
				}
			}
			norm = strings.Join(dp, "-") + "T" + rest
		}
	} else if dp := strings.Split(v, "-"); len(dp) == 3 {
		for i := 1; i < 3; i++ {
			if len(dp[i]) == 1 {
				dp[i] = "0" + dp[i]
			}
		}
		norm = strings.Join(dp, "-")
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, norm); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, bad("not an ISO-8601 time")
}

var dataTypeNames = "BOOLEAN:INT32:INT64:FLOAT:DOUBLE:TEXT:STRING:BLOB:TIMESTAMP:DATE:OBJECT"

// operationNames and defaultProportion follow NumOperations: ingestion,
// then Q1, Q2, ... one weight each.
var operationNames, defaultProportion = func() (string, string) {
	names, weights := []string{Ingestion}, []string{"1"}
	for q := 1; q < NumOperations; q++ {
		names = append(names, fmt.Sprintf("Q%d", q))
		weights = append(weights, "0")
	}
	return strings.Join(names, ":"), strings.Join(weights, ":")
}()

// nonWorkload are the shared keys that do not change the data or the
// queries: where the database is, how to log in, where results go, timeouts,
// progress and whether to clean and check. Two runs whose other keys agree
// did the same work.
var nonWorkload = map[string]bool{
	"DB_SWITCH": true, "HOST": true, "PORT": true, "USERNAME": true, "PASSWORD": true,
	"RESULTS_DIR": true, "RESULTS_STORE": true, "FILE_PATH": true, "TRACK_PATH": true, "TRACK_CHALLENGE": true, "TRACK_INDEX_BODY": true, "VERIFY": true, "CHECK_ANSWERS": true, "CHECK_ANSWERS_RATIO": true, "SERVER_METRICS_INTERVAL": true, "MAX_ERROR_RATE": true, "LOG_PRINT_INTERVAL": true,
	"WRITE_OPERATION_TIMEOUT_MS": true, "READ_OPERATION_TIMEOUT_MS": true, "INIT_WAIT_TIME": true,
	"IS_DELETE_DATA": true, "CREATE_SCHEMA": true, "TEST_MAX_TIME": true, "BENCHMARK_WORK_MODE": true,
}

// SharedKeys returns the keys every run reads, whatever the database, in
// dump order. A database's own keys come from its driver's KeySet.
func SharedKeys() []Key {
	ks := []Key{
		{Name: "BENCHMARK_WORK_MODE", Group: GroupTestMode, Default: "testWithDefaultPath", Valid: "testWithDefaultPath", Doc: "Run mode. tsbench runs the normal benchmark; checking the data is `VERIFY=true` or `bench verify`.", parse: onConfig(func(c *Config, v string) error {
			if v != "testWithDefaultPath" {
				return bad("is not supported by tsbench")
			}
			return nil
		})},

		stringKey("DB_SWITCH", GroupConnection, "SQLite", "Database to measure (case-insensitive); the embedded SQLite when none is named. `bench version` lists every value this build knows with what it measures.", func(c *Config) *string { return &c.DBSwitch }),
		{Name: "HOST", Group: GroupConnection, Default: "127.0.0.1", Valid: "comma-separated host names", Doc: "Server hosts, index-aligned with PORT.", parse: onConfig(func(c *Config, v string) error {
			c.Hosts = splitList(v)
			if len(c.Hosts) == 0 {
				return bad("is empty")
			}
			return nil
		})},
		{Name: "PORT", Group: GroupConnection, Default: "", Valid: "comma-separated ports 1..65535, one per HOST (or one for all); empty: the database's own default", Doc: "Server ports. Empty takes the port the database listens on by default (IoTDB 6667), as its driver declares.", parse: onConfig(func(c *Config, v string) error {
			c.Ports = c.Ports[:0]
			for _, p := range splitList(v) {
				n, err := parseInt(p, 1, 65535)
				if err != nil {
					return bad("%q is not a port number", p)
				}
				c.Ports = append(c.Ports, int(n))
			}
			return nil
		})},
		stringKey("USERNAME", GroupConnection, "root", "User name.", func(c *Config) *string { return &c.Username }),
		{Name: "PASSWORD", Group: GroupConnection, Default: "root", Valid: "any text", Doc: "Password. Never printed or saved; prefer the environment variable TSBENCH_PASSWORD.", Secret: true, parse: onConfig(func(c *Config, v string) error { c.Password = v; return nil })},
		stringKey("DB_NAME", GroupConnection, "test", "Database name: IoTDB's `root.<DB_NAME>`; the SQLite table-name prefix.", func(c *Config) *string { return &c.DBName }),

		intKey("GROUP_NUMBER", GroupDataMode, "1", 1, maxInt32, "1..DEVICE_NUMBER", "Number of groups (IoTDB databases, SQLite tables).", func(c *Config) *int { return &c.Groups }),
		intKey("DEVICE_NUMBER", GroupDataMode, "6000", 1, maxDevices, "1..1000000", "Number of devices. tsbench holds every device and its plan in memory (about 200 bytes each), and checks the plan before it runs: hence the bound.", func(c *Config) *int { return &c.Devices }),
		intKey("SENSOR_NUMBER", GroupDataMode, "200", 1, maxSensors, "1..100000", "Sensors per device; every device has the same sensors.", func(c *Config) *int { return &c.Sensors }),
		floatKey("REAL_INSERT_RATE", GroupDataMode, "1.0", 0, 1, "> 0 and ≤ 1", "Share of devices that are written (the first ⌈D×rate⌉ of each instance); queries target only written devices.", func(c *Config) *float64 { return &c.RealInsertRate }),
		boolKey("IS_SENSOR_TS_ALIGNMENT", GroupDataMode, "true", "Every row carries all sensors of its device. Only true is supported.", func(c *Config) *bool { return &c.SensorTSAlignment }),
		boolKey("IS_OUT_OF_ORDER", GroupDataMode, "false", "Send some rows out of timestamp order (see OUT_OF_ORDER_MODE).", func(c *Config) *bool { return &c.OutOfOrder }),
		enumKey("OUT_OF_ORDER_MODE", GroupDataMode, OutOfOrderPoisson, []string{OutOfOrderPoisson, OutOfOrderBatch}, "POISSON: each row is held back with probability OUT_OF_ORDER_RATIO by a Poisson-distributed number of rows (LAMBDA, MAX_K). BATCH: each device starts at write round ⌊rounds×ratio⌋ and back-fills the first rounds at the end. Old integer values 0/1 mean POISSON/BATCH.", func(c *Config) *string { return &c.OutOfOrderMode }),
		floatKey("OUT_OF_ORDER_RATIO", GroupDataMode, "0.5", 0, 1, "0..1", "Share of rows that arrive behind a later timestamp.", func(c *Config) *float64 { return &c.OutOfOrderRatio }),
		floatKey("LAMBDA", GroupDataMode, "2200.0", math.SmallestNonzeroFloat64, math.MaxFloat64, "> 0", "Mean delay of a held-back row, in rows (POISSON).", func(c *Config) *float64 { return &c.Lambda }),
		intKey("MAX_K", GroupDataMode, "170000", 2, maxInt32, "≥ 2", "Largest delay of a held-back row, in rows (POISSON).", func(c *Config) *int { return &c.MaxK }),
		enumKey("SG_STRATEGY", GroupDataMode, StrategyMod, []string{StrategyMod, StrategyHash, StrategyDiv}, "How devices map to groups: mod (id mod G), hash (Java string hash of the id mod G), div (contiguous blocks).", func(c *Config) *string { return &c.SGStrategy }),
		stringKey("GROUP_NAME_PREFIX", GroupDataMode, "g_", "Group names are prefix + number.", func(c *Config) *string { return &c.GroupPrefix }),
		enumKey("IOTDB_DIALECT_MODE", GroupDataMode, DialectTree, []string{DialectTree, DialectTable}, "IoTDB's data model. tree: a device is a path root.<DB_NAME>.<group>.<device>. table: a group is the database <DB_NAME>_<group>, holding IOTDB_TABLE_NUMBER tables whose rows carry the device in the TAG column device_id; queries draw their devices from one table. Other databases take tree only.", func(c *Config) *string { return &c.Dialect }),
		intKey("IOTDB_TABLE_NUMBER", GroupDataMode, "1", 1, maxInt32, "table model: a multiple of GROUP_NUMBER that divides DEVICE_NUMBER", "Tables of the table model; devices map to tables by SG_STRATEGY, tables to groups the same way. The tree model uses GROUP_NUMBER.", func(c *Config) *int { return &c.Tables }),
		stringKey("IOTDB_TABLE_NAME_PREFIX", GroupDataMode, "table_", "Table names of the table model are prefix + number.", func(c *Config) *string { return &c.TablePrefix }),
		stringKey("TABLE_TIME_COLUMN", GroupDataMode, "time", "Name of the time column of the table model's tables.", func(c *Config) *string { return &c.TimeColumn }),
		intKey("TAG_NUMBER", GroupDataMode, "0", 0, 1000, "0..1000, the number of TAG_VALUE_CARDINALITY items", "Tags per device, as iot-benchmark derives them from the device name. IoTDB stores them: in the tree model as path levels between group and device, in the table model as STRING TAG columns. Other databases do not store tags; nothing they write or query depends on them.", func(c *Config) *int { return &c.TagNumber }),
		stringKey("TAG_KEY_PREFIX", GroupDataMode, "tag_", "Tag keys are prefix + index.", func(c *Config) *string { return &c.TagKeyPrefix }),
		stringKey("TAG_VALUE_PREFIX", GroupDataMode, "value_", "Tag values are prefix + index.", func(c *Config) *string { return &c.TagValuePrefix }),
		{Name: "TAG_VALUE_CARDINALITY", Group: GroupDataMode, Default: "", Valid: "comma-separated whole numbers ≥ 1, one per tag", Doc: "Distinct values of each tag. Does not change the number of devices.", parse: onConfig(func(c *Config, v string) error {
			c.TagCardinality = c.TagCardinality[:0]
			for _, p := range splitList(v) {
				n, err := parseInt(p, 1, maxInt32)
				if err != nil {
					return bad("%q is not a whole number ≥ 1", p)
				}
				c.TagCardinality = append(c.TagCardinality, int(n))
			}
			return nil
		})},
		stringKey("DEVICE_NAME_PREFIX", GroupDataMode, "d_", "Device names are prefix + id.", func(c *Config) *string { return &c.DevicePrefix }),
		stringKey("SENSOR_NAME_PREFIX", GroupDataMode, "s_", "Sensor names are prefix + index.", func(c *Config) *string { return &c.SensorPrefix }),
		weightsKey("INSERT_DATATYPE_PROPORTION", GroupDataMode, "1:1:1:1:1:1:0:0:0:0:0", NumDataTypes, dataTypeNames, "Share of each data type among the sensors, in contiguous blocks as iot-benchmark assigns them. BOOLEAN..DATE are generated; OBJECT must be 0. A database that cannot store a type says so (Elasticsearch: BLOB, TIMESTAMP, DATE). Old 6- and 10-field values are padded.", func(c *Config) *[]float64 { return &c.TypeProportion }),
		intKey("STRING_LENGTH", GroupDataMode, "2", 1, 1<<20, "1..1048576", "Characters of each TEXT, STRING and BLOB value.", func(c *Config) *int { return &c.StringLength }),
		intKey("DOUBLE_LENGTH", GroupDataMode, "2", 0, 15, "0..15", "Decimal places kept for FLOAT and DOUBLE values.", func(c *Config) *int { return &c.DoubleLength }),
		floatKey("LINE_RATIO", GroupDataMode, "1", 0, math.MaxFloat64, "≥ 0; the five ratios must not all be 0", "Share of sensors whose values follow a saw-tooth line.", func(c *Config) *float64 { return &c.FunctionRatios[0] }),
		floatKey("SIN_RATIO", GroupDataMode, "1", 0, math.MaxFloat64, "≥ 0", "Share of sensors whose values follow a sine.", func(c *Config) *float64 { return &c.FunctionRatios[1] }),
		floatKey("SQUARE_RATIO", GroupDataMode, "1", 0, math.MaxFloat64, "≥ 0", "Share of sensors whose values follow a square wave.", func(c *Config) *float64 { return &c.FunctionRatios[2] }),
		floatKey("RANDOM_RATIO", GroupDataMode, "1", 0, math.MaxFloat64, "≥ 0", "Share of sensors with uniformly random values.", func(c *Config) *float64 { return &c.FunctionRatios[3] }),
		floatKey("CONSTANT_RATIO", GroupDataMode, "1", 0, math.MaxFloat64, "≥ 0", "Share of sensors with a constant value.", func(c *Config) *float64 { return &c.FunctionRatios[4] }),
		longKey("DATA_SEED", GroupDataMode, "666", math.MinInt64, math.MaxInt64, "any whole number", "Seed of all data randomness.", func(c *Config) *int64 { return &c.DataSeed }),

		weightsKey("OPERATION_PROPORTION", GroupDataAmount, defaultProportion, NumOperations, operationNames, "Weights of ingestion and each query family. Each client's LOOP operations follow an exact, evenly spread schedule of these shares. Shorter old lists are padded with 0.", func(c *Config) *[]float64 { return &c.OperationProportion }),
		intKey("DATA_CLIENT_NUMBER", GroupDataAmount, "20", 1, 100000, "1..100000 and ≤ DEVICE_NUMBER when IS_CLIENT_BIND", "Concurrent clients that run the workload.", func(c *Config) *int { return &c.DataClients }),
		boolKey("IS_CLIENT_BIND", GroupDataAmount, "true", "true: each device belongs to one client. false: clients take device batches from one shared queue.", func(c *Config) *bool { return &c.ClientBind }),
		longKey("LOOP", GroupDataAmount, "100", 0, MaxLoop, "0..100000000", "Operations per client (not in total). One write operation writes one batch for every device the client owns. The bound keeps the plan of a client's operations in memory (100 MB at most); a run meant to last for a time sets TEST_MAX_TIME. 0 writes nothing: a query-only run (QUERY_ROUNDS ≥ 1) on data an earlier run wrote; with QUERY_ROUNDS=0 it measures nothing and is refused.", func(c *Config) *int64 { return &c.Loop }),
		intKey("BATCH_SIZE_PER_WRITE", GroupDataAmount, "100", 1, 1<<24, "1..16777216", "Rows per device per batch.", func(c *Config) *int { return &c.BatchSize }),
		intKey("DEVICE_NUM_PER_WRITE", GroupDataAmount, "1", 1, maxInt32, "≥ 1; more than 1 only with IoTDB (tree model: IoTDB-200-SESSION_BY_RECORDS) and IS_CLIENT_BIND=true, dividing every client's written devices", "Devices per write request: a client writes its devices DEVICE_NUM_PER_WRITE at a time, each request one INGESTION operation holding their batches together (in the table model, devices of one table).", func(c *Config) *int { return &c.DevicesPerWrite }),
		{Name: "START_TIME", Group: GroupDataAmount, Default: "2022-01-01T00:00:00+08:00", Valid: "ISO-8601 such as 2022-01-01T00:00:00+08:00 (no offset means UTC), or epoch milliseconds", Doc: "Timestamp of the first row of every device.", parse: onConfig(func(c *Config, v string) error {
			t, err := parseStartTime(v)
			if err != nil {
				return err
			}
			c.StartTime = t
			return nil
		})},
		longKey("POINT_STEP", GroupDataAmount, "5000", 1, math.MaxInt32*1000, "≥ 1", "Time between consecutive rows, in TIMESTAMP_PRECISION units.", func(c *Config) *int64 { return &c.PointStep }),
		enumKey("TIMESTAMP_PRECISION", GroupDataAmount, "ms", []string{"ms", "us", "ns"}, "Unit of timestamps, POINT_STEP, QUERY_INTERVAL and GROUP_BY_TIME_UNIT.", func(c *Config) *string { return &c.TimestampPrecision }),
		boolKey("IS_REGULAR_FREQUENCY", GroupDataAmount, "true", "false: each row gets a deterministic random offset inside its step.", func(c *Config) *bool { return &c.RegularFrequency }),
		longKey("OP_MIN_INTERVAL", GroupDataAmount, "0", -1, math.MaxInt32, "-1 (= POINT_STEP), 0 (off) or milliseconds", "Minimum duration of one operation; the client sleeps the rest.", func(c *Config) *int64 { return &c.OpMinIntervalMS }),
		boolKey("OP_MIN_INTERVAL_RANDOM", GroupDataAmount, "false", "Draw each operation's minimum uniformly from [0, OP_MIN_INTERVAL).", func(c *Config) *bool { return &c.OpMinIntervalRand }),
		floatKey("TARGET_THROUGHPUT", GroupDataAmount, "0", 0, 1e9, "0 (off) or operations per second", "Rally's target throughput: the clients together issue this many operations per second on a fixed schedule (each client its share, evenly spaced); latency counts from the time an operation was due (a late start's wait and the client's own preparation, such as generating the batch, included), while its service time (the request's own) is reported beside it. Exclusive with OP_MIN_INTERVAL.", func(c *Config) *float64 { return &c.TargetThroughput }),
		longKey("INTERVAL_BETWEEN_WRITE_BATCH", GroupDataAmount, "0", 0, math.MaxInt32, "≥ 0 ms", "Minimum duration of each batch write inside a write operation.", func(c *Config) *int64 { return &c.BatchIntervalMS }),
		longKey("WRITE_OPERATION_TIMEOUT_MS", GroupDataAmount, "120000", 1, math.MaxInt32, "≥ 1 ms", "A write that takes longer fails. Opening the connection to the database at the start has the same limit (a run that cannot connect in time stops, incomplete).", func(c *Config) *int64 { return &c.WriteTimeoutMS }),
		longKey("READ_OPERATION_TIMEOUT_MS", GroupDataAmount, "300000", 1, math.MaxInt32, "≥ 1 ms", "A query that takes longer fails (never counted as a success).", func(c *Config) *int64 { return &c.ReadTimeoutMS }),

		intKey("QUERY_DEVICE_NUM", GroupQuery, "1", 1, maxInt32, "1..devices of a group", "Devices per query, all from one group.", func(c *Config) *int { return &c.QueryDevices }),
		intKey("QUERY_SENSOR_NUM", GroupQuery, "1", 1, maxInt32, "1..SENSOR_NUMBER (numeric sensors for value filters)", "Sensors per query.", func(c *Config) *int { return &c.QuerySensors }),
		longKey("QUERY_INTERVAL", GroupQuery, "250000", 0, math.MaxInt64/4, "≥ 0", "Length of query time ranges, in precision units.", func(c *Config) *int64 { return &c.QueryInterval }),
		longKey("STEP_SIZE", GroupQuery, "1", 0, math.MaxInt32, "≥ 0", "Each query of a family starts STEP_SIZE×POINT_STEP after the previous one (wrapping inside the written range).", func(c *Config) *int64 { return &c.StepSize }),
		floatKey("QUERY_LOWER_VALUE", GroupQuery, "-5", -math.MaxFloat64, math.MaxFloat64, "a number", "Value filter threshold: sensor > value.", func(c *Config) *float64 { return &c.QueryLowerValue }),
		longKey("GROUP_BY_TIME_UNIT", GroupQuery, "20000", 1, math.MaxInt64/4, "≥ 1", "Window of group-by queries, in precision units.", func(c *Config) *int64 { return &c.GroupByTimeUnit }),
		stringKey("QUERY_AGGREGATE_FUN", GroupQuery, "count", "Aggregate of Q4–Q7 and Q11: count, sum, avg, max_value, min_value (the adapter says which it supports).", func(c *Config) *string { return &c.QueryAggregateFun }),
		longKey("QUERY_SEED", GroupQuery, "151658", math.MinInt64, math.MaxInt64, "any whole number", "Seed of query parameters (per client).", func(c *Config) *int64 { return &c.QuerySeed }),
		boolKey("IS_RECENT_QUERY", GroupQuery, "false", "In mixed workloads, query the newest range the client has written.", func(c *Config) *bool { return &c.RecentQuery }),
		boolKey("ENABLE_FIXED_QUERY", GroupQuery, "false", "Every query of a family uses the same devices, sensors and range.", func(c *Config) *bool { return &c.FixedQuery }),
		longKey("RESULT_ROW_LIMIT", GroupQuery, "-1", -1, math.MaxInt64, "-1 (off) or ≥ 0", "Limit rows returned by raw-data queries.", func(c *Config) *int64 { return &c.ResultRowLimit }),

		boolKey("IS_DELETE_DATA", GroupOther, "true", "Remove the benchmark's old data before the run (only when the run writes).", func(c *Config) *bool { return &c.DeleteData }),
		longKey("INIT_WAIT_TIME", GroupOther, "1000", 0, math.MaxInt32, "≥ 0 ms", "Pause after cleanup, for servers that drop data asynchronously.", func(c *Config) *int64 { return &c.InitWaitMS }),
		boolKey("CREATE_SCHEMA", GroupOther, "true", "Create the schema before writing (only when the run writes).", func(c *Config) *bool { return &c.CreateSchema }),
		longKey("TEST_MAX_TIME", GroupOther, "0", 0, math.MaxInt64/1000000, "0 (unlimited) or ms", "Wall-clock limit of each measured phase; clients stop after their current operation. The Result Matrix and the record note a phase it ended early (how many of its planned client steps ran, and the operations they made); the run stays complete, the bound being the user's, and VERIFY is skipped (the workload was not all written, by choice).", func(c *Config) *int64 { return &c.TestMaxTimeMS }),
		boolKey("BENCHMARK_CLUSTER", GroupOther, "false", "Several tsbench instances share one database; see BENCHMARK_INDEX.", func(c *Config) *bool { return &c.BenchmarkCluster }),
		intKey("BENCHMARK_INDEX", GroupOther, "0", 0, 1<<20, "0 .. BENCHMARK_INSTANCES-1", "With BENCHMARK_CLUSTER, instance i writes device ids i×D .. i×D+D-1 and queries them. A Kubernetes Indexed Job's JOB_COMPLETION_INDEX sets it (over the file's value).", func(c *Config) *int { return &c.BenchmarkIndex }),
		intKey("BENCHMARK_INSTANCES", GroupOther, "1", 1, 1<<20, "≥ 1", "With BENCHMARK_CLUSTER, how many instances run the workload together, each on its own devices: the run record carries it, so that `bench merge` knows when it has every instance and `bench verify` counts every instance's devices.", func(c *Config) *int { return &c.BenchmarkInstances }),
		intKey("LOG_PRINT_INTERVAL", GroupOther, "5", 1, 3600, "1..3600 s", "Seconds between progress lines when output is not a terminal.", func(c *Config) *int { return &c.LogPrintInterval }),

		stringKey("FILE_PATH", GroupDataMode, "", "A data set to write instead of generating the data: a folder in iot-benchmark's data-set layout (schema.txt, a folder a device), as `bench generate` writes it for this configuration or iot-benchmark's generateDataMode wrote it. Its schema must be the workload's (devices, sensors, types), and each device's file must hold the rows LOOP's writes send (files of other data are counted at the start); its batches are sent as they are. Empty: the data are generated as they are sent.", func(c *Config) *string { return &c.FilePath }),
		stringKey("TRACK_PATH", GroupDataMode, "", "Documents to ingest instead of the generated rows, for a document database (Elasticsearch, OpenSearch): a Rally track (its folder or its track.json: the indices and their body files, the corpora's documents files, plain, .bz2 or .gz, decompressed once beside them as Rally does, the bulk task's bulk-size, clients, pipeline, ingest-percentage and corpora, the pipelines of put-pipeline), or a file of documents, a JSON document a line, for one index named DB_NAME. BATCH_SIZE_PER_WRITE is the documents a bulk and CLIENT_NUMBER the clients, where the configuration gives them; else the track's. The ingest ends when the documents are sent; VERIFY counts each index's documents. Jinja templating is refused (docs/compat.md lists what a track may hold). Empty: the generated rows.", func(c *Config) *string { return &c.TrackPath }),
		stringKey("TRACK_CHALLENGE", GroupDataMode, "", "The challenge of TRACK_PATH's track whose bulk task is run. Empty: the track's default challenge, or its only one.", func(c *Config) *string { return &c.TrackChallenge }),
		stringKey("TRACK_INDEX_BODY", GroupDataMode, "", "With TRACK_PATH a file of documents: the file holding the index's body (settings and mappings, as PUT /index takes it). Empty: the server's defaults.", func(c *Config) *string { return &c.TrackIndexBody }),
		stringKey("RESULTS_DIR", GroupTSBench, "results", "Folder of run records (`<id>.json`).", func(c *Config) *string { return &c.ResultsDir }),
		in(GroupTSBench, Custom("RESULTS_STORE", "", "empty, iotdb://[USER:PASSWORD@]HOST:PORT[/root.PATH] or http[s]://[USER:PASSWORD@]HOST:PORT[/INDEX]",
			"After each run, export its values into this metrics store, as `bench export RUN --to` does: IoTDB, or Elasticsearch and OpenSearch (docs/weekly-regression.md). A store that cannot be reached is a warning; the run's record is saved either way. Never printed or saved (it may hold a password). Empty: no export.",
			func(c *Config, v string) error {
				if v == "" {
					c.ResultsStore = ""
					return nil
				}
				u, err := url.Parse(v)
				if err != nil || u.Host == "" || (u.Scheme != "iotdb" && u.Scheme != "http" && u.Scheme != "https") {
					return bad("is not the URL of a store tsbench exports to")
				}
				c.ResultsStore = v
				return nil
			})).AsSecret(),
		intKey("QUERY_ROUNDS", GroupRounds, "-1", -1, 100, "-1 (automatic), 0..100", "Query rounds after ingest. 0 runs one mixed phase as iot-benchmark does; N ≥ 1 runs the writes first, then the queries N times: round 1 after the lifecycle steps (cold), later rounds right after (warm). -1: 2 when QUERY_SUITE, FLUSH_COMMAND, STOP_COMMAND or START_COMMAND is set, else 0. FLUSH_COMMAND, STOP_COMMAND and START_COMMAND need rounds (they run before them).", func(c *Config) *int { return &c.QueryRounds }),
		longKey("QUERY_LOOP", GroupRounds, "0", 0, math.MaxInt32, "0 (= LOOP) or ≥ 1", "Queries per client of each query variant in each round.", func(c *Config) *int64 { return &c.QueryLoop }),
		stringKey("QUERY_SUITE", GroupRounds, "", "Named query variants to run in the query rounds: `weekly` (the 24 classes of the IoTDB weekly regression report, see docs/weekly-regression.md) or the path of a suite file, whose variants may carry requests of their own per database (custom queries, docs/weekly-regression.md). Empty: one variant per query family with weight in OPERATION_PROPORTION.", func(c *Config) *string { return &c.QuerySuite }),
		enumKey("RESTART_SCOPE", GroupRounds, "round", []string{"round", "variant"}, "When the lifecycle steps run: once before round 1 (round), or before round 1 of every variant (variant), as the weekly report restarts the database for each query class.", func(c *Config) *string { return &c.RestartScope }),
		stringKey("FLUSH_COMMAND", GroupRounds, "", "Shell command that flushes the database before the query rounds; empty uses the adapter's flush (IoTDB FLUSH, SQLite WAL checkpoint).", func(c *Config) *string { return &c.FlushCommand }),
		stringKey("STOP_COMMAND", GroupRounds, "", "Shell command that stops the database (lifecycle step 2), e.g. `scripts/iotdb stop`. Empty: SQLite closes its file instead; servers are not stopped.", func(c *Config) *string { return &c.StopCommand }),
		stringKey("DROP_CACHES_COMMAND", GroupRounds, "sync; echo 3 > /proc/sys/vm/drop_caches", "Shell command that drops the OS page cache (step 3); skipped with a warning when not permitted (not root, read-only /proc). Empty: no step.", func(c *Config) *string { return &c.DropCachesCommand }),
		stringKey("START_COMMAND", GroupRounds, "", "Shell command that starts the database again (step 4), e.g. `scripts/iotdb start`; tsbench then waits until it answers (READY_TIMEOUT).", func(c *Config) *string { return &c.StartCommand }),
		boolKey("CLEAR_CACHE", GroupRounds, "true", "Without a restart, clear the database's own caches in the lifecycle when the adapter can (IoTDB CLEAR CACHE).", func(c *Config) *bool { return &c.ClearCache }),
		longKey("READY_TIMEOUT", GroupRounds, "120000", 1, math.MaxInt32, "≥ 1 ms", "How long to wait for the database to answer after START_COMMAND.", func(c *Config) *int64 { return &c.ReadyTimeoutMS }),
		floatKey("MAX_ERROR_RATE", GroupTSBench, "0", 0, 100, "0..100 (percent)", "Share of operations, over the whole run, that may fail before the run's status is `failed` (exit status 3): 0 fails a run on its first failed operation, as Rally's --on-error=abort does; 100 never.", func(c *Config) *float64 { return &c.MaxErrorRate }),
		boolKey("VERIFY", GroupTSBench, "false", "After the run, count the points the database holds per device and compare them with what a complete run of the workload writes (as `bench verify` does); a mismatch makes the exit status 3.", func(c *Config) *bool { return &c.Verify }),
		boolKey("CHECK_ANSWERS", GroupTSBench, "false", "Check the answer of every query (or CHECK_ANSWERS_RATIO of them) against the model of the workload: devices, sensors, timestamps and values, numbers within a relative 1e-9. The check runs after the query's latency is taken; a wrong answer is a failed operation whose reason names the family, device, sensor and what differs, so it counts in the error rate (MAX_ERROR_RATE) and a run with wrong answers is `failed`. Needs query rounds after an ingest on an emptied database (QUERY_ROUNDS ≥ 1, INGESTION weight > 0, IS_DELETE_DATA=true), one instance, and a database that returns answers (not Null). A query-only run (INGESTION weight 0, iot-benchmark's write run then query run) checks the data of the last run in RESULTS_DIR that wrote to the same target (DB_SWITCH, HOST, PORT, DB_NAME, SQLITE_PATH), when that run is complete, had IS_DELETE_DATA=true and wrote this workload's data (the same data fingerprint: the data keys and LOOP × BATCH_SIZE_PER_WRITE rows a device); it is refused otherwise. Writes no record of that folder describes are not seen. `bench routine` turns it on unless the configuration says otherwise.", func(c *Config) *bool { return &c.CheckAnswers }),
		floatKey("CHECK_ANSWERS_RATIO", GroupTSBench, "1", 0, 1, "0 < ratio ≤ 1", "With CHECK_ANSWERS, the share of queries checked, each chosen by QUERY_SEED, the client, the round and the variant, so that both sides of a comparison check the same queries. An unchecked query only counts its points, which costs less than collecting its answer and computing the model's (docs/performance.md).", func(c *Config) *float64 { return &c.CheckAnswersRatio }),
		floatKey("SERVER_METRICS_INTERVAL", GroupTSBench, "1", 0, 3600, "0 (off) or seconds, at most 3600", "How often the server's telemetry is sampled during every measured phase, beside a sample at its start and its end: this machine's CPU (user, system, iowait, steal) and memory, and the processes of the database server that listens on this machine (HOST 127.0.0.1 or localhost), or tsbench's own process for an embedded database: their CPU, resident memory, threads and disk bytes read and written. A server on another host is not sampled (the run says so). Each phase's Server table sums them up; the record keeps every sample. No operation waits on a sample. With it on, a database that can say its data size (SQLite, Elasticsearch, OpenSearch) is flushed and measured after the ingest: the disk footprint and bytes per point, among the server metrics. 0: nothing is sampled or measured.", func(c *Config) *float64 { return &c.ServerMetricsIntervalS }),
		longKey("WARMUP_TIME", GroupTSBench, "0", 0, math.MaxInt32, "0 (none) or seconds", "Rally's warmup-time-period: the operations that start in the first N seconds of the ingest phase, iot-benchmark's mixed phase and every query round after the first run as usual but are kept apart (their own Result and Latency rows, the record's `warmup`), never in the phase's figures, compare or the gate. Round 1 follows the restart and cache drop: its first queries are what it measures, so it never has a warm-up. A time suits the ingest; a phase shorter than it is not measured at all (the run warns), so short query rounds want WARMUP_OPERATIONS. Not with WARMUP_OPERATIONS.", func(c *Config) *int64 { return &c.WarmupTimeS }),
		longKey("WARMUP_OPERATIONS", GroupTSBench, "0", 0, math.MaxInt32, "0 (none) or ≥ 1", "Rally's warmup-iterations: the phases WARMUP_TIME applies to measure from the moment every client has done N operations of the phase; what started before is warm-up. Must leave each such phase something to measure (fewer than its operations per client). Not with WARMUP_TIME.", func(c *Config) *int64 { return &c.WarmupOperations }),
	}
	for i := range ks {
		ks[i].Workload = !nonWorkload[ks[i].Name] && !ks[i].Secret
	}
	return ks
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
