package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
)

// benchWithin runs the binary and fails the test when it has not ended
// within limit: the defects here were hangs.
func benchWithin(t *testing.T, limit time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = filepath.Join("..", "..")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("bench %v still ran after %v", args, limit)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{o.String(), e.String(), code}
}

// TestHugeWeightEndsAtOnce: OPERATION_PROPORTION=1e307:1:… spun at full
// CPU for more than ten minutes, through SIGTERM, also as a dry run: the
// share LOOP × 1e307 overflowed to +Inf and its count was undefined. The
// dry run and the run now end at once, and weights whose sum overflows
// are refused with the key named.
func TestHugeWeightEndsAtOnce(t *testing.T) {
	args := []string{"-c", "config.properties", "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=4", "--set", "GROUP_NUMBER=1",
		"--set", "DATA_CLIENT_NUMBER=2", "--set", "LOOP=20", "--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0",
		"--set", "OPERATION_PROPORTION=1e307:1:0:0:0:0:0:0:0:0:0:0:0", "--set", "RESULTS_DIR=" + t.TempDir()}
	for _, extra := range [][]string{{"--dry-run"}, nil} {
		r := benchWithin(t, 30*time.Second, append(args, extra...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", extra, r.code, r.stderr)
		}
		if extra == nil && !strings.Contains(r.stdout, "INGESTION") {
			t.Fatalf("the run printed no INGESTION row:\n%s", r.stdout)
		}
	}
	r := benchWithin(t, 30*time.Second, "-c", "config.properties", "--dry-run", "--set", "OPERATION_PROPORTION=1e308:1e308")
	if r.code != 2 || !strings.Contains(r.stderr, "OPERATION_PROPORTION=1e308:1e308:0:0:0:0:0:0:0:0:0:0:0: the weights add up to more than a number holds") {
		t.Fatalf("weights that overflow: exit %d, %q", r.code, r.stderr)
	}
}

// TestSlowOperationOfNoOperationRefused: NULL_SLOW_OPERATION=FOO was taken
// and slowed nothing, so a check of the gate passed without checking.
func TestSlowOperationOfNoOperationRefused(t *testing.T) {
	r := benchWithin(t, 30*time.Second, "-c", "config.properties", "--dry-run", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "NULL_SLOW_OPERATION=FOO")
	want := "bench: NULL_SLOW_OPERATION=FOO: names no operation of this run, so it would slow nothing (valid: INGESTION, PRECISE_POINT, TIME_RANGE, VALUE_RANGE, AGG_RANGE, AGG_VALUE, AGG_RANGE_VALUE, GROUP_BY, LATEST_POINT, RANGE_QUERY_DESC, VALUE_RANGE_QUERY_DESC, GROUP_BY_DESC, or empty)\n"
	if r.code != 2 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// TestDamagedRecordIsNamedNotRead: a record whose operation is null
// panicked show, compare and report (exit 2, as if a usage error); a
// negative count printed AVG −270 ms. Now such a file is named as damaged
// and left out, and a panic, were there one, exits 70 as a bug.
func TestDamagedRecordIsNamedNotRead(t *testing.T) {
	dir := t.TempDir()
	good := sampleRecord(t, dir)
	for name, damage := range map[string]func(string) string{
		"null operation": func(s string) string { return strings.Replace(s, `"operations": [`, `"operations": [null, `, 1) },
		"negative count": func(s string) string { return strings.Replace(s, `"ok_operations": 4`, `"ok_operations": -4`, 1) },
	} {
		bad := filepath.Join(dir, "20261130T100000Z-ffffff.json")
		if err := os.WriteFile(bad, []byte(damage(string(good))), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"show", "20261130T10"}, {"compare", "master-a2b704d", "20261130T10"}, {"report", "20261130T10"}} {
			r := benchWithin(t, 30*time.Second, append(args, "--results", dir)...)
			if r.code != 2 || !strings.Contains(r.stderr, "is not a readable run record") {
				t.Errorf("%s, bench %v: exit %d, %q", name, args, r.code, r.stderr)
			}
		}
		// The good run with the same label is still shown, the damaged file named.
		r := benchWithin(t, 30*time.Second, "show", "master-a2b704d", "--results", dir)
		if r.code != 0 || !strings.Contains(r.stderr, "warning: "+bad+" is not a readable run record") || strings.Contains(r.stdout, "-270") {
			t.Errorf("%s: show of the good run: exit %d, %q", name, r.code, r.stderr)
		}
	}
}

// TestLabelCannotShadowARun: run B labelled with run A's id made
// `bench show A` print B; labels with a newline broke the list, and path
// separators and 600-character labels were taken. Now each is refused at
// the start of the run, before anything runs.
func TestLabelCannotShadowARun(t *testing.T) {
	dir := t.TempDir()
	run := []string{"-c", "config.properties", "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=2", "--set", "GROUP_NUMBER=1",
		"--set", "DATA_CLIENT_NUMBER=1", "--set", "LOOP=20", "--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0", "--set", "RESULTS_DIR=" + dir, "--format", "csv"}
	if r := benchWithin(t, time.Minute, append(run, "--label", "a")...); r.code != 0 {
		t.Fatalf("run a: exit %d\n%s", r.code, r.stderr)
	}
	recs, _ := record.Store{Dir: dir}.List()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	id := recs[0].ID
	for _, label := range []string{id, id[:8], "two\nlines", "../../evil", "a/b", strings.Repeat("x", 600)} {
		r := benchWithin(t, time.Minute, append(run, "--label", label)...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "bench: --label=") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("--label %.40q: exit %d, %q", label, r.code, r.stderr)
		}
	}
	if recs, _ := (record.Store{Dir: dir}).List(); len(recs) != 1 {
		t.Fatalf("a refused label left %d records", len(recs))
	}
	if r := benchWithin(t, time.Minute, "show", id, "--results", dir); r.code != 0 || !strings.Contains(r.stdout, "Run "+id+" (a)") {
		t.Fatalf("show %s: exit %d\n%s", id, r.code, r.stdout)
	}
}

