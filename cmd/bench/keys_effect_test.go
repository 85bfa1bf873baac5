package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
	_ "modernc.org/sqlite"
)

// effectBase is the small workload every key is tried on: every operation,
// a few devices and rows, on the Null database, which writes what it
// receives to its trace (NULL_TRACE), fast enough to run once per key.
var effectBase = []string{"DB_SWITCH=Null", "NULL_TRACE=trace.txt", "DEVICE_NUMBER=4", "GROUP_NUMBER=2", "SENSOR_NUMBER=4", "DATA_CLIENT_NUMBER=2", "LOOP=24", "BATCH_SIZE_PER_WRITE=10",
	"QUERY_DEVICE_NUM=2", "QUERY_SENSOR_NUM=2", "QUERY_INTERVAL=3000", "GROUP_BY_TIME_UNIT=1000", "POINT_STEP=1000",
	"OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "INIT_WAIT_TIME=0"}

// effectSets give a key a value other than its default, with what else it
// needs to act, where flipping a boolean or doubling a number is not it.
// A key missing here and in serverKeys gets the automatic value.
var effectSets = map[string][]string{
	"QUERY_LOOP":                   {"QUERY_ROUNDS=1", "QUERY_LOOP=3"},
	"QUERY_SENSOR_NUM":             {"QUERY_SENSOR_NUM=1"},
	"QUERY_DEVICE_NUM":             {"QUERY_DEVICE_NUM=1"},
	"GROUP_NUMBER":                 {"GROUP_NUMBER=1"},
	"VERIFY":                       {"DB_SWITCH=SQLite", "VERIFY=true"},
	"CHECK_ANSWERS":                {"DB_SWITCH=SQLite", "QUERY_ROUNDS=1", "CHECK_ANSWERS=true"},
	"CHECK_ANSWERS_RATIO":          {"DB_SWITCH=SQLite", "QUERY_ROUNDS=1", "CHECK_ANSWERS=true", "CHECK_ANSWERS_RATIO=0.5"},
	"DATA_CLIENT_NUMBER":           {"DATA_CLIENT_NUMBER=4"},
	"DB_SWITCH":                    {"DB_SWITCH=SQLite"},
	"DB_NAME":                      {"DB_SWITCH=SQLite", "DB_NAME=other_name"},
	"REAL_INSERT_RATE":             {"QUERY_DEVICE_NUM=1", "REAL_INSERT_RATE=0.5"},
	"OUT_OF_ORDER_MODE":            {"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH"},
	"OUT_OF_ORDER_RATIO":           {"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.9"},
	"LAMBDA":                       {"IS_OUT_OF_ORDER=true", "LAMBDA=100"},
	"MAX_K":                        {"IS_OUT_OF_ORDER=true", "MAX_K=2"},
	"SG_STRATEGY":                  {"SG_STRATEGY=div"},
	"GROUP_NAME_PREFIX":            {"GROUP_NAME_PREFIX=grp_"},
	"IOTDB_DIALECT_MODE":           {"IOTDB_DIALECT_MODE=table", "+IOTDB_TABLE_NUMBER=2"},
	"IOTDB_TABLE_NUMBER":           {"IOTDB_DIALECT_MODE=table", "GROUP_NUMBER=1", "IOTDB_TABLE_NUMBER=2"},
	"IOTDB_TABLE_NAME_PREFIX":      {"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2", "IOTDB_TABLE_NAME_PREFIX=tb_"},
	"TABLE_TIME_COLUMN":            {"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2", "TABLE_TIME_COLUMN=ts"},
	"TAG_NUMBER":                   {"TAG_NUMBER=1", "+TAG_VALUE_CARDINALITY=3"},
	"TAG_KEY_PREFIX":               {"TAG_NUMBER=1", "TAG_VALUE_CARDINALITY=3", "TAG_KEY_PREFIX=k_"},
	"TAG_VALUE_PREFIX":             {"TAG_NUMBER=1", "TAG_VALUE_CARDINALITY=3", "TAG_VALUE_PREFIX=v_"},
	"TAG_VALUE_CARDINALITY":        {"TAG_NUMBER=1", "^TAG_VALUE_CARDINALITY=2", "TAG_VALUE_CARDINALITY=3"},
	"DEVICE_NAME_PREFIX":           {"DEVICE_NAME_PREFIX=dev_"},
	"SENSOR_NAME_PREFIX":           {"SENSOR_NAME_PREFIX=sen_"},
	"INSERT_DATATYPE_PROPORTION":   {"INSERT_DATATYPE_PROPORTION=0:1:1:0:0:0:0:0:0:0:0"},
	"STRING_LENGTH":                {"INSERT_DATATYPE_PROPORTION=0:0:0:0:1:1:0:0:0:0:0", "STRING_LENGTH=3"},
	"DOUBLE_LENGTH":                {"DOUBLE_LENGTH=1"},
	"LINE_RATIO":                   {"LINE_RATIO=5"},
	"SIN_RATIO":                    {"SIN_RATIO=5"},
	"SQUARE_RATIO":                 {"SQUARE_RATIO=0"},
	"RANDOM_RATIO":                 {"RANDOM_RATIO=5"},
	"CONSTANT_RATIO":               {"CONSTANT_RATIO=5"},
	"OPERATION_PROPORTION":         {"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"},
	"DEVICE_NUM_PER_WRITE":         {"DEVICE_NUM_PER_WRITE=2"},
	"START_TIME":                   {"START_TIME=2024-01-01T00:00:00+00:00"},
	"TIMESTAMP_PRECISION":          {"TIMESTAMP_PRECISION=us"},
	"OP_MIN_INTERVAL":              {"OP_MIN_INTERVAL=20"},
	"OP_MIN_INTERVAL_RANDOM":       {"OP_MIN_INTERVAL=20", "OP_MIN_INTERVAL_RANDOM=true"},
	"TARGET_THROUGHPUT":            {"TARGET_THROUGHPUT=200"},
	"INTERVAL_BETWEEN_WRITE_BATCH": {"INTERVAL_BETWEEN_WRITE_BATCH=20"},
	"QUERY_AGGREGATE_FUN":          {"QUERY_AGGREGATE_FUN=max_value"},
	"RESULT_ROW_LIMIT":             {"RESULT_ROW_LIMIT=2"},
	"TEST_MAX_TIME":                {"NULL_DELAY_MS=20", "TEST_MAX_TIME=300"},
	"BENCHMARK_CLUSTER":            {"BENCHMARK_CLUSTER=true", "+BENCHMARK_INDEX=1"},
	"BENCHMARK_INDEX":              {"BENCHMARK_CLUSTER=true", "BENCHMARK_INDEX=1"},
	"BENCHMARK_INSTANCES":          {"BENCHMARK_CLUSTER=true", "BENCHMARK_INSTANCES=2"},
	"LOG_PRINT_INTERVAL":           {"NULL_DELAY_MS=100", "LOG_PRINT_INTERVAL=1"},
	"QUERY_ROUNDS":                 {"QUERY_ROUNDS=2"},
	"QUERY_SUITE":                  {"QUERY_SUITE=weekly"},
	"RESTART_SCOPE":                {"QUERY_ROUNDS=2", "STOP_COMMAND=true", "START_COMMAND=true", "RESTART_SCOPE=variant"},
	"FLUSH_COMMAND":                {"QUERY_ROUNDS=2", "FLUSH_COMMAND=echo flushed"},
	"STOP_COMMAND":                 {"QUERY_ROUNDS=2", "STOP_COMMAND=true", "START_COMMAND=true"},
	"START_COMMAND":                {"QUERY_ROUNDS=2", "STOP_COMMAND=true", "START_COMMAND=true"},
	"DROP_CACHES_COMMAND":          {"QUERY_ROUNDS=2", "DROP_CACHES_COMMAND=echo dropped"},
	"READY_TIMEOUT":                {"QUERY_ROUNDS=2", "STOP_COMMAND=true", "START_COMMAND=true", "READY_TIMEOUT=1"},
	"MAX_ERROR_RATE":               {"NULL_DELAY_MS=30", "WRITE_OPERATION_TIMEOUT_MS=5", "MAX_ERROR_RATE=100"},
	"SQLITE_PATH":                  {"DB_SWITCH=SQLite", "SQLITE_PATH=other.db"},
	"NULL_TRACE":                   {"NULL_TRACE="},
	"NULL_DELAY_MS":                {"NULL_DELAY_MS=5"},
	// 20 ms, since shape bands the fastest operation of a kind: of its ~4
	// draws from [0, 20) ms one is under 1 ms with probability 0.19, and
	// so are all 12 kinds' with probability 2e-9.
	"NULL_JITTER_MS":             {"NULL_JITTER_MS=20"},
	"NULL_SLOW_OPERATION":        {"NULL_DELAY_MS=5", "NULL_SLOWDOWN_PCT=400", "NULL_SLOW_OPERATION=INGESTION"},
	"NULL_SLOWDOWN_PCT":          {"NULL_DELAY_MS=5", "NULL_SLOW_OPERATION=INGESTION", "NULL_SLOWDOWN_PCT=400"},
	"WRITE_OPERATION_TIMEOUT_MS": {"NULL_DELAY_MS=30", "WRITE_OPERATION_TIMEOUT_MS=5"},
	"READ_OPERATION_TIMEOUT_MS":  {"NULL_DELAY_MS=30", "READ_OPERATION_TIMEOUT_MS=5"},
	"RESULTS_DIR":                {"RESULTS_DIR=elsewhere"},
	// A store no one listens on: the run says it could not export.
	"RESULTS_STORE": {"RESULTS_STORE=iotdb://127.0.0.1:1"},
	// Off: the Server table is gone (another interval only moves figures,
	// which the probe masks).
	"SERVER_METRICS_INTERVAL": {"SERVER_METRICS_INTERVAL=0"},
}

// fixedKeys accept one value, their default, so that iot-benchmark files
// that set it load; any other value is refused (and the walk checks that
// it is): they cannot change a run, nor be ignored.
var fixedKeys = map[string]string{
	"BENCHMARK_WORK_MODE":    "BENCHMARK_WORK_MODE=verificationQueryMode",
	"IS_SENSOR_TS_ALIGNMENT": "IS_SENSOR_TS_ALIGNMENT=false",
}

// serverKeys act only on a database server: what they change is sent to
// it, and the adapter's own walk (TestEveryKeyChangesWhatIsSent in
// adapters/iotdb and adapters/elasticsearch, against the real servers)
// proves it. Each names the databases that walk covers it for.
var serverKeys = map[string]string{
	"HOST": "IoTDB, Elasticsearch", "PORT": "IoTDB, Elasticsearch", "USERNAME": "IoTDB, Elasticsearch",
	"PASSWORD": "IoTDB, Elasticsearch", "TABLE_TIME_COLUMN": "IoTDB", "CLEAR_CACHE": "IoTDB",
	// A track's documents go to a document database only.
	"TRACK_PATH": "Elasticsearch", "TRACK_CHALLENGE": "Elasticsearch", "TRACK_INDEX_BODY": "Elasticsearch",
}

// TestEveryKeyHasAnEffect walks the key table of every database: each key
// either changes what a run does — the plan bench --dry-run prints, or what
// a small run on SQLite or Null records and prints — or is a server key
// that its adapter's walk proves against the real server. A key added
// without an effect fails here; so does a key whose effect is removed.
// The keys iot-benchmark knows and tsbench ignores are not in the table:
// TestIgnoredKeysWarn covers them.
func TestEveryKeyHasAnEffect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary about 200 times")
	}
	walked := map[string]bool{}
	var names []string
	for _, drv := range registry() {
		if drv.Name != "SQLite" && drv.Name != "Null" && drv.Keys != nil {
			for _, k := range drv.Keys.Keys {
				walked[k.Name] = true // their adapter's walk
			}
		}
	}
	for _, drv := range registry() {
		l, err := config.Load(config.Source{Sets: []string{"DB_SWITCH=" + drv.Name}, NoEnv: true, Catalog: registry()})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range l.Config.Keys() {
			if !walked[k.Name] {
				walked[k.Name] = true
				names = append(names, k.Name)
			}
		}
	}
	sort.Strings(names)
	defaults := map[string]string{}
	for _, k := range config.SharedKeys() {
		defaults[k.Name] = k.Default
	}
	for _, drv := range registry() {
		if drv.Keys != nil {
			for _, k := range drv.Keys.Keys {
				defaults[k.Name] = k.Default
			}
		}
	}
	keys := map[string][]string{}
	for _, name := range names {
		if _, ok := serverKeys[name]; ok {
			continue
		}
		if set, ok := fixedKeys[name]; ok {
			if p := probe(t, []string{set}); p.refused == "" {
				t.Errorf("%s: accepts %s, but is listed as taking only its default", name, set)
			}
			continue
		}
		if name == "FILE_PATH" {
			continue // a data set of the walk's workload, made below
		}
		sets, ok := effectSets[name]
		if !ok {
			sets = automatic(name, defaults[name])
			if sets == nil {
				t.Errorf("%s (default %q): no value to try; add it to effectSets", name, defaults[name])
				continue
			}
		}
		keys[name] = sets
	}
	// FILE_PATH needs a data set of the walk's workload: the run then
	// says that it sent the files.
	data := filepath.Join(t.TempDir(), "data")
	if r := bench(t, append([]string{"generate", "-c", "cmd/bench/testdata/empty.properties", "--out", data}, setsOf(effectBase)...)...); r.code != 0 {
		t.Fatalf("bench generate: exit %d\n%s", r.code, r.stderr)
	}
	keys["FILE_PATH"] = []string{"FILE_PATH=" + data}
	adaptertest.KeyWalk{Keys: keys, Probe: func(t *testing.T, sets []string) (string, string) {
		e := probe(t, sets)
		return "plan:\n" + e.plan + "\nsent:\n" + e.sent + "\nrun:\n" + e.run, e.refused
	}}.Run(t)
}

