package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

var binary string

// TestMain builds the real binary once: exit statuses, signals and "no
// stack trace" are properties of the process, not of Main.
func TestMain(m *testing.M) {
	if spec := os.Getenv(minimalClientEnv); spec != "" {
		os.Exit(minimalClient(spec))
	}
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		// A fuzzing worker runs only the fuzz target, in process.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "bench-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func bench(t *testing.T, args ...string) result {
	t.Helper()
	return benchEnv(t, nil, args...)
}

// benchEnv runs the binary with variables added to the environment.
func benchEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := result{o.String(), e.String(), code}
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
			t.Fatalf("bench %v printed a stack trace:\n%s", args, s)
		}
	}
	return r
}

func records(t *testing.T, dir string) []*record.Record {
	t.Helper()
	recs, errs := record.Store{Dir: dir}.List()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return recs
}

func tableRows(out, title string) []string {
	i := strings.Index(out, title)
	if i < 0 {
		return nil
	}
	var rows []string
	for _, line := range strings.Split(out[i:], "\n")[1:] {
		if line == "" || !strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "+") {
			break
		}
		if strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		}
	}
	return rows
}

func TestShippedConfig(t *testing.T) {
	dir := t.TempDir()
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--label", "e2e")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if first := strings.SplitN(r.stdout, "\n", 2)[0]; !regexp.MustCompile(`^tsbench \S+: measuring SQLite at `).MatchString(first) {
		t.Fatalf("first line %q does not say which database is measured", first)
	}
	res := tableRows(r.stdout, "Result Matrix (main)")
	if len(res) != 13 {
		t.Fatalf("Result Matrix has %d lines, want header + INGESTION + 11 query families:\n%s", len(res), r.stdout)
	}
	if h := strings.Fields(strings.ReplaceAll(res[0], "|", " ")); strings.Join(h, " ") != "Operation okOperation okPoint failOperation failPoint throughput(point/s)" {
		t.Fatalf("Result Matrix header %q", h)
	}
	for _, row := range res[1:] {
		f := strings.Fields(strings.ReplaceAll(row, "|", " "))
		if f[1] == "0" || f[3] != "0" {
			t.Errorf("operation %s: okOperation %s, failOperation %s; want all ok", f[0], f[1], f[3])
		}
	}
	lat := tableRows(r.stdout, "Latency (ms) Matrix (main)")
	if len(lat) != 13 || !strings.Contains(lat[0], "AVG") || !strings.Contains(lat[0], "P999") {
		t.Fatalf("Latency Matrix:\n%s", strings.Join(lat, "\n"))
	}
	if !strings.Contains(r.stdout, "Verify: every device holds exactly the points the workload writes.") {
		t.Fatal("the shipped config verifies, but no verify result was printed")
	}
	recs := records(t, dir)
	if len(recs) != 1 || recs[0].Status != record.StatusComplete || recs[0].Label != "e2e" || recs[0].Target.Version == "" {
		t.Fatalf("records: %+v", recs)
	}
	// bench show renders the saved record with the same numbers.
	s := bench(t, "show", "e2e", "--results", dir)
	if s.code != 0 {
		t.Fatalf("show: exit %d: %s", s.code, s.stderr)
	}
	if a, b := strings.Join(tableRows(r.stdout, "Result Matrix (main)"), "\n"), strings.Join(tableRows(s.stdout, "Result Matrix (main)"), "\n"); a != b {
		t.Fatalf("show renders another Result Matrix:\n%s\nvs\n%s", a, b)
	}
	if a, b := strings.Join(tableRows(r.stdout, "Latency (ms) Matrix (main)"), "\n"), strings.Join(tableRows(s.stdout, "Latency (ms) Matrix (main)"), "\n"); a != b {
		t.Fatalf("show renders another Latency Matrix:\n%s\nvs\n%s", a, b)
	}
	js := bench(t, "show", recs[0].ID, "--results", dir, "--format", "json")
	var back record.Record
	if err := json.Unmarshal([]byte(js.stdout), &back); err != nil || back.ID != recs[0].ID {
		t.Fatalf("show --format json: %v", err)
	}
}