// TestTypoInFileRefused: LOOPS=5 in the file was a warning and the run
// went on with the default LOOP, saved as valid; --set FOO=1 suggested
// LOOP. A near miss of a key the run reads is now refused; FOO is
// suggested nothing.
func TestTypoInFileRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "typo.properties")
	if err := os.WriteFile(file, []byte("DB_SWITCH=Null\nVERIFY=false\nLOOPS=5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := benchWithin(t, 30*time.Second, "-c", file, "--dry-run")
	if want := "bench: LOOPS=5: is not a key tsbench knows; did you mean LOOP (valid: a key of docs/config.md)\n"; r.code != 2 || r.stderr != want {
		t.Fatalf("LOOPS=5 in the file: exit %d, %q, want %q", r.code, r.stderr, want)
	}
	r = benchWithin(t, 30*time.Second, "-c", "config.properties", "--dry-run", "--set", "FOO=1")
	if want := "bench: --set FOO=1: is not a key tsbench knows (valid: a key of docs/config.md)\n"; r.code != 2 || r.stderr != want {
		t.Fatalf("--set FOO=1: exit %d, %q, want %q", r.code, r.stderr, want)
	}
}

// TestSmallRefusals: a dry run of a run too big for its disk said nothing
// while the run was refused; compare -o into a missing folder exited 3;
// list of a missing folder printed an empty table.
func TestSmallRefusals(t *testing.T) {
	dir := t.TempDir()
	r := benchWithin(t, 30*time.Second, "-c", "config.properties", "--dry-run", "--set", "LOOP=100000000", "--set", "RESULTS_DIR="+dir)
	if r.code != 2 || !strings.Contains(r.stderr, "bench: the run needs about") || !strings.Contains(r.stdout, "Size: this run writes") || !strings.Contains(r.stdout, "Steps:") {
		t.Errorf("dry run of a run too big: exit %d, %q", r.code, r.stderr)
	}
	if _, err := (record.Store{Dir: dir}).Save(recordtest.Sample()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "new", "folder", "page.html")
	if r := benchWithin(t, time.Minute, "compare", "master-a2b704d", "master-a2b704d", "--results", dir, "--format", "html", "-o", out); r.code != 0 {
		t.Errorf("compare -o into a new folder: exit %d, %q", r.code, r.stderr)
	} else if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	missing := filepath.Join(dir, "missing")
	if r := benchWithin(t, 30*time.Second, "list", "--results", missing); r.code != 2 || r.stderr != "bench: --results "+missing+": no such file or directory (runs save their records in RESULTS_DIR, ./results unless set)\n" {
		t.Errorf("list of a missing folder: exit %d, %q", r.code, r.stderr)
	}
}

// TestSecondRunOnOneSQLiteFileRefused: two runs on one SQLite file both
// finished "complete", each measuring the other's writes; started 3 s
// apart, both failed later with "no such table". The second is now
// refused at its start, naming the first, and the first runs on.
func TestSecondRunOnOneSQLiteFileRefused(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "LOOP=150", "--set", "OP_MIN_INTERVAL=20", "--set", "INIT_WAIT_TIME=0", "--format", "csv"}
	first := exec.Command(binary, args...)
	first.Dir = filepath.Join("..", "..")
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "test.db.lock")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(lock); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the first run took no lock in 20 s:\n%s", firstErr.String())
		}
	}
	r := benchWithin(t, 30*time.Second, args...)
	want := fmt.Sprintf("bench: the SQLite file %s is in use by bench (pid %d on ", filepath.Join(dir, "test.db"), first.Process.Pid)
	if r.code != 2 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("second run: exit %d, %q, want %q…", r.code, r.stderr, want)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first run: %v\n%s", err, firstErr.String())
	}
	if recs, _ := (record.Store{Dir: dir}).List(); len(recs) != 1 || recs[0].Status != record.StatusComplete {
		t.Fatalf("%d records after one run and one refused", len(recs))
	}
}