// setsOf is --set flags of KEY=VALUE sets.
func setsOf(sets []string) []string {
	var out []string
	for _, s := range sets {
		out = append(out, "--set", s)
	}
	return out
}

// automatic is a value other than the default for a boolean or number key.
func automatic(name, def string) []string {
	switch strings.ToLower(def) {
	case "true":
		return []string{name + "=false"}
	case "false":
		return []string{name + "=true"}
	}
	if n, err := strconv.ParseInt(def, 10, 64); err == nil {
		if n == 0 {
			return []string{name + "=1"}
		}
		return []string{fmt.Sprintf("%s=%d", name, 2*n)}
	}
	if f, err := strconv.ParseFloat(def, 64); err == nil {
		if f == 0 {
			return []string{name + "=0.5"}
		}
		return []string{fmt.Sprintf("%s=%g", name, f/2)}
	}
	return nil
}

// effect is what a configuration does: the plan's text, and the shape of
// a small run (record and output with the figures that vary from run to
// run taken out).
type effect struct {
	refused         string // why the configuration did not load
	plan, sent, run string
}

// configDump are the lines of the configuration that every run prints
// first: they differ with every key, so they prove nothing.
var configDump = regexp.MustCompile(`(?m)^([A-Z_0-9]+=.*|#+ .* #+|-+( Main Configurations -+)?)\n`)