func TestOldKeyNames(t *testing.T) {
	dir := t.TempDir()
	r := bench(t, "-c", "cmd/bench/testdata/old-keys.properties", "--set", "RESULTS_DIR="+dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"note: BATCH_SIZE is an old name; using it as BATCH_SIZE_PER_WRITE=20",
		"note: CLIENT_NUMBER is an old name; using it as DATA_CLIENT_NUMBER=2",
		"note: IS_OVERFLOW is an old name; using it as IS_OUT_OF_ORDER=true",
		"note: OVERFLOW_MODE is an old name; using it as OUT_OF_ORDER_MODE=POISSON",
		"note: IS_RANDOM_TIMESTAMP_INTERVAL is an old name; using it as IS_REGULAR_FREQUENCY=true (inverted)",
		"note: OPERATION_PROPORTION has 11 fields, an old form; using it as OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:0:0",
		"note: INSERT_DATATYPE_PROPORTION has 6 fields, an old form",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	res := tableRows(r.stdout, "Result Matrix (main)")
	if len(res) != 12 { // header + INGESTION + Q1..Q10
		t.Fatalf("Result Matrix:\n%s", strings.Join(res, "\n"))
	}
	// 2 devices per client, 24 ops with 1/11 writes: 3 writes per client,
	// 20 rows per batch and 10 sensors: INGESTION wrote 4 devices × 3 × 20 × 10.
	if f := strings.Fields(strings.ReplaceAll(res[1], "|", " ")); f[0] != "INGESTION" || f[2] != "2400" {
		t.Fatalf("INGESTION row %q, want 2400 points", res[1])
	}
	if !strings.Contains(r.stdout, "DATA_CLIENT_NUMBER=2") || !strings.Contains(r.stdout, "BATCH_SIZE_PER_WRITE=20") {
		t.Fatal("the configuration dump does not show the translated keys")
	}
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-c", "config.properties", "--set", "LOOP=abc"}, "bench: LOOP=abc: not a whole number (valid: 0..100000000)\n"},
		{[]string{"-c", "config.properties", "--set", "DB_SWITCH=Oracle"}, "bench: DB_SWITCH=Oracle: is not a database this build supports (valid: " + strings.Join(registry().Names(), ", ") + ")\n"},
		{[]string{"-c", "no-such-file.properties"}, "bench: cannot read the config file: no-such-file.properties: no such file or directory (valid: a readable .properties file given with -c)\n"},
		{[]string{"-c", "config.properties", "--format", "xml"}, "bench: --format=xml is not a format tsbench writes (valid: text, markdown, csv, json)\n"},
		{[]string{"-c", "config.properties", "--set", "QUERY_SENSOR_NUM=21"}, "bench: QUERY_SENSOR_NUM=21: is larger than SENSOR_NUMBER=20 (valid: 1..20)\n"},
		{[]string{"--no-such-flag"}, "bench: unknown flag: --no-such-flag\n"},
		{[]string{"-c", "config.properties", "--set", "DB_SWITCH=Elasticsearch", "--set", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:0:0:1:0"},
			"bench: INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:0:0:1:0: gives DATE a share, which Elasticsearch cannot store (valid: weight 0 at position 10 (DATE))\n"},
		{[]string{"-c", "config.properties", "--set", "DB_SWITCH=IoTDB", "--set", "IOTDB_DIALECT_MODE=table", "--set", "IOTDB_TABLE_NUMBER=3"},
			"bench: IOTDB_TABLE_NUMBER=3: does not fit GROUP_NUMBER=2 and DEVICE_NUMBER=20: in the table model the table number is a multiple of the group number, and the device number a multiple of the table number (valid: a multiple of GROUP_NUMBER that divides DEVICE_NUMBER)\n"},
		{[]string{"-c", "config.properties", "--set", "DB_SWITCH=IoTDB-200-SESSION_BY_RECORDS", "--set", "IOTDB_DIALECT_MODE=table", "--set", "IOTDB_TABLE_NUMBER=4"},
			"bench: DB_SWITCH=IoTDB-200-SESSION_BY_RECORDS: writes records, but the IoTDB table model only takes tablets (IOTDB_DIALECT_MODE=table) (valid: IoTDB-200-SESSION_BY_TABLET)\n"},
		{[]string{"-c", "config.properties", "--set", "IOTDB_DIALECT_MODE=table", "--set", "IOTDB_TABLE_NUMBER=4"},
			"bench: IOTDB_DIALECT_MODE=table: is IoTDB's table model, which SQLite does not have (valid: tree)\n"},
		{[]string{"-c", "config.properties", "--set", "DEVICE_NUM_PER_WRITE=2"}, "bench: DEVICE_NUM_PER_WRITE=2: is more than 1, but SQLite writes one device a request (valid: 1)\n"},
		{[]string{"-c", "config.properties", "--set", "DB_SWITCH=IoTDB", "--set", "DEVICE_NUM_PER_WRITE=5"},
			"bench: DB_SWITCH=IoTDB: writes one device a request, but DEVICE_NUM_PER_WRITE=5 asks for several in the tree model (valid: IoTDB-200-SESSION_BY_RECORDS, or the table model)\n"},
		{[]string{"-c", "config.properties", "--set", "DB_SWITCH=IoTDB-200-SESSION_BY_RECORDS", "--set", "DEVICE_NUM_PER_WRITE=2", "--set", "DATA_CLIENT_NUMBER=3"},
			"bench: DEVICE_NUM_PER_WRITE=2: does not divide the 7 written devices of client 0: some clients will be allocated devices which are not divisible by DEVICE_NUM_PER_WRITE (valid: a divisor of every client's written devices (DEVICE_NUMBER × REAL_INSERT_RATE spread over DATA_CLIENT_NUMBER))\n"},
		{[]string{"-c", "config.properties", "--set", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:1"},
			"bench: INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:1: gives OBJECT a share, a type tsbench does not generate (valid: weights for BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT, STRING, BLOB, TIMESTAMP and DATE; the last (OBJECT) must be 0)\n"},
		{[]string{"show", "nothing-like-this", "--results", "/nonexistent"}, "bench: no run with id or label \"nothing-like-this\" in /nonexistent (bench list shows the runs there)\n"},
	}
	for _, c := range cases {
		r := bench(t, c.args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, r.code)
		}
		if r.stderr != c.want {
			t.Errorf("%v: stderr %q, want %q", c.args, r.stderr, c.want)
		}
		if r.stdout != "" {
			t.Errorf("%v: printed to stdout: %q", c.args, r.stdout)
		}
	}
	// Nothing half-written: a rejected config creates no results folder.
	dir := filepath.Join(t.TempDir(), "results")
	bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "LOOP=-3")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("a rejected run created its results folder")
	}
	// No config at all: help on stderr, exit 2.
	if r := bench(t); r.code != 2 || !strings.Contains(r.stderr, "give a config file with -c") {
		t.Fatalf("bench without arguments: exit %d, %q", r.code, r.stderr)
	}
}

