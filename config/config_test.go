package config

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, text string, sets ...string) (*Loaded, error) {
	t.Helper()
	return Load(Source{Data: []byte(text), Sets: sets, NoEnv: true})
}

func mustLoad(t *testing.T, text string, sets ...string) *Loaded {
	t.Helper()
	l, err := load(t, text, sets...)
	if err != nil {
		t.Fatalf("load %q: %v", text, err)
	}
	return l
}

func TestDefaultsMatchIoTBenchmark(t *testing.T) {
	c := Defaults()
	checks := []struct {
		name      string
		got, want any
	}{
		{"DEVICE_NUMBER", c.Devices, 6000},
		{"SENSOR_NUMBER", c.Sensors, 200},
		{"DATA_CLIENT_NUMBER", c.DataClients, 20},
		{"LOOP", c.Loop, int64(100)},
		{"BATCH_SIZE_PER_WRITE", c.BatchSize, 100},
		{"POINT_STEP", c.PointStep, int64(5000)},
		{"QUERY_INTERVAL", c.QueryInterval, int64(250000)},
		{"STEP_SIZE", c.StepSize, int64(1)},
		{"GROUP_BY_TIME_UNIT", c.GroupByTimeUnit, int64(20000)},
		{"QUERY_SEED", c.QuerySeed, int64(151658)},
		{"DATA_SEED", c.DataSeed, int64(666)},
		{"OUT_OF_ORDER_RATIO", c.OutOfOrderRatio, 0.5},
		{"START_TIME", c.StartTime.UnixMilli(), int64(1640966400000)},
		{"DB_SWITCH", c.DBSwitch, "SQLite"},
		{"WRITE_OPERATION_TIMEOUT_MS", c.WriteTimeoutMS, int64(120000)},
		{"READ_OPERATION_TIMEOUT_MS", c.ReadTimeoutMS, int64(300000)},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s default = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestSeparatorStyles(t *testing.T) {
	for _, text := range []string{
		"LOOP=7\nDEVICE_NUMBER=3\n",
		"LOOP: 7\nDEVICE_NUMBER: 3\n",
		"LOOP 7\nDEVICE_NUMBER 3\n",
		"LOOP = 7   \n# comment\n! other comment\nDEVICE_NUMBER   3\n",
	} {
		l := mustLoad(t, text+"DATA_CLIENT_NUMBER=1\n")
		if l.Config.Loop != 7 || l.Config.Devices != 3 {
			t.Errorf("%q: LOOP=%d DEVICE_NUMBER=%d, want 7 and 3", text, l.Config.Loop, l.Config.Devices)
		}
	}
}

func TestLegacyKeys(t *testing.T) {
	cases := []struct {
		text  string
		check func(c *Config) bool
		note  string
	}{
		{"CLIENT_NUMBER=4", func(c *Config) bool { return c.DataClients == 4 }, "CLIENT_NUMBER is an old name; using it as DATA_CLIENT_NUMBER=4"},
		{"BATCH_SIZE=10", func(c *Config) bool { return c.BatchSize == 10 }, "BATCH_SIZE is an old name; using it as BATCH_SIZE_PER_WRITE=10"},
		{"CACHE_NUM=12", func(c *Config) bool { return c.BatchSize == 12 }, "CACHE_NUM is an old name; using it as BATCH_SIZE_PER_WRITE=12"},
		{"IS_OVERFLOW=true", func(c *Config) bool { return c.OutOfOrder }, "IS_OVERFLOW is an old name; using it as IS_OUT_OF_ORDER=true"},
		{"OVERFLOW_MODE=0", func(c *Config) bool { return c.OutOfOrderMode == OutOfOrderPoisson }, "OVERFLOW_MODE is an old name; using it as OUT_OF_ORDER_MODE=POISSON (tsbench's algorithms differ from the 2019-2021 ones, see docs/compat.md)"},
		{"OVERFLOW_MODE=1", func(c *Config) bool { return c.OutOfOrderMode == OutOfOrderBatch }, "OVERFLOW_MODE is an old name; using it as OUT_OF_ORDER_MODE=BATCH (tsbench's algorithms differ from the 2019-2021 ones, see docs/compat.md)"},
		{"OVERFLOW_RATIO=0.3", func(c *Config) bool { return c.OutOfOrderRatio == 0.3 }, "OVERFLOW_RATIO is an old name; using it as OUT_OF_ORDER_RATIO=0.3"},
		{"OUT_OF_ORDER_MODE=1", func(c *Config) bool { return c.OutOfOrderMode == OutOfOrderBatch }, "OUT_OF_ORDER_MODE=1 is an old value; using it as OUT_OF_ORDER_MODE=BATCH"},
		{"OUT_OF_ORDER_MODE=0", func(c *Config) bool { return c.OutOfOrderMode == OutOfOrderPoisson }, "OUT_OF_ORDER_MODE=0 is an old value; using it as OUT_OF_ORDER_MODE=POISSON"},
		{"IS_RANDOM_TIMESTAMP_INTERVAL=true", func(c *Config) bool { return !c.RegularFrequency }, "IS_RANDOM_TIMESTAMP_INTERVAL is an old name; using it as IS_REGULAR_FREQUENCY=false (inverted)"},
		{"IS_RANDOM_TIMESTAMP_INTERVAL=false", func(c *Config) bool { return c.RegularFrequency }, "IS_RANDOM_TIMESTAMP_INTERVAL is an old name; using it as IS_REGULAR_FREQUENCY=true (inverted)"},
		{"QUERY_LOWER_LIMIT=3.5", func(c *Config) bool { return c.QueryLowerValue == 3.5 }, "QUERY_LOWER_LIMIT is an old name; using it as QUERY_LOWER_VALUE=3.5"},
		{"TIME_UNIT=1000", func(c *Config) bool { return c.GroupByTimeUnit == 1000 }, "TIME_UNIT is an old name; using it as GROUP_BY_TIME_UNIT=1000"},
		{"OP_INTERVAL=20", func(c *Config) bool { return c.OpMinIntervalMS == 20 }, "OP_INTERVAL is an old name; using it as OP_MIN_INTERVAL=20"},
		{"OP_INTERVAL=-1", func(c *Config) bool { return c.OpMinIntervalMS == 5000 }, "OP_INTERVAL is an old name; using it as OP_MIN_INTERVAL=-1"},
		{"NUMBER_OF_DECIMAL_DIGIT=4", func(c *Config) bool { return c.DoubleLength == 4 }, "NUMBER_OF_DECIMAL_DIGIT is an old name; using it as DOUBLE_LENGTH=4"},
		{"INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1", func(c *Config) bool {
			return len(c.TypeProportion) == 11 && c.TypeProportion[5] == 1 && c.TypeProportion[6] == 0
		},
			"INSERT_DATATYPE_PROPORTION has 6 fields, an old form; using it as INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:0:0:0:0:0"},
		{"INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0", func(c *Config) bool { return len(c.TypeProportion) == 11 && c.TypeProportion[4] == 1 },
			"INSERT_DATATYPE_PROPORTION has 10 fields, an old form; using it as INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0"},
		{"OPERATION_PROPORTION=1:1:1:0:0:0:0:0:0", func(c *Config) bool { return len(c.OperationProportion) == 13 && c.OperationProportion[2] == 1 },
			"OPERATION_PROPORTION has 9 fields, an old form; using it as OPERATION_PROPORTION=1:1:1:0:0:0:0:0:0:0:0:0:0"},
	}
	for _, tc := range cases {
		l := mustLoad(t, "DEVICE_NUMBER=100\n"+tc.text)
		if !tc.check(l.Config) {
			t.Errorf("%s: mapped wrongly: %+v", tc.text, l.Config)
		}
		if len(l.Notes) != 1 || l.Notes[0] != tc.note {
			t.Errorf("%s: notes = %q, want [%q]", tc.text, l.Notes, tc.note)
		}
	}
}

func TestNewNameWinsOverOld(t *testing.T) {
	l := mustLoad(t, "BATCH_SIZE=10\nBATCH_SIZE_PER_WRITE=50\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
	if l.Config.BatchSize != 50 {
		t.Fatalf("BATCH_SIZE_PER_WRITE = %d, want 50 (new name wins)", l.Config.BatchSize)
	}
	want := "BATCH_SIZE_PER_WRITE=50 and its old name BATCH_SIZE=10 are both set; using BATCH_SIZE_PER_WRITE=50"
	if !contains(l.Warnings, want) {
		t.Fatalf("warnings = %q, want %q", l.Warnings, want)
	}
}

// TestNearMissKeyInFileRefused: a typo of a key the run reads would run
// the workload with that key's default, saved as valid; it is refused,
// naming the key it resembles. A key like no key stays a warning.
func TestNearMissKeyInFileRefused(t *testing.T) {
	_, err := load(t, "BATCH_SIZE_PER_WRTE=5\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
	want := "BATCH_SIZE_PER_WRTE=5: is not a key tsbench knows; did you mean BATCH_SIZE_PER_WRITE (valid: a key of docs/config.md)"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	l := mustLoad(t, "FOO=1\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
	if !contains(l.Warnings, "FOO is not a key tsbench knows; ignored") {
		t.Fatalf("warnings = %q: FOO is no typo of LOOP", l.Warnings)
	}
}

func TestIgnoredKeys(t *testing.T) {
	l := mustLoad(t, "CSV_OUTPUT=true\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
	if !contains(l.Warnings, "CSV_OUTPUT has no effect in tsbench: results are saved as run records under RESULTS_DIR") {
		t.Fatalf("warnings = %q", l.Warnings)
	}
	_, err := load(t, "IS_DOUBLE_WRITE=true")
	wantErr(t, err, "IS_DOUBLE_WRITE=true: is not supported: double writes are not supported; run tsbench once per database and use compare (valid: false)")
}

func TestValidationRules(t *testing.T) {
	base := "DEVICE_NUMBER=10\nSENSOR_NUMBER=6\nDATA_CLIENT_NUMBER=2\n"
	cases := []struct{ text, want string }{
		{"LOOP=abc", "LOOP=abc: not a whole number (valid: 0..100000000)"},
		{"LOOP=-1", "LOOP=-1: out of range (valid: 0..100000000)"},
		// LOOP=100000000000 on Null ran out of memory planning the schedule.
		{"LOOP=100000000000", "LOOP=100000000000: out of range: the largest allowed is 100000000 (valid: 0..100000000)"},
		{"BATCH_SIZE_PER_WRITE=0", "BATCH_SIZE_PER_WRITE=0: out of range (valid: 1..16777216)"},
		{"POINT_STEP=0", "POINT_STEP=0: out of range (valid: ≥ 1)"},
		{"IS_OUT_OF_ORDER=yes", "IS_OUT_OF_ORDER=yes: not true or false (valid: true or false)"},
		{"OUT_OF_ORDER_MODE=SHUFFLE", "OUT_OF_ORDER_MODE=SHUFFLE: unknown value (valid: POISSON, BATCH)"},
		{"OUT_OF_ORDER_RATIO=1.5", "OUT_OF_ORDER_RATIO=1.5: out of range: the largest allowed is 1 (valid: 0..1)"},
		{"SG_STRATEGY=modulo", "SG_STRATEGY=modulo: unknown value (valid: mod, hash, div)"},
		{"TIMESTAMP_PRECISION=s", "TIMESTAMP_PRECISION=s: unknown value (valid: ms, us, ns)"},
		{"START_TIME=yesterday", "START_TIME=yesterday: not an ISO-8601 time (valid: ISO-8601 such as 2022-01-01T00:00:00+08:00 (no offset means UTC), or epoch milliseconds)"},
		{"INSERT_DATATYPE_PROPORTION=1:1:1", "INSERT_DATATYPE_PROPORTION=1:1:1: has 3 fields, not 11 (valid: 11 non-negative numbers separated by ':' (BOOLEAN:INT32:INT64:FLOAT:DOUBLE:TEXT:STRING:BLOB:TIMESTAMP:DATE:OBJECT))"},
		{"INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:0:0:0:1", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:0:0:0:1: gives OBJECT a share, a type tsbench does not generate (valid: weights for BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT, STRING, BLOB, TIMESTAMP and DATE; the last (OBJECT) must be 0)"},
		{"INSERT_DATATYPE_PROPORTION=0:0:0:0:0:0:0:0:0:0:0", "INSERT_DATATYPE_PROPORTION=0:0:0:0:0:0:0:0:0:0:0: all weights are zero (valid: 11 non-negative numbers separated by ':' (BOOLEAN:INT32:INT64:FLOAT:DOUBLE:TEXT:STRING:BLOB:TIMESTAMP:DATE:OBJECT))"},
		{"OPERATION_PROPORTION=1e308:1e308", "OPERATION_PROPORTION=1e308:1e308:0:0:0:0:0:0:0:0:0:0:0: the weights add up to more than a number holds; give smaller weights in the same ratios (valid: 13 non-negative numbers separated by ':' (INGESTION:Q1:Q2:Q3:Q4:Q5:Q6:Q7:Q8:Q9:Q10:Q11:Q12))"},
		{"OPERATION_PROPORTION=1:-1", "OPERATION_PROPORTION=1:-1:0:0:0:0:0:0:0:0:0:0:0: field 2 (\"-1\") is not a non-negative number (valid: 13 non-negative numbers separated by ':' (INGESTION:Q1:Q2:Q3:Q4:Q5:Q6:Q7:Q8:Q9:Q10:Q11:Q12))"},
		{"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0:1", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0:1: has 14 fields, not 13 (valid: 13 non-negative numbers separated by ':' (INGESTION:Q1:Q2:Q3:Q4:Q5:Q6:Q7:Q8:Q9:Q10:Q11:Q12))"},
		{"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:1", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:1: gives Q12 (set operations) a share, which tsbench does not support (valid: the 13th weight 0)"},
		{"LOOP=2\nOPERATION_PROPORTION=1:1:1:0:0:0:0:0:0:0:0:0:0", "LOOP=2: is smaller than the 3 operation kinds OPERATION_PROPORTION asks for, so some would never run (valid: ≥ 3)"},
		{"GROUP_NUMBER=11", "GROUP_NUMBER=11: is larger than DEVICE_NUMBER=10, so some groups would have no device (valid: 1..10)"},
		{"DATA_CLIENT_NUMBER=11", "DATA_CLIENT_NUMBER=11: is larger than DEVICE_NUMBER=10; with IS_CLIENT_BIND=true every client needs a device of its own (valid: 1..10, or IS_CLIENT_BIND=false)"},
		{"DATA_CLIENT_NUMBER=0", "DATA_CLIENT_NUMBER=0: out of range (valid: 1..100000 and ≤ DEVICE_NUMBER when IS_CLIENT_BIND)"},
		{"QUERY_DEVICE_NUM=11", "QUERY_DEVICE_NUM=11: is larger than DEVICE_NUMBER=10 (valid: 1..10)"},
		{"QUERY_SENSOR_NUM=7", "QUERY_SENSOR_NUM=7: is larger than SENSOR_NUMBER=6 (valid: 1..6)"},
		{"QUERY_AGGREGATE_FUN=max_by", "QUERY_AGGREGATE_FUN=max_by: is not supported (it needs two arguments) (valid: count, sum, avg, max_value, min_value)"},
		{"HOST=a,b,c\nPORT=1,2", "PORT=1,2: has 2 ports for 3 hosts (valid: one port, or one per HOST)"},
		{"PORT=99999", "PORT=99999: \"99999\" is not a port number (valid: comma-separated ports 1..65535, one per HOST (or one for all); empty: the database's own default)"},
		{"REAL_INSERT_RATE=0", "REAL_INSERT_RATE=0: must be above 0 (valid: > 0 and ≤ 1)"},
		{"DB_NAME=my-db", "DB_NAME=my-db: must be letters, digits and underscores (it becomes part of table names and paths) (valid: for example test, g_, d_, s_)"},
		{"IS_SENSOR_TS_ALIGNMENT=false", "IS_SENSOR_TS_ALIGNMENT=false: is not supported: tsbench writes every sensor of a row together (valid: true)"},
		{"DEVICE_NUM_PER_WRITE=2\nIS_CLIENT_BIND=false", "DEVICE_NUM_PER_WRITE=2: needs IS_CLIENT_BIND=true: a request writes devices of one client (valid: 1, or IS_CLIENT_BIND=true)"},
		{"LINE_RATIO=0\nSIN_RATIO=0\nSQUARE_RATIO=0\nRANDOM_RATIO=0\nCONSTANT_RATIO=0", "LINE_RATIO=0: and SIN_RATIO, SQUARE_RATIO, RANDOM_RATIO, CONSTANT_RATIO are all 0, so no sensor has a value function (valid: at least one ratio above 0)"},
		{"BENCHMARK_INDEX=2", "BENCHMARK_INDEX=2: has no effect without BENCHMARK_CLUSTER=true (valid: 0, or set BENCHMARK_CLUSTER=true)"},
		{"BENCHMARK_INSTANCES=3", "BENCHMARK_INSTANCES=3: has no effect without BENCHMARK_CLUSTER=true (valid: 1, or set BENCHMARK_CLUSTER=true)"},
		{"BENCHMARK_CLUSTER=true\nBENCHMARK_INSTANCES=3\nBENCHMARK_INDEX=3", "BENCHMARK_INDEX=3: is not an instance of BENCHMARK_INSTANCES=3 (valid: 0..2)"},
		{"BENCHMARK_CLUSTER=true\nBENCHMARK_INSTANCES=0", "BENCHMARK_INSTANCES=0: out of range (valid: ≥ 1)"},
		{"BENCHMARK_CLUSTER=true\nBENCHMARK_INDEX=4", ""}, // iot-benchmark's meaning, without an instance count
		{"IS_OUT_OF_ORDER=true\nLAMBDA=50\nMAX_K=10", "MAX_K=10: is below LAMBDA=50, so most delays would be cut off (valid: ≥ 50)"},
		{"OVERFLOW_MODE=2", "OVERFLOW_MODE=2: unknown out-of-order mode in this old key"},
		{"BENCHMARK_WORK_MODE=generateDataMode", "BENCHMARK_WORK_MODE=generateDataMode: is not supported by tsbench (valid: testWithDefaultPath)"},
		{"PASSWORD=", ""}, // an empty password is allowed
	}
	for _, tc := range cases {
		_, err := load(t, base+tc.text)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: unexpected error %v", tc.text, err)
			}
			continue
		}
		wantErr(t, err, tc.want)
	}
}

func TestSetOverridesFileAndEnvOverridesFile(t *testing.T) {
	t.Setenv("TSBENCH_LOOP", "9")
	t.Setenv("TSBENCH_PASSWORD", "s3cret")
	l, err := Load(Source{Data: []byte("LOOP=5\nDEVICE_NUMBER=4\nDATA_CLIENT_NUMBER=1"), Sets: []string{"DEVICE_NUMBER=3"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.Loop != 9 || l.Config.Devices != 3 || l.Config.Password != "s3cret" {
		t.Fatalf("LOOP=%d DEVICE_NUMBER=%d PASSWORD=%q; want 9, 3 and the environment's password", l.Config.Loop, l.Config.Devices, l.Config.Password)
	}
	_, err = Load(Source{Sets: []string{"LOOP"}, NoEnv: true})
	wantErr(t, err, "--set=LOOP: is not KEY=VALUE (valid: --set BATCH_SIZE_PER_WRITE=100)")
}

// A Kubernetes Indexed Job's pod index is BENCHMARK_INDEX, over the file's
// value (one ConfigMap for every pod), under TSBENCH_BENCHMARK_INDEX and --set.
func TestJobCompletionIndex(t *testing.T) {
	t.Setenv(JobIndexEnv, "2")
	file := []byte("BENCHMARK_CLUSTER=true\nBENCHMARK_INSTANCES=3\nBENCHMARK_INDEX=0")
	l, err := Load(Source{Data: file})
	if err != nil || l.Config.BenchmarkIndex != 2 || l.Config.FirstDeviceIndex() != 2*l.Config.Devices || !l.Config.Distributed() {
		t.Fatalf("index %v, %v", l, err)
	}
	if len(l.Notes) == 0 || !strings.Contains(l.Notes[0], "BENCHMARK_INDEX=2 from JOB_COMPLETION_INDEX") {
		t.Errorf("notes %q do not say where the index came from", l.Notes)
	}
	if l, err := Load(Source{Data: file, Sets: []string{"benchmark_index=1"}}); err != nil || l.Config.BenchmarkIndex != 1 {
		t.Errorf("--set BENCHMARK_INDEX=1 should win: %v", err)
	}
	t.Setenv("TSBENCH_BENCHMARK_INDEX", "0")
	if l, err := Load(Source{Data: file}); err != nil || l.Config.BenchmarkIndex != 0 {
		t.Errorf("TSBENCH_BENCHMARK_INDEX=0 should win: %v", err)
	}
	t.Setenv("TSBENCH_BENCHMARK_INDEX", "")
	os.Unsetenv("TSBENCH_BENCHMARK_INDEX")
	t.Setenv(JobIndexEnv, "5")
	_, err = Load(Source{Data: file})
	wantErr(t, err, "BENCHMARK_INDEX=5: is not an instance of BENCHMARK_INSTANCES=3 (valid: 0..2)")
	if l, err := Load(Source{Data: file, NoEnv: true}); err != nil || l.Config.BenchmarkIndex != 0 {
		t.Errorf("NoEnv must ignore %s: %v", JobIndexEnv, err)
	}
}

func TestSecretsMasked(t *testing.T) {
	l := mustLoad(t, "PASSWORD=hunter2\nTOKEN=tok123\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
	var buf bytes.Buffer
	l.Config.WriteDump(&buf)
	for k, v := range l.Config.Values() {
		if strings.Contains(v, "hunter2") || strings.Contains(v, "tok123") {
			t.Errorf("Values()[%s] leaks a secret", k)
		}
	}
	if strings.Contains(buf.String(), "hunter2") || strings.Contains(buf.String(), "tok123") {
		t.Fatalf("dump leaks a secret:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "PASSWORD=******") {
		t.Fatalf("dump does not show the masked password:\n%s", buf.String())
	}
	// A secret in a bad value must not leak through the error either.
	_, err := load(t, "ANOTHER_PASSWORD=x\nIS_DOUBLE_WRITE=maybe-hunter2")
	if err == nil || strings.Contains(err.Error(), "hunter2") && !strings.Contains(err.Error(), "IS_DOUBLE_WRITE") {
		t.Fatalf("err = %v", err)
	}
}

func TestStartTimeForms(t *testing.T) {
	cases := map[string]int64{
		"2022-01-01T00:00:00+08:00": 1640966400000,
		"2018-9-20T00:00:00+08:00":  time.Date(2018, 9, 19, 16, 0, 0, 0, time.UTC).UnixMilli(),
		"2022-01-01T00:00:00":       time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(),
		"2022-01-01":                time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(),
		"1640966400000":             1640966400000,
	}
	for in, want := range cases {
		l := mustLoad(t, "START_TIME="+in+"\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
		if got := l.Config.StartTime.UnixMilli(); got != want {
			t.Errorf("START_TIME=%s -> %d, want %d", in, got, want)
		}
	}
}

func TestNoWritesDisablesCleanup(t *testing.T) {
	l := mustLoad(t, "OPERATION_PROPORTION=0:1:0:0:0:0:0:0:0:0:0:0:0\nIS_DELETE_DATA=true\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1")
	if l.Config.DeleteData || l.Config.CreateSchema {
		t.Fatal("a query-only run must not delete data or create the schema")
	}
}

func TestUnreadableFile(t *testing.T) {
	_, err := Load(Source{Path: filepath.Join(t.TempDir(), "missing.properties"), NoEnv: true})
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot read the config file") {
		t.Fatalf("err = %v, want a config error about reading the file", err)
	}
}

func TestShippedConfigLoads(t *testing.T) {
	path := filepath.Join("..", "config.properties")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no shipped config.properties yet")
	}
	l, err := Load(Source{Path: path, NoEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) > 0 {
		t.Errorf("the shipped config gives warnings: %q", l.Warnings)
	}
}

func contains(xs []string, want string) bool {
	for _, x := range xs {
		if x == want {
			return true
		}
	}
	return false
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want %q", want)
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if line == want {
			return
		}
	}
	t.Errorf("error = %q, want a line %q", err.Error(), want)
}

// TestFileEdgeCases: what a file can do wrong without the user seeing it.
func TestFileEdgeCases(t *testing.T) {
	// A byte-order mark must not swallow the first key.
	l := mustLoad(t, "\ufeffDB_SWITCH=Null\nLOOP=30\n")
	if l.Config.DBSwitch != "Null" || len(l.Warnings) != 0 {
		t.Fatalf("BOM: DB_SWITCH=%q, warnings %q", l.Config.DBSwitch, l.Warnings)
	}
	// A key given twice is said, with both lines; the last wins.
	l = mustLoad(t, "LOOP=30\n# comment\nDEVICE_NUMBER=40\nLOOP = 50\n")
	if l.Config.Loop != 50 || len(l.Warnings) != 1 || l.Warnings[0] != "LOOP is set twice in the config (lines 1 and 4); line 4 wins" {
		t.Fatalf("duplicate: LOOP=%d, warnings %q", l.Config.Loop, l.Warnings)
	}
	// An empty file, or one with no key tsbench knows, does not run the defaults.
	for _, text := range []string{"", "# only a comment\n", `{"DB_SWITCH": "SQLite", "LOOP": 10}`} {
		if _, err := load(t, text); err == nil || !strings.Contains(err.Error(), "sets no key tsbench knows: it is empty or not a config.properties file") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestSetIsDeliberate: the command line is what the user meant, so an
// unknown --set key is an error, and an old name given there beats the
// file's new name.
func TestSetIsDeliberate(t *testing.T) {
	if _, err := load(t, "LOOP=30\n", "LOOPP=1000"); err == nil || !strings.Contains(err.Error(), "--set LOOPP=1000: is not a key tsbench knows; did you mean LOOP") {
		t.Fatalf("--set LOOPP: %v", err)
	}
	// In the file a near miss of a key the run reads is refused too;
	// a key like no key stays a warning (users share one file).
	if _, err := load(t, "LOOP=30\nLOOPP=1000\n"); err == nil || !strings.Contains(err.Error(), "LOOPP=1000: is not a key tsbench knows; did you mean LOOP") {
		t.Fatalf("file LOOPP: %v", err)
	}
	if l := mustLoad(t, "LOOP=30\nWHATEVER_ELSE=1\n"); len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "WHATEVER_ELSE is not a key tsbench knows") {
		t.Fatalf("file WHATEVER_ELSE: %q", l.Warnings)
	}
	l := mustLoad(t, "BATCH_SIZE_PER_WRITE=100\n", "BATCH_SIZE=10")
	if l.Config.BatchSize != 10 {
		t.Fatalf("--set BATCH_SIZE=10 over the file's BATCH_SIZE_PER_WRITE=100: %d", l.Config.BatchSize)
	}
	if !strings.Contains(strings.Join(l.Warnings, "\n"), "using BATCH_SIZE_PER_WRITE=10, which comes later (--set)") {
		t.Fatalf("warnings %q", l.Warnings)
	}
	// Both in the file: the new name wins, as before.
	if l := mustLoad(t, "BATCH_SIZE_PER_WRITE=100\nBATCH_SIZE=10\n"); l.Config.BatchSize != 100 {
		t.Fatalf("file: %d", l.Config.BatchSize)
	}
}

func TestNothingWrittenNothingDeleted(t *testing.T) {
	l := mustLoad(t, "LOOP=0\nIS_DELETE_DATA=true\n")
	if l.Config.DeleteData || l.Config.HasWrites() || !strings.Contains(strings.Join(l.Notes, "\n"), "IS_DELETE_DATA=true is not done: this run writes nothing (LOOP=0") {
		t.Fatalf("LOOP=0: delete %v, notes %q", l.Config.DeleteData, l.Notes)
	}
}

func TestTimestampsMustFit(t *testing.T) {
	for _, sets := range [][]string{
		{"TIMESTAMP_PRECISION=ns", "START_TIME=2300-01-01T00:00:00Z"},
		{"POINT_STEP=" + strconv.FormatInt(math.MaxInt32*1000, 10), "LOOP=100000000", "BATCH_SIZE_PER_WRITE=1000"},
	} {
		if _, err := load(t, "DB_SWITCH=Null\n", sets...); err == nil || !strings.Contains(err.Error(), "past the largest timestamp") {
			t.Errorf("%v: %v", sets, err)
		}
	}
	mustLoad(t, "TIMESTAMP_PRECISION=ns\nSTART_TIME=2200-01-01T00:00:00Z\n")
}

// TestErrorsAtOnce: a value that does not parse and a rule between keys
// are said together, and a rule that involves the refused key is not.
func TestErrorsAtOnce(t *testing.T) {
	_, err := load(t, "LOOP=abc\nGROUP_NUMBER=30\nDEVICE_NUMBER=20\nIS_SENSOR_TS_ALIGNMENT=false\n")
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 {
		t.Fatalf("want 3 errors (LOOP, GROUP_NUMBER, IS_SENSOR_TS_ALIGNMENT), got %v", err)
	}
	_, err = load(t, "DEVICE_NUMBER=x\nGROUP_NUMBER=30\n")
	if !errors.As(err, &es) || len(es) != 1 || es[0].Key != "DEVICE_NUMBER" {
		t.Fatalf("GROUP_NUMBER against a refused DEVICE_NUMBER must not be judged: %v", err)
	}
}

// TestBinaryFileRefused: a 30 MB program given with -c echoed its bytes
// in the error; it is now said to be no text file.
func TestBinaryFileRefused(t *testing.T) {
	_, err := Load(Source{Data: []byte("DB_SWITCH=SQLite\n\x7fELF\x00\x00\x01"), NoEnv: true})
	if err == nil || !strings.Contains(err.Error(), "is not a text file: it holds NUL bytes") || strings.Contains(err.Error(), "ELF") {
		t.Fatalf("binary data: %v", err)
	}
}

// TestErrorValueOnOneLine: a value with a newline (a --set of "\n") is
// quoted, so the error stays one line and no line of it looks like an
// error of its own.
func TestErrorValueOnOneLine(t *testing.T) {
	e := &Error{Key: "--set", Value: "\n\n", Msg: "is not KEY=VALUE"}
	if got := e.Error(); strings.Contains(got, "\n") || got != `--set="\n\n": is not KEY=VALUE` {
		t.Fatalf("%q", got)
	}
}