// planOnly is the output of --dry-run without the configuration dump.
func planOnly(s string) string { return configDump.ReplaceAllString(s, "") }

var (
	digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	runID  = regexp.MustCompile(`[0-9]{8}T[0-9]{6}Z-[0-9a-z-]+`)
	blanks = regexp.MustCompile(`[ \t]+`)
	rules  = regexp.MustCompile(`-{2,}`)
)

// figuresOut takes out of a run's output what differs between two runs of
// one configuration: run ids, every figure, and the widths of the table
// columns that hold them.
func figuresOut(s string) string {
	s = runID.ReplaceAllString(s, "RUN")
	s = digits.ReplaceAllString(s, "#")
	s = blanks.ReplaceAllString(s, " ")
	return rules.ReplaceAllString(s, "-")
}

// probe runs bench --dry-run and then bench on the base workload with the
// sets; $TMP in a set is a fresh folder, the run's own.
func probe(t *testing.T, sets []string) effect {
	t.Helper()
	dir := t.TempDir()
	args := []string{"--set", "RESULTS_DIR=" + filepath.Join(dir, "results"), "--set", "SQLITE_PATH=" + filepath.Join(dir, "bench.db")}
	for _, s := range append(append([]string(nil), effectBase...), sets...) {
		if k, v, _ := strings.Cut(s, "="); (k == "RESULTS_DIR" || k == "SQLITE_PATH" || k == "NULL_TRACE") && v != "" {
			s = k + "=" + filepath.Join(dir, v)
		}
		args = append(args, "--set", s)
	}
	norm := func(s string) string { return strings.ReplaceAll(s, dir, "$TMP") }
	dry := bench(t, append([]string{"--dry-run", "-c", "cmd/bench/testdata/empty.properties"}, args...)...)
	e := effect{plan: norm(planOnly(dry.stdout + dry.stderr))}
	if dry.code != 0 {
		e.refused = dry.stderr
		return e
	}
	r := bench(t, append([]string{"-c", "cmd/bench/testdata/empty.properties"}, args...)...)
	var run bytes.Buffer
	fmt.Fprintf(&run, "exit %d\n%s\n", r.code, figuresOut(norm(planOnly(r.stdout+r.stderr))))
	e.sent += sqliteTables(t, filepath.Join(dir, "bench.db"))
	if trace, err := os.ReadFile(filepath.Join(dir, "trace.txt")); err == nil {
		lines := strings.Split(string(trace), "\n")
		sort.Strings(lines) // concurrent clients interleave
		e.sent += strings.Join(lines, "\n")
	}
	for _, results := range []string{"results", "elsewhere"} {
		recs, _ := record.Store{Dir: filepath.Join(dir, results)}.List()
		for _, rec := range recs {
			shape(&run, rec)
		}
	}
	e.run = run.String()
	return e
}