func TestUnreachableServerExitsThree(t *testing.T) {
	dir := t.TempDir()
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "DB_SWITCH=IoTDB-200-SESSION_BY_TABLET", "--set", "PORT=1", "--set", "PASSWORD=pw-secret-1")
	want := "bench: cannot open the database IoTDB-200-SESSION_BY_TABLET: cannot connect to IoTDB at 127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused\n"
	if r.code != 3 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want 3 and %q", r.code, r.stderr, want)
	}
	recs := records(t, dir)
	if len(recs) != 1 || recs[0].Status != record.StatusIncomplete || !strings.Contains(recs[0].Error, "connection refused") {
		t.Fatalf("a run that could not connect must still leave an incomplete record: %+v", recs)
	}
	if strings.Contains(r.stdout+r.stderr, "pw-secret-1") {
		t.Fatal("the password leaked")
	}
}

func TestSecretsNeverPrintedOrSaved(t *testing.T) {
	dir := t.TempDir()
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "PASSWORD=hunter2secret", "--set", "TOKEN=tok-9d8f7", "--set", "LOOP=23")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var saved []byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		saved = append(saved, b...)
	}
	for _, out := range []string{r.stdout, r.stderr, string(saved)} {
		if strings.Contains(out, "hunter2secret") || strings.Contains(out, "tok-9d8f7") {
			t.Fatal("a secret appears in the output or the record")
		}
	}
	if len(saved) == 0 || !strings.Contains(r.stdout, "PASSWORD=******") {
		t.Fatal("expected a record and a masked password in the dump")
	}
}

func TestVerifyMismatchExitsThree(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "v.db")
	small := []string{"--set", "RESULTS_DIR=" + dir, "--set", "SQLITE_PATH=" + db, "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "LOOP=5", "--set", "VERIFY=false"}
	if r := bench(t, append([]string{"-c", "config.properties"}, small...)...); r.code != 0 {
		t.Fatalf("write run: exit %d: %s", r.code, r.stderr)
	}
	if r := bench(t, append([]string{"verify", "-c", "config.properties"}, small...)...); r.code != 0 {
		t.Fatalf("verify of what was written: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	more := append(append([]string{"verify", "-c", "config.properties"}, small...), "--set", "LOOP=6")
	r := bench(t, more...)
	if r.code != 3 || !strings.Contains(r.stderr, "bench: verify: 20 of 20 devices hold other point counts than the workload writes") {
		t.Fatalf("verify against a bigger config: exit %d, %q", r.code, r.stderr)
	}
}

func TestInterruptWritesIncompleteRecord(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "DB_SWITCH=Null",
		"--set", "LOOP=100000000", "--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0", "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	cmd.Dir = filepath.Join("..", "..")
	var o, e syncBuffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the workload is running (its first progress line).
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(e.String(), "main: "); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no progress line within 20 s:\n%s", e.String())
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("bench did not stop within 20 s of SIGINT")
	}
	if cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("exit %d after SIGINT, want 3\n%s", cmd.ProcessState.ExitCode(), e.String())
	}
	recs := records(t, dir)
	if len(recs) != 1 || recs[0].Status != record.StatusIncomplete || len(recs[0].Phases) != 1 || recs[0].Phases[0].Operations[0].OKOps == 0 || recs[0].Phases[0].Operations[0].FailOps != 0 {
		t.Fatalf("record after SIGINT: %+v", recs)
	}
	if !strings.Contains(o.String(), "Result Matrix (main)") {
		t.Fatal("an interrupted run must still print what it measured")
	}
}

func TestDryRunTouchesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "Plan: 4 clients × LOOP 230 operations") {
		t.Fatalf("dry run: exit %d\n%s", r.code, r.stdout)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("--dry-run created the results folder")
	}
}

func TestJSONAndCSVKeepStdoutClean(t *testing.T) {
	dir := t.TempDir()
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "LOOP=23", "--format", "json")
	var rec record.Record
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rec) != nil || rec.Status != record.StatusComplete {
		t.Fatalf("--format json: exit %d, stdout is not one record:\n%.300s", r.code, r.stdout)
	}
	r = bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "LOOP=23", "--format", "csv")
	// One table with one header: every row as long as it, the prose on stderr.
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil || len(rows) < 3 || strings.Join(rows[0][:4], ",") != "table,run,Operation,okOperation" ||
		strings.Join(rows[1][:3], ",") != "Result Matrix (main),"+rows[1][1]+",INGESTION" || !strings.Contains(r.stderr, "Test elapsed time") || strings.Contains(r.stdout, "Test elapsed time") {
		t.Fatalf("--format csv: exit %d, %v:\n%.300s\nstderr %.300s", r.code, err, r.stdout, r.stderr)
	}
	if show := bench(t, "show", rows[1][1], "--results", dir, "--format", "csv"); show.stdout != r.stdout {
		t.Errorf("show's CSV differs from the run's:\n%s\n%s", show.stdout, r.stdout)
	}
}

// syncBuffer is a bytes.Buffer that the test reads while the process writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDatabaseKeysFollowDBSwitch: a database's own keys are read only when
// DB_SWITCH names it. In a SQLite run an IoTDB key is a warning (users keep
// one iot-benchmark file for all databases); with IoTDB it is checked, and
// the fingerprint covers only the keys that change the workload.
func TestDatabaseKeysFollowDBSwitch(t *testing.T) {
	dir := t.TempDir()
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "LOOP=23", "--set", "COMPRESSOR=BOGUS", "--set", "ALIGN_BY_DEVICE=true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: ALIGN_BY_DEVICE, COMPRESSOR are keys of IoTDB; no effect with DB_SWITCH=SQLite\n") {
		t.Fatalf("stderr lacks the other-database warning:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "COMPRESSOR") || !strings.Contains(r.stdout, "SQLITE_PATH=") {
		t.Fatal("the dump must show SQLite's keys and not IoTDB's")
	}
	rec := records(t, dir)[0]
	if _, ok := rec.Config["COMPRESSOR"]; ok {
		t.Fatal("the record holds a key of another database")
	}
	for _, k := range rec.WorkloadKeys {
		if k == "SQLITE_PATH" || k == "HOST" || k == "RESULTS_DIR" {
			t.Fatalf("%s is in the workload keys %v", k, rec.WorkloadKeys)
		}
	}
	if want := config.Fingerprint(rec.Config, rec.WorkloadKeys); rec.Fingerprint != want || len(rec.WorkloadKeys) < 40 {
		t.Fatalf("fingerprint %s over %d keys, recomputed %s", rec.Fingerprint, len(rec.WorkloadKeys), want)
	}
	r = bench(t, "-c", "config.properties", "--set", "DB_SWITCH=IoTDB", "--set", "COMPRESSOR=BOGUS", "--dry-run")
	if r.code != 2 || !strings.Contains(r.stderr, "bench: COMPRESSOR=BOGUS: is not an IoTDB compressor") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = bench(t, "-c", "config.properties", "--set", "DB_SWITCH=IoTDB", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "PORT=6667\n") || !strings.Contains(r.stdout, "IOTDB_SESSION_POOL_SIZE=4\n") || strings.Contains(r.stdout, "SQLITE_PATH") {
		t.Fatalf("IoTDB dry run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestCPUProfile: --cpuprofile writes a profile go tool pprof reads (a
// gzip stream), and a path that cannot be created is bad usage.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	r := bench(t, "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "DB_SWITCH=Null", "--set", "LOOP=50",
		"--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0", "--cpuprofile", prof)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(prof)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile %s: %d bytes, %v; want a gzip stream", prof, len(b), err)
	}
	r = bench(t, "-c", "config.properties", "--set", "DB_SWITCH=Null", "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof"))
	if r.code != 2 || !strings.Contains(r.stderr, "--cpuprofile") {
		t.Fatalf("unwritable --cpuprofile: exit %d, %q; want 2 naming the flag", r.code, r.stderr)
	}
}