// TestIoTBenchmarkKeysNeverNearMisses: the near-miss rule refuses a key one
// or two edits from a key the run reads, so it must know every key of
// iot-benchmark's configuration: each, alone in a file with any value, is
// read, ignored or warned about, never refused as a typo.
func TestIoTBenchmarkKeysNeverNearMisses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "iot-benchmark-keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		key := strings.TrimSpace(line)
		if key == "" || strings.HasPrefix(key, "#") {
			continue
		}
		n++
		for _, db := range registry() {
			_, err := config.Load(config.Source{Data: []byte("DB_SWITCH=" + db.Name + "\n" + key + "=x\n"), NoEnv: true, Catalog: registry()})
			if err != nil && strings.Contains(err.Error(), "is not a key tsbench knows") {
				t.Errorf("DB_SWITCH=%s: %s is refused: %v", db.Name, key, err)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d keys read", n)
	}
}

// TestRefusedAtLoad: an aggregate tsbench does not know was refused only
// when an aggregate query ran, and a program given with -c echoed its
// bytes; both are one line at load now, whatever the mix.
func TestRefusedAtLoad(t *testing.T) {
	r := benchWithin(t, 30*time.Second, "-c", "config.properties", "--dry-run", "--set", "QUERY_AGGREGATE_FUN=median", "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	if want := "bench: QUERY_AGGREGATE_FUN=median: is not an aggregate tsbench knows (valid: count, sum, avg, max_value, min_value)\n"; r.code != 2 || r.stderr != want {
		t.Errorf("median in a write-only run: exit %d, %q", r.code, r.stderr)
	}
	r = benchWithin(t, 30*time.Second, "-c", binary, "--dry-run")
	if want := "bench: " + binary + " is not a text file: it holds NUL bytes, as a program or an archive does (valid: a .properties file of KEY=VALUE lines)\n"; r.code != 2 || r.stderr != want {
		t.Errorf("a program given with -c: exit %d, %.300q", r.code, r.stderr)
	}
}