// shape writes what a record says about the work done, without timings.
func shape(w *bytes.Buffer, rec *record.Record) {
	// Not the fingerprint: a hash of the configuration, it changes with
	// every workload key whether the key acts or not.
	fmt.Fprintf(w, "%s %s %+v %v %v %v\n", rec.Status, digits.ReplaceAllString(rec.Error, "#"), rec.Target,
		mask(rec.Notes), mask(rec.Warnings), rec.Instance)
	for _, s := range rec.Steps {
		fmt.Fprintf(w, "step %s %s %d %s %v %v %q\n", s.Name, s.Phase, s.Round, s.Variant, s.Skipped, s.Error != "", s.Output)
	}
	for _, p := range rec.Phases {
		fmt.Fprintf(w, "phase %s %d %s %d %v\n", p.Name, p.Round, p.Variant, p.Clients, p.Cut != "")
		for _, o := range p.Operations {
			// Latency only by order of magnitude (1 ms, 4, 16, 64 ms) of
			// the fastest operation: a stalled machine makes some
			// operations slower, never all of them, and a handful of
			// operations a kind is too few for a stall-proof mean (CI saw
			// a Null GROUP_BY's mean pass 1 ms).
			band := 0
			for lim := int64(1000); o.OKOps+o.FailOps > 0 && o.MinMicros >= lim && band < 4; lim *= 4 {
				band++
			}
			fmt.Fprintf(w, "  %s %d %d %d %d band %d service %v errors %d answers %d %d\n", o.Operation, o.OKOps, o.OKPoints, o.FailOps, o.FailPoints, band, o.ServiceHistogram != "", len(o.Errors), o.AnswersChecked, o.AnswersWrong)
		}
		if p.Warmup != nil {
			// How many operations fell into it depends on timing: that
			// there is one, and for which operations, does not.
			fmt.Fprintf(w, "  warm-up of %d operation kinds\n", len(p.Warmup.Operations))
		}
	}
	if rec.Verify != nil {
		fmt.Fprintf(w, "verify %+v\n", *rec.Verify)
	}
}

func mask(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = digits.ReplaceAllString(s, "#")
	}
	return out
}

var _ = os.Getenv

// sqliteTables lists the tables and columns of the SQLite file, if the run
// made one: what the SQLite database was told to create.
func sqliteTables(t *testing.T, path string) string {
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name, sql FROM sqlite_master ORDER BY name")
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name string
		var ddl sql.NullString
		if err := rows.Scan(&name, &ddl); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "sqlite %s: %s\n", name, ddl.String)
	}
	return b.String()
}

// TestIgnoredKeysWarn sets every key iot-benchmark knows and tsbench
// ignores, each with its database: a key that accepts any value loads with
// a warning naming it; a key that accepts one value loads with it and
// refuses any other, naming the key. The walk above proves every other
// key has an effect, so no key is accepted in silence.
func TestIgnoredKeysWarn(t *testing.T) {
	keys, owners := config.IgnoredKeys(registry())
	if len(keys) < 50 {
		t.Fatalf("%d ignored keys: the list was not found", len(keys))
	}
	switchOf := map[string]string{"": "SQLite"}
	for _, drv := range registry() {
		if drv.Keys != nil {
			switchOf[drv.Keys.Owner] = drv.Name
		}
	}
	for i, ik := range keys {
		sw, ok := switchOf[owners[i]]
		if !ok {
			t.Fatalf("%s: no database is %q", ik.Name, owners[i])
		}
		load := func(v string) (*config.Loaded, error) {
			return config.Load(config.Source{Sets: []string{"DB_SWITCH=" + sw, ik.Name + "=" + v}, NoEnv: true, Catalog: registry()})
		}
		if ik.Allowed == "" {
			l, err := load("1")
			if err != nil {
				t.Errorf("%s=1 (DB_SWITCH=%s): %v", ik.Name, sw, err)
				continue
			}
			want := ik.Name + " has no effect in tsbench"
			found := false
			for _, w := range l.Warnings {
				found = found || strings.HasPrefix(w, want)
			}
			if !found {
				t.Errorf("%s=1 (DB_SWITCH=%s) loads without the warning %q: %v", ik.Name, sw, want, l.Warnings)
			}
			continue
		}
		if _, err := load(ik.Allowed); err != nil {
			t.Errorf("%s=%s, its accepted value, is refused: %v", ik.Name, ik.Allowed, err)
		}
		if _, err := load(ik.Allowed + "x"); err == nil || !strings.Contains(err.Error(), ik.Name) {
			t.Errorf("%s=%sx loads, or is refused without naming the key: %v", ik.Name, ik.Allowed, err)
		}
	}
}