// TestSIGTERMEndsEveryLongStep: each step that can last (waiting for
// --start-at, the pause after cleanup, a schedule's or a minimum
// interval's wait, a phase of writes, an operation in flight, a restart
// command) ends within a second of SIGTERM, the run's record saved. A CI
// job's timeout then needs no SIGKILL.
func TestSIGTERMEndsEveryLongStep(t *testing.T) {
	base := []string{"-c", "config.properties", "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=2", "--set", "GROUP_NUMBER=1",
		"--set", "DATA_CLIENT_NUMBER=1", "--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"waiting for --start-at", []string{"--start-at", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}},
		{"the pause after cleanup", []string{"--set", "IS_DELETE_DATA=true", "--set", "INIT_WAIT_TIME=600000"}},
		{"a schedule's wait", []string{"--set", "TARGET_THROUGHPUT=0.001", "--set", "LOOP=20"}},
		{"a minimum interval's wait", []string{"--set", "OP_MIN_INTERVAL=600000", "--set", "LOOP=20"}},
		{"a phase of writes", []string{"--set", "LOOP=100000000", "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"}},
		{"an operation in flight", []string{"--set", "NULL_DELAY_MS=60000", "--set", "LOOP=20", "--set", "WRITE_OPERATION_TIMEOUT_MS=1000000"}},
		{"a restart command", []string{"--set", "LOOP=20", "--set", "STOP_COMMAND=sleep 600", "--set", "START_COMMAND=true"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, append(append(append([]string(nil), base...), "--set", "RESULTS_DIR="+dir), c.args...)...)
			cmd.Dir = filepath.Join("..", "..")
			var o, e syncBuffer
			cmd.Stdout, cmd.Stderr = &o, &e
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			// Long enough to be in the step: the rest of each run takes
			// milliseconds.
			select {
			case <-done:
				t.Fatalf("bench ended before the signal: exit %d\n%s%s", cmd.ProcessState.ExitCode(), o.String(), e.String())
			case <-time.After(1500 * time.Millisecond):
			}
			sent := time.Now()
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("bench still ran 30 s after SIGTERM:\n%s", e.String())
			}
			took := time.Since(sent)
			t.Logf("ended %v after SIGTERM, exit %d", took.Round(time.Millisecond), cmd.ProcessState.ExitCode())
			if took > time.Second {
				t.Errorf("bench ended %v after SIGTERM, more than 1 s", took.Round(time.Millisecond))
			}
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Errorf("exit %d after SIGTERM, want 3 (an interrupted run)\n%s", code, e.String())
			}
			if strings.Contains(e.String(), "goroutine ") {
				t.Errorf("a stack trace:\n%s", e.String())
			}
		})
	}
}

// TestCheckAnswersRatioAloneSaid: CHECK_ANSWERS_RATIO without
// CHECK_ANSWERS checks nothing, and the run says so.
func TestCheckAnswersRatioAloneSaid(t *testing.T) {
	r := bench(t, "run", "-c", "config.properties", "--set", "CHECK_ANSWERS_RATIO=0.5", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: CHECK_ANSWERS_RATIO=0.5 does nothing without CHECK_ANSWERS=true") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bench(t, "run", "-c", "config.properties", "--set", "CHECK_ANSWERS_RATIO=0.5", "--set", "CHECK_ANSWERS=true", "--set", "QUERY_ROUNDS=1", "--dry-run"); r.code != 0 || strings.Contains(r.stderr, "does nothing without") {
		t.Fatalf("with CHECK_ANSWERS: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestServerStatusSaysNotRunning: bench server status of a server that is
// not up says so in words, not "exit status 1".
func TestServerStatusSaysNotRunning(t *testing.T) {
	r := bench(t, "server", "status", "iotdb", "--home", t.TempDir())
	if r.code != 3 || !strings.Contains(r.stderr, "bench: iotdb is not running (above: what its script found)") || strings.Contains(r.stderr, "exit status") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestPathErrorsAreUsage: a path flag that cannot be what it names failed
// after the work with exit 3 and the raw mkdir or rename text; it is now
// refused first, exit 2, one line naming the flag (or the key), nothing
// written.
func TestPathErrorsAreUsage(t *testing.T) {
	dir := t.TempDir()
	if _, err := (record.Store{Dir: dir}).Save(recordtest.Sample()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "afile")
	folder := filepath.Join(dir, "afolder")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	run := "master-a2b704d"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", run, run, "--results", dir, "-o", folder}, "bench: --output " + folder + ": is a folder; give the name of a file to write\n"},
		{[]string{"history", run, "--results", dir, "-o", folder}, "bench: --output " + folder + ": is a folder; give the name of a file to write\n"},
		{[]string{"report", run, "--results", dir, "-o", filepath.Join(dir, "r.html"), "--png", file}, "bench: --png " + file + ": is a file; give a folder\n"},
		{[]string{"report", run, "--results", dir, "-o", filepath.Join(file, "r.html")}, "bench: --output " + filepath.Join(file, "r.html") + ": " + file + " is a file, so nothing can be created under it\n"},
		{[]string{"generate", "-c", "config.properties", "--out", file}, "bench: --out " + file + ": is a file; give a folder\n"},
		{[]string{"generate", "-c", "config.properties", "--set", "FILE_PATH=" + file}, "bench: FILE_PATH=" + file + ": is a file; give a folder (valid: a folder, or a path where one can be made)\n"},
		{[]string{"list", "--results", file}, "bench: --results " + file + ": is a file; give a folder\n"},
		{[]string{"-c", "config.properties", "--set", "RESULTS_DIR=" + filepath.Join(file, "r")}, "bench: RESULTS_DIR=" + filepath.Join(file, "r") + ": " + file + " is a file, so nothing can be created under it (valid: a folder, or a path where one can be made)\n"},
		{[]string{"export", run, "--results", dir, "--to", "iotdb://127.0.0.1:99999"}, "bench: --to iotdb://127.0.0.1:99999: the port 99999 is not a port (valid: 1 to 65535)\n"},
		{[]string{"export", run, "--results", dir, "--to", "iotdb://:x"}, "is not a format or a store's URL"},
	} {
		r := bench(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("bench %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("report wrote its page though --png was refused")
	}
}

// TestCopiedRecordCountsOnce: a record copied under another file name was
// listed and compared twice (its id repeated). The run counts once, from
// the file its id names, and a warning names both files.
func TestCopiedRecordCountsOnce(t *testing.T) {
	dir := t.TempDir()
	rec := recordtest.Sample()
	path, err := (record.Store{Dir: dir}).Save(rec)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "a-copy.json")
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	warning := "warning: " + cp + " holds run " + rec.ID + ", which " + path + " holds too: the run counts once; it is left out"
	for _, c := range []struct {
		args []string
		once string
	}{
		{[]string{"list", "--format", "csv"}, rec.ID},
		{[]string{"show", rec.Label, "--format", "json"}, `"id": "` + rec.ID + `"`},
		{[]string{"history", rec.Label}, "1 runs, 1 labels"},
	} {
		r := bench(t, append(c.args, "--results", dir)...)
		if r.code != 0 || !strings.Contains(r.stderr, warning) || strings.Count(r.stdout, c.once) != 1 {
			t.Errorf("bench %v: exit %d, %q %d times in stdout %q, stderr %q", c.args, r.code, c.once, strings.Count(r.stdout, c.once), r.stdout, r.stderr)
		}
	}
}

// TestCSVIsOneTable: compare, show, history and list --format csv wrote
// prose lines and several tables with their own headers. Each is now one
// table, one header, every row as long as it (encoding/csv refuses
// otherwise), and the prose is on stderr.
func TestCSVIsOneTable(t *testing.T) {
	dir := t.TempDir()
	saveSamples(t, dir, "base", "base", "base", "pr", "pr", "pr")
	for _, args := range [][]string{
		{"compare", "base", "pr", "--fail-above", "10"},
		{"compare", "base", "pr", "--layout", "pr"},
		{"show", "base"},
		{"history", "base", "pr"},
		{"list"},
	} {
		r := bench(t, append(args, "--results", dir, "--format", "csv")...)
		rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		if err != nil || len(rows) < 2 || rows[0][0] != "table" {
			t.Errorf("bench %v: exit %d, %v:\n%s", args, r.code, err, r.stdout)
			continue
		}
		for _, row := range rows[1:] {
			if row[0] == "table" {
				t.Errorf("bench %v: a second header: %q", args, row)
			}
		}
		if args[0] == "compare" && (!strings.HasPrefix(r.stderr, "Gate ") && !strings.HasPrefix(r.stderr, "No gate")) {
			t.Errorf("bench %v: the verdict is not stderr's first line: %q", args, r.stderr)
		}
		if args[0] == "show" && !slices.Contains(rows[0], "run") {
			t.Errorf("bench show: no run column: %q", rows[0])
		}
	}
}

// TestTrackRefusalsNameTheirKey: a missing TRACK_INDEX_BODY was reported
// under TRACK_PATH with TRACK_PATH's valid values; a TRACK_PATH file that
// is not JSON was sent as one document; bench routine --dry-run accepted
// what its runs refuse. Each refusal now names its own key, the same in a
// run and its dry run, and the routine refuses up front.
func TestTrackRefusalsNameTheirKey(t *testing.T) {
	dir := t.TempDir()
	docs, notJSON, array := filepath.Join(dir, "docs.json"), filepath.Join(dir, "hello.json"), filepath.Join(dir, "array.json")
	for path, text := range map[string]string{docs: `{"a": 1}` + "\n", notJSON: "hello\n", array: "[1]\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	es := []string{"-c", "config.properties", "--set", "DB_SWITCH=Elasticsearch", "--set", "HOST=127.0.0.1", "--set", "PORT=1", "--set", "QUERY_ROUNDS=0",
		"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0", "--set", "RESULTS_DIR=" + dir}
	missing := filepath.Join(dir, "missing.json")
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"TRACK_PATH=" + docs, "TRACK_INDEX_BODY=" + missing}, "bench: TRACK_INDEX_BODY=" + missing + ": cannot read " + missing},
		{[]string{"TRACK_PATH=" + docs, "TRACK_INDEX_BODY=" + array}, "bench: TRACK_INDEX_BODY=" + array + ": " + array + " is not a JSON object (valid: a JSON file of the index's body"},
		{[]string{"TRACK_PATH=" + notJSON}, "bench: TRACK_PATH=" + notJSON + ": " + notJSON + ": line 1 is not a JSON object"},
	} {
		args := slices.Clone(es)
		for _, s := range c.sets {
			args = append(args, "--set", s)
		}
		for _, dry := range []bool{true, false} {
			a := args
			if dry {
				a = append(slices.Clone(args), "--dry-run")
			}
			if r := benchWithin(t, time.Minute, a...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%v (dry run %v): exit %d, stderr %q, want exit 2 and %q", c.sets, dry, r.code, r.stderr, c.want)
			}
		}
	}
	routine := []string{"routine", "-c", "config.properties", "--baseline", "a=embedded", "--contender", "b=embedded", "--aa", "--dry-run", "--out", filepath.Join(dir, "routine")}
	for _, c := range []struct{ set, want string }{
		{"RESULTS_STORE=iotdb://127.0.0.1:0", "bench: RESULTS_STORE: iotdb://127.0.0.1:0: the port 0 is not a port"},
		{"LOOP=100000000", "bench: the run needs about"},
	} {
		if r := benchWithin(t, time.Minute, append(slices.Clone(routine), "--set", c.set)...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("routine --dry-run --set %s: exit %d, stderr %q, want exit 2 and %q", c.set, r.code, r.stderr, c.want)
		}
	}
}

// TestShortDataSetRefused: FILE_PATH holding fewer rows than LOOP writes
// sent what the files held, half of what the run announced, and failed
// at VERIFY. The run and its dry run now refuse it at the start, exit 2,
// naming FILE_PATH and the counts, and save nothing; a LOOP the files
// hold runs and verifies.
func TestShortDataSetRefused(t *testing.T) {
	dir := t.TempDir()
	data, results := filepath.Join(dir, "data"), filepath.Join(dir, "results")
	small := []string{"--set", "DEVICE_NUMBER=4", "--set", "DATA_CLIENT_NUMBER=2", "--set", "SENSOR_NUMBER=5", "--set", "QUERY_ROUNDS=0",
		"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0", "--set", "INIT_WAIT_TIME=0"}
	if r := bench(t, append([]string{"generate", "-c", "config.properties", "--out", data, "--set", "LOOP=10"}, small...)...); r.code != 0 {
		t.Fatalf("generate: exit %d, %s", r.code, r.stderr)
	}
	run := append([]string{"-c", "config.properties", "--set", "FILE_PATH=" + data, "--set", "VERIFY=true", "--set", "RESULTS_DIR=" + results}, small...)
	want := "bench: FILE_PATH=" + data + ": holds 1000 rows of device d_0, and the run writes 2000 a device (40 writes of BATCH_SIZE_PER_WRITE=50)"
	for _, extra := range [][]string{{"--dry-run"}, nil} {
		r := bench(t, append(slices.Clone(run), append(extra, "--set", "LOOP=40", "--set", "BATCH_SIZE_PER_WRITE=50")...)...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("LOOP=40 %v: exit %d, stderr %q, want exit 2 and %q", extra, r.code, r.stderr, want)
		}
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Error("a refused run left a results folder")
	}
	if r := bench(t, append(slices.Clone(run), "--set", "LOOP=20", "--set", "BATCH_SIZE_PER_WRITE=50")...); r.code != 0 || !strings.Contains(r.stdout, "Verify: every device holds exactly the points the workload writes.") {
		t.Errorf("LOOP=20, the files' rows exactly: exit %d, %s", r.code, r.stderr)
	}
}

// TestPairedWarningOnStderr: compare --paired of runs that cannot be paired
// put its "warning:" line into the report's body. The warning is now
// stderr's, and the report says in its notes how the rows were tested.
func TestPairedWarningOnStderr(t *testing.T) {
	dir := t.TempDir()
	saveSamples(t, dir, "base", "base", "base", "pr", "pr", "pr")
	r := bench(t, "compare", "base", "pr", "--paired", "--results", dir)
	warning := "warning: --paired: run 20261130T090000Z-abc000 of base was not made by bench routine (it has no block); the runs are tested unpaired"
	if r.code != 0 || !strings.Contains(r.stderr, warning) || strings.Contains(r.stdout, "warning: --paired") ||
		!strings.Contains(r.stdout, "Tested unpaired: --paired asked for pairs, and run 20261130T090000Z-abc000 of base was not made by bench routine (it has no block).") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestReusedLabelSaid: a run that reused last week's label pooled its runs
// with last week's in silence. The run now says what it joins (runs a day
// or more older, runs of another workload), and compare says when a side's
// runs started days apart.
func TestReusedLabelSaid(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		rec := recordtest.Sample()
		rec.ID = fmt.Sprintf("20261130T0900%02dZ-abc%03d", i, i)
		rec.Label, rec.Fingerprint = "weekly", "f00d"
		rec.StartedAt = time.Now().Add(-time.Duration(8*24+i) * time.Hour)
		if _, err := (record.Store{Dir: dir}).Save(rec); err != nil {
			t.Fatal(err)
		}
	}
	r := bench(t, "-c", "config.properties", "--set", "DB_SWITCH=Null", "--set", "LOOP=23", "--set", "VERIFY=false", "--set", "QUERY_ROUNDS=0", "--set", "RESULTS_DIR="+dir, "--label", "weekly")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: label weekly already has 3 runs, the first started") || !strings.Contains(r.stderr, "(8 days ago): this run joins them") ||
		!strings.Contains(r.stderr, "warning: label weekly has runs of another workload (fingerprint f00d") {
		t.Errorf("run: exit %d, stderr %s", r.code, r.stderr)
	}
	for i := range 3 {
		rec := recordtest.Sample()
		rec.ID = fmt.Sprintf("20261130T0901%02dZ-def%03d", i, i)
		rec.Label = "pr"
		if _, err := (record.Store{Dir: dir}).Save(rec); err != nil {
			t.Fatal(err)
		}
	}
	r = bench(t, "compare", "pr", "weekly", "--results", dir, "--force")
	if !strings.Contains(r.stderr, "warning: the 4 runs of weekly started over 8 days (") {
		t.Errorf("compare: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestInstallFailureHasNoColourCodes: Maven 3.8 writes colour codes even
// in batch mode and into a pipe, and the first install's failure printed
// them. The scripts strip them. A version Maven Central does not have is
// asked for; the shared cache's Maven repository (when there is one) keeps
// Maven from fetching its plugin again.
func TestInstallFailureHasNoColourCodes(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("no mvn here: scripts/iotdb install (or any server test) installs it")
	}
	cache := t.TempDir()
	if m2 := filepath.Join(provision.DefaultCache(), "m2"); dirExists(m2) {
		if err := os.Symlink(m2, filepath.Join(cache, "m2")); err != nil {
			t.Fatal(err)
		}
	}
	r := benchEnv(t, []string{"TSBENCH_CACHE=" + cache}, "server", "install", "iotdb", "0.0.1")
	if r.code != 3 || !strings.Contains(r.stderr, "Maven could not fetch org.apache.iotdb:iotdb-server:0.0.1:zip") || strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestQueryOnlyRunChecksEarlierData: iot-benchmark's habit, a write run and
// then a query-only run on the same data, could not have its answers
// checked. A query-only run's CHECK_ANSWERS now checks the data the last
// run on its target wrote, found in RESULTS_DIR, when that run wrote this
// workload's data whole and alone; it refuses with the reason otherwise.
func TestQueryOnlyRunChecksEarlierData(t *testing.T) {
	dir := t.TempDir()
	common := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "DEVICE_NUMBER=4", "--set", "SENSOR_NUMBER=5",
		"--set", "DATA_CLIENT_NUMBER=2", "--set", "LOOP=40", "--set", "INIT_WAIT_TIME=0", "--set", "IS_OUT_OF_ORDER=true", "--set", "OUT_OF_ORDER_MODE=BATCH"}
	write := append(slices.Clone(common), "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0", "--set", "QUERY_ROUNDS=0")
	query := append(slices.Clone(common), "--set", "OPERATION_PROPORTION=0:1:1:1:1:1:1:1:1:1:1", "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=40",
		"--set", "IS_DELETE_DATA=false", "--set", "CHECK_ANSWERS=true", "--set", "DROP_CACHES_COMMAND=")
	refusal := "bench: CHECK_ANSWERS=true: of a run that writes nothing checks the data an earlier run wrote, and "
	if r := bench(t, query...); r.code != 2 || !strings.Contains(r.stderr, refusal+"no run in "+dir+" wrote to SQLite") {
		t.Fatalf("before any write: exit %d, %s", r.code, r.stderr)
	}
	w := bench(t, append(write, "--label", "writer")...)
	if w.code != 0 {
		t.Fatalf("the write run: exit %d, %s", w.code, w.stderr)
	}
	r := bench(t, query...)
	if r.code != 0 || !strings.Contains(r.stderr, "note: CHECK_ANSWERS checks the data run ") || !strings.Contains(r.stderr, "(writer) wrote to SQLite") ||
		!strings.Contains(r.stdout, "Answers (query, round 1)") || strings.Contains(r.stdout, "wrong answer (") {
		t.Fatalf("the query-only run: exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	// Another LOOP asks for other rows than the data holds.
	if r := bench(t, append(slices.Clone(query), "--set", "LOOP=30")...); r.code != 2 || !strings.Contains(r.stderr, "(writer), wrote other data (data fingerprint") {
		t.Errorf("another LOOP: exit %d, %s", r.code, r.stderr)
	}
	// A write run that kept the data before it leaves data no model describes.
	if w := bench(t, append(slices.Clone(write), "--set", "IS_DELETE_DATA=false", "--label", "keeper")...); w.code != 0 {
		t.Fatalf("the second write run: exit %d, %s", w.code, w.stderr)
	}
	if r := bench(t, query...); r.code != 2 || !strings.Contains(r.stderr, "(keeper), kept the data before it (IS_DELETE_DATA=false)") {
		t.Errorf("after IS_DELETE_DATA=false: exit %d, %s", r.code, r.stderr)
	}
	if r := bench(t, "routine", "-c", "config.properties", "--baseline", "a=embedded", "--contender", "b=embedded", "--aa", "--dry-run", "--out", filepath.Join(dir, "routine"),
		"--set", "OPERATION_PROPORTION=0:1:1:1:1:1:1:1:1:1:1", "--set", "QUERY_ROUNDS=1", "--set", "CHECK_ANSWERS=true"); r.code != 2 || !strings.Contains(r.stderr, "the routine wipes each side's server before every run") {
		t.Errorf("routine: exit %d, %s", r.code, r.stderr)
	}
	// Not chosen, the routine's default leaves such a run unchecked and says why.
	if r := bench(t, "routine", "-c", "config.properties", "--baseline", "a=embedded", "--contender", "b=embedded", "--aa", "--dry-run", "--out", filepath.Join(dir, "routine2"),
		"--set", "OPERATION_PROPORTION=0:1:1:1:1:1:1:1:1:1:1", "--set", "QUERY_ROUNDS=1"); r.code != 0 || !strings.Contains(r.stderr, "routine: answers NOT checked: CHECK_ANSWERS of a run that writes nothing checks the data an earlier run wrote") {
		t.Errorf("routine by default: exit %d, %s", r.code, r.stderr)
	}
}

// saveSamples saves recordtest.Sample into dir once a label, each under an
// id of its own: runs of known numbers for the commands that read them.
func saveSamples(t *testing.T, dir string, labels ...string) {
	t.Helper()
	for i, label := range labels {
		rec := recordtest.Sample()
		rec.ID = fmt.Sprintf("20261130T0900%02dZ-abc%03d", i, i)
		rec.Label = label
		if _, err := (record.Store{Dir: dir}).Save(rec); err != nil {
			t.Fatal(err)
		}
	}
}
