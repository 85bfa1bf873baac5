package main

import (
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/gittest"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/routine"
	"github.com/tsbench/tsbench/runner"
)

// small is the shipped config made quick: the routine's runs are many.
var small = []string{"routine", "-c", "config.properties", "--set", "LOOP=23", "--set", "INIT_WAIT_TIME=0"}

// TestRoutineEmbedded: the whole routine through the binary on SQLite: an
// odd --runs rounded up, runs in balanced blocks marked in their records,
// each on a new database file, the reports written, the summary on
// stdout, the gate's exit status.
func TestRoutineEmbedded(t *testing.T) {
	out := t.TempDir()
	r := bench(t, append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--runs", "3", "--out", out)...)
	// An A/A of 4 short runs a side proves its rows within 10% or says it
	// cannot (exit 4), in the same words everywhere; it never passes in
	// silence, and a false alarm (exit 1) is the 1% Holm allows.
	verdict := map[int]string{0: "Gate passed: all ", 4: "Gate inconclusive: "}[r.code]
	if verdict == "" || !strings.HasPrefix(r.stdout, verdict) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	first := strings.SplitN(r.stdout, "\n", 2)[0]
	if sum, _ := os.ReadFile(filepath.Join(out, "summary.txt")); string(sum) != r.stdout {
		t.Errorf("summary.txt is not the summary printed:\n%s", sum)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	js, _ := os.ReadFile(filepath.Join(out, "report.json"))
	status := map[int]string{0: "passed", 4: "inconclusive"}[r.code]
	if !strings.HasPrefix(string(md), "> "+first+"\n") || !strings.Contains(string(html), `data-status="`+status+`"><p><strong>`+template.HTMLEscapeString(first)) ||
		!strings.Contains(string(js), `"status": "`+status+`"`) {
		t.Errorf("the verdict %q is not first in report.md, report.html and report.json:\n%.300s", first, md)
	}
	if r.code == 4 && !strings.Contains(r.stdout, "Inconclusive: b: ") {
		t.Errorf("an inconclusive gate without its rows:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "--runs=3 rounded up to 4") {
		t.Errorf("no note of the rounding:\n%s", r.stderr)
	}
	for _, want := range []string{"Routine: a vs b, 4 runs a side in balanced blocks (Welch's test, unpaired)", "Baseline a measured SQLite", "Contender b measured SQLite", "Wall time",
		"Answers: not checked: CHECK_ANSWERS needs query rounds after the ingest (QUERY_ROUNDS ≥ 1)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary without %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{"routine: 4 runs a side, the order drawn with --order-seed ", "routine: run 1 of 8: side ", "(block 1, position 1)", "routine: run 2 of 8: side ", "(block 1, position 2), about", "(block 2, position 1)", ", run 8 of 8: main..."} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress without %q", want)
		}
	}
	for _, f := range []string{"report.md", "report.html", "report.txt", "report.json", "charts/latency-ingestion.png"} {
		if info, err := os.Stat(filepath.Join(out, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(string(md), "PR report: a vs b") {
		t.Errorf("report.md is not the PR layout:\n%.300s", md)
	}
	recs := records(t, filepath.Join(out, "results"))
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	pos := map[string]int{}
	blocks := map[string]map[int]bool{"a": {}, "b": {}}
	for _, rec := range recs {
		if rec.Routine == nil || rec.Routine.Side != rec.Label || rec.Status != record.StatusComplete {
			t.Fatalf("record %s: %+v %s", rec.ID, rec.Routine, rec.Status)
		}
		pos[rec.Label] += rec.Routine.Position
		blocks[rec.Label][rec.Routine.Block] = true
	}
	if pos["a"] != 6 || pos["b"] != 6 || len(blocks["a"]) != 4 || len(blocks["b"]) != 4 {
		t.Fatalf("positions %v, blocks %v", pos, blocks)
	}
	// Each run on a new file: the last run's file is all that is left, and
	// it holds one run's rows.
	if _, err := os.Stat(filepath.Join(out, "results", "test.db")); err != nil {
		t.Fatalf("the database file: %v", err)
	}
	again := bench(t, append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--out", out)...)
	if again.code != 2 || !strings.Contains(again.stderr, "holds 8 runs of an earlier routine") {
		t.Fatalf("a second routine into the same --out: %d %s", again.code, again.stderr)
	}
}

// aaStated says an A/A routine finished with a verdict it states first:
// passed (exit 0) or, where its few short runs cannot prove every row
// within the limit, inconclusive (exit 4).
func aaStated(r result) bool {
	return r.code == 0 && strings.HasPrefix(r.stdout, "Gate passed: ") || r.code == 4 && strings.HasPrefix(r.stdout, "Gate inconclusive: ")
}

// TestRoutineRefusals: bad input is exit 2, one line, before anything runs.
// TestRoutineChecksAnswers: the routine checks every answer unless the
// configuration says otherwise, and its summary says what the checks found
// and cost.
func TestRoutineChecksAnswers(t *testing.T) {
	rounds := append(slices.Clone(small), "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=5", "--baseline", "a=embedded", "--contender", "b=embedded", "--runs", "3")
	r := bench(t, append(rounds, "--out", t.TempDir())...)
	if !aaStated(r) || !strings.Contains(r.stderr, "routine: answers checked (CHECK_ANSWERS=true, the routine's default") ||
		!strings.Contains(r.stdout, "Answers: 1760 of 1760 queries checked in 8 runs, 0 wrong; the checks took the clients ") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = bench(t, append(rounds, "--set", "CHECK_ANSWERS=false", "--out", t.TempDir())...)
	if !aaStated(r) || !strings.Contains(r.stdout, "Answers: not checked: CHECK_ANSWERS=false in the configuration") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestRoutineRefusals(t *testing.T) {
	dist := t.TempDir()
	// A track whose index is outside the role's tsbench* (as Rally's are).
	track := t.TempDir()
	doc := `{"@timestamp": 893964617, "status": 200}` + "\n"
	for name, body := range map[string]string{"d.json": doc, "track.json": fmt.Sprintf(`{"indices": [{"name": "logs-small"}], "corpora": [{"name": "c", "documents": [{"source-file": "d.json", "target-index": "logs-small", "document-count": 1, "uncompressed-bytes": %d}]}], "schedule": [{"operation": {"operation-type": "bulk", "bulk-size": 1}, "clients": 1}]}`, len(doc))} {
		if err := os.WriteFile(filepath.Join(track, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secured := []string{"routine", "-c", "examples/elasticsearch.properties", "--set", "USE_SSL=true", "--set", "USERNAME=tsbench", "--set", "PASSWORD=tsbench-pass"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"routine", "--baseline", "a=embedded", "--contender", "b=embedded"}, "give a config file with -c"},
		{append(small, "--contender", "b=embedded"), "give --baseline NAME=SERVER and at least one --contender"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--runs", "2"), "--runs=2: the gate tests 3 runs a side or more"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--runs", "1000000000", "--dry-run"), "--runs=1000000000: the gate tests 3 runs a side or more, and a routine makes at most 10000"},
		{append(small, "--baseline", "a=embedded", "--contender", "a=embedded"), "the name a is taken by another side"},
		{append(small, "--baseline", "a=iotdb:2.0.10", "--contender", "b=embedded"), "DB_SWITCH=SQLite has no server to start"},
		{append(small, "--baseline", "a=embedded", "--contender", "b="+dist), "DB_SWITCH=SQLite has no server to start"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--side-set", "c:LOOP=5"), "give NAME:KEY=VALUE with the NAME of a side"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--side-set", "b:LOOP=x"), "LOOP"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--fail-above", "-1"), "--fail-above=-1"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--set", "SQLITE_PATH="+filepath.Join(dist, "mine.db")), "is outside RESULTS_DIR, so it may hold tables of yours"},
		{[]string{"routine", "-c", "examples/iotdb.properties", "--baseline", "a=embedded", "--contender", "b=iotdb"}, "needs a server"},
		{[]string{"routine", "-c", "examples/iotdb.properties", "--set", "IS_DELETE_DATA=false", "--baseline", "a=iotdb", "--contender", "b=iotdb", "--aa", "--keep-running"}, "IS_DELETE_DATA=false: with --keep-running the servers keep their data from run to run"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--warmup-runs", "-2"), "--warmup-runs=-2: is not a number of runs (valid: 0 or more; -1: 1 with --keep-running, else 0)"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--duet", "--cold", "restart"), "--cold=restart: a duet's runs share the machine at every step, and a restart of one side's server would fall on the other side's measured phase (valid: clear (the default with --duet))"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--duet"), "--duet makes the sides' runs at the same time, and SQLite's runs of every side would use one file at once; run this routine without --duet"},
		{append(small, "--baseline", "a=external", "--contender", "b=external", "--duet"), "--duet makes the sides' runs at the same time, and an external side's commands start and stop its server around each run"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--cold", "warm"), "--cold=warm: is not a way to make a run's cold round cold (valid: restart (stop the server, drop the OS caches, start it) or clear"},
		{[]string{"routine", "-c", "examples/iotdb.properties", "--set", "CLEAR_CACHE=false", "--baseline", "a=iotdb", "--contender", "b=iotdb", "--aa", "--cold", "clear"}, "CLEAR_CACHE=false: with --cold clear the server's own cache clear is what makes a cold round cold without a restart (valid: true, or --cold restart)"},
		{[]string{"routine", "-c", "examples/iotdb.properties", "--baseline", "a=elasticsearch:8.19.21", "--contender", "b=iotdb"}, "measures iotdb, not elasticsearch"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--restart-every", "2"), "--restart-every=2: restarts the servers a routine keeps running, and without --keep-running or --duet each run restarts its own"},
		{append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--resume"), "holds no routine to resume (no routine.json: a routine writes it before its first run)"},
		{[]string{"routine", "-c", "examples/iotdb.properties", "--baseline", "a=" + dist, "--contender", "b=iotdb"}, "is not an unpacked IoTDB, Elasticsearch or OpenSearch distribution"},
		{slicesConcat(secured, []string{"--baseline", "a=elasticsearch:7.17.29", "--contender", "b=elasticsearch:8.19.21"}), "side a: security (USE_SSL=true) on elasticsearch:7.17.29: the released zips before 8.x are the OSS build"},
		{slicesConcat(secured, []string{"--set", "USE_SSL=TRUE", "--baseline", "a=elasticsearch:8.19.21", "--contender", "b=opensearch:2.19.6"}), "side b: security (USE_SSL=true) on a opensearch the routine starts"},
		{slicesConcat(secured, []string{"--baseline", "a=elasticsearch:8.19.21", "--contender", "b=opensearch:2.19.6"}), "side b: security (USE_SSL=true) on a opensearch the routine starts"},
		{slicesConcat(secured, []string{"--set", "USERNAME=", "--baseline", "a=elasticsearch:8.19.21", "--contender", "b=elasticsearch:9.0.0"}), "side a: security (USE_SSL=true) on an Elasticsearch the routine starts needs the user to make on it"},
		{slicesConcat(secured, []string{"--set", "DB_NAME=metrics", "--baseline", "a=elasticsearch:8.19.21", "--contender", "b=elasticsearch:9.0.0"}), "DB_NAME=metrics: side a's secured node gives USERNAME=tsbench the indices tsbench* only, and the runs write metrics (valid: indices starting with tsbench, or USERNAME=elastic)"},
		{slicesConcat(secured, []string{"--set", "TRACK_PATH=" + track, "--set", "QUERY_ROUNDS=0", "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--baseline", "a=elasticsearch:8.19.21", "--contender", "b=elasticsearch:9.0.0"}), "side a's secured node gives USERNAME=tsbench the indices tsbench* only, and the runs write logs-small (valid: indices starting with tsbench, or USERNAME=elastic)"},
		{slicesConcat(secured, []string{"--set", "ES_API_KEY=aWQ6a2V5", "--baseline", "a=elasticsearch:8.19.21", "--contender", "b=elasticsearch:9.0.0"}), "ES_API_KEY=******: side a's server is started by the routine, which makes a user on it but no API key"},
	} {
		out := t.TempDir()
		args := slicesConcat(tc.args, []string{"--out", out})
		r := bench(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("bench %v: exit %d, stderr %q, want 2 and %q", args, r.code, r.stderr, tc.want)
		}
		if recs, _ := (record.Store{Dir: filepath.Join(out, "results")}).List(); len(recs) > 0 {
			t.Errorf("bench %v ran %d runs", args, len(recs))
		}
	}
}

func slicesConcat(ss ...[]string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

// TestRoutineGitFailuresAreLoud: a contender whose build fails or makes no
// distribution stops the routine with exit 3 and a line naming the side
// and the reason, before any run; two refs of identical files are refused
// (exit 2) unless --aa. Nothing falls back to a release: no server starts.
func TestRoutineGitFailuresAreLoud(t *testing.T) {
	repo := gittest.Init(t, "main")
	git := func(args ...string) { t.Helper(); gittest.Git(t, repo, args...) }
	write := func(body string) { t.Helper(); gittest.Write(t, repo, "build.sh", body) }
	write("mkdir -p dist/lib dist/conf && echo jar > dist/lib/iotdb-server-2.0.10.jar && touch dist/conf/iotdb-system.properties\n")
	git("add", ".")
	git("commit", "-qm", "good")
	git("branch", "good")
	git("commit", "-q", "--allow-empty", "-m", "same files")
	git("branch", "same")
	write("echo 'error: cannot find symbol' >&2; exit 1\n")
	git("commit", "-qam", "broken")
	git("branch", "broken")
	write("echo nothing to build\n")
	git("commit", "-qam", "empty")
	git("branch", "empty")
	cache := t.TempDir()
	env := []string{"TSBENCH_CACHE=" + cache}
	routine := func(out string, extra ...string) result {
		return benchEnv(t, env, slicesConcat([]string{"routine", "-c", "examples/weekly-iotdb.properties", "--build", "sh build.sh", "--out", out, "--baseline", "master=git:" + repo + "@good"}, extra)...)
	}
	for ref, want := range map[string]string{
		"broken": "bench: pr (git:" + repo + "@broken): the server could not be made: the build command failed (exit status 1)",
		"empty":  "bench: pr (git:" + repo + "@empty): the server could not be made: the build produced no distribution",
	} {
		out := t.TempDir()
		r := routine(out, "--contender", "pr=git:"+repo+"@"+ref)
		if r.code != 3 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant 3 and %q", ref, r.code, r.stderr, want)
		}
		if ref == "broken" && !strings.Contains(r.stderr, "error: cannot find symbol") {
			t.Errorf("broken: the build's last line is not said:\n%s", r.stderr)
		}
		if strings.Contains(r.stderr, "routine: run 1") || strings.Contains(r.stderr, "starting") {
			t.Errorf("%s: a run or a server started:\n%s", ref, r.stderr)
		}
	}
	out := t.TempDir()
	r := routine(out, "--contender", "pr=git:"+repo+"@same")
	if r.code != 2 || !strings.Contains(r.stderr, "two sides are the same build: master and pr (files ") || !strings.Contains(r.stderr, "--aa") {
		t.Fatalf("identical files: exit %d\n%s", r.code, r.stderr)
	}
	// A build that differs only in the JVM options of its datanode-env.sh
	// is a different build, but the routine's IoTDB script does not read
	// that file: it says so rather than report the sides as compared.
	git("checkout", "-q", "-b", "env", "good")
	write("mkdir -p dist/lib dist/conf && echo jar > dist/lib/iotdb-server-2.0.10.jar && touch dist/conf/iotdb-system.properties && echo 'IOTDB_JMX_OPTS=-XX:+UseSerialGC' > dist/conf/datanode-env.sh\n")
	git("commit", "-qam", "env")
	r = routine(t.TempDir(), "--contender", "pr=git:"+repo+"@env", "--dry-run")
	if want := "warning: side pr's conf/datanode-env.sh differs from side master's, and the routine does not read it"; r.code != 0 || !strings.Contains(r.stderr, want) ||
		strings.Contains(r.stderr, "confignode-env.sh differs") {
		t.Errorf("a build that changed datanode-env.sh: exit %d, want 0 and %q:\n%s", r.code, want, r.stderr)
	}
}

// TestRoutineExternal: a side tsbench cannot provision runs the config's
// START_COMMAND before each of its runs and STOP_COMMAND after, and the
// run's own restart uses them too, each seeing TSBENCH_SIDE; with --cold
// clear the runs restart nothing: the commands run only around each run,
// and no record has a stop or start step.
func TestRoutineExternal(t *testing.T) {
	for _, tc := range []struct {
		cold      string
		perCmd    int // calls of each command a side
		restarted bool
	}{
		{"restart", 8, true}, // per run: the routine's start, the cold round's stop and start, the routine's stop
		{"clear", 4, false},  // per run: the routine's start and stop
	} {
		t.Run(tc.cold, func(t *testing.T) {
			out := t.TempDir()
			calls := filepath.Join(t.TempDir(), "calls")
			r := bench(t, append(small, "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=2",
				"--set", "START_COMMAND=echo start $TSBENCH_SIDE >> "+calls, "--set", "STOP_COMMAND=echo stop $TSBENCH_SIDE >> "+calls,
				"--baseline", "a=external", "--contender", "b=external", "--runs", "4", "--cold", tc.cold, "--out", out)...)
			if !aaStated(r) {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			count := countLines(t, calls)
			for _, want := range []string{"start a", "stop a", "start b", "stop b"} {
				if count[want] != tc.perCmd {
					t.Errorf("%q %d times, want %d (4 runs): %v", want, count[want], tc.perCmd, count)
				}
			}
			if len(count) != 4 {
				t.Errorf("calls %v", count)
			}
			recs, damaged := record.Store{Dir: filepath.Join(out, "results")}.List()
			if len(damaged) > 0 || len(recs) != 8 {
				t.Fatalf("%d records, %v", len(recs), damaged)
			}
			for _, rec := range recs {
				restarts := 0
				for _, st := range rec.Steps {
					if st.Name == "stop" || st.Name == "start" {
						restarts++
					}
				}
				if restarted := restarts == 2; restarted != tc.restarted || (!tc.restarted && restarts != 0) {
					t.Errorf("--cold %s: a run with %d stop and start steps", tc.cold, restarts)
				}
			}
			said := strings.Contains(r.stdout, "Cold rounds without a restart (--cold clear)") && strings.Contains(r.stderr, "routine: cold rounds without a restart") &&
				strings.Contains(r.stdout, "\nwarning: with --cold clear and without --duet each side's runs measured one server process")
			if said != !tc.restarted {
				t.Errorf("--cold %s: the summary and the log say clear: %v\n%s", tc.cold, said, r.stdout)
			}
		})
	}
}

// TestRoutineResume: a routine whose third run fails (its server's start
// in the cold round, here an external side's command that fails once)
// stops with exit 3; --resume with the same command line goes on from the
// last complete run in the same order, the failed run's record and log set
// aside, and the report says it resumed. A changed input or configuration
// is refused, and so is a folder with no routine or a finished one.
func TestRoutineResume(t *testing.T) {
	dir := t.TempDir()
	count, ok := filepath.Join(dir, "count"), filepath.Join(dir, "ok")
	start := filepath.Join(dir, "start.sh")
	// The routine's start and the cold round's a run: the 6th call is run
	// 3's cold round.
	script := fmt.Sprintf("n=$(cat %s 2>/dev/null || echo 0); echo $((n+1)) > %s\n[ \"$n\" -ne 5 ] || [ -e %s ]\n", count, count, ok)
	if err := os.WriteFile(start, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "c.properties")
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config.properties"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"routine", "-c", cfg, "--set", "LOOP=23", "--set", "INIT_WAIT_TIME=0", "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=2",
		"--set", "START_COMMAND=sh " + start, "--set", "PASSWORD=s3cret-resume", "--baseline", "a=external", "--contender", "b=external", "--runs", "4", "--out", out}
	if r := bench(t, append(args, "--resume")...); r.code != 2 || !strings.Contains(r.stderr, "holds no routine to resume") {
		t.Fatalf("--resume of nothing: exit %d\n%s", r.code, r.stderr)
	}
	first := bench(t, args...)
	if first.code != 3 || !strings.Contains(first.stderr, "run 3 of 8 (block 2): the run stopped early: start failed") {
		t.Fatalf("exit %d\n%s", first.code, first.stderr)
	}
	if st, err := os.ReadFile(filepath.Join(out, "routine.json")); err != nil || strings.Contains(string(st), "s3cret") || !strings.Contains(string(st), "--set=PASSWORD=******") {
		t.Fatalf("routine.json (%v) holds the password or not its key:\n%s", err, st)
	}
	seed := regexp.MustCompile(`--order-seed (\d+)`).FindStringSubmatch(first.stderr)
	recs := records(t, filepath.Join(out, "results"))
	if len(recs) != 3 || seed == nil {
		t.Fatalf("%d records before the resume, want 2 complete and the failed one; seed %v", len(recs), seed)
	}
	failed := ""
	for _, rec := range recs {
		if rec.Status != record.StatusComplete {
			failed = rec.ID
		}
	}
	if err := os.WriteFile(ok, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := bench(t, append(args, "--resume", "--set", "LOOP=24")...); r.code != 2 || !strings.Contains(r.stderr, "--resume: the routine in "+out+" cannot go on as it began: --set=LOOP=24 is new") {
		t.Fatalf("a changed input: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(cfg, append(shipped, "\n# changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := bench(t, append(args, "--resume")...); r.code != 2 || !strings.Contains(r.stderr, "the configuration "+cfg+" changed") {
		t.Fatalf("a changed configuration: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(cfg, shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	r := bench(t, append(args, "--resume")...)
	if !aaStated(r) && r.code != 1 || !strings.Contains(r.stdout, "Resumed (--resume): runs 1 to 2 were made by an earlier invocation") ||
		!strings.Contains(r.stderr, "routine: resuming "+out+" with --order-seed "+seed[1]+": runs 1 to 2 of 8 were made and complete; 1 run(s) after them set aside") ||
		!regexp.MustCompile(`routine: run 3 of 8: side [ab] \(block 2, position 1\)`).MatchString(r.stderr) || strings.Contains(r.stderr, "run 2 of 8:") {
		t.Fatalf("--resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	slots := map[string]bool{}
	for _, rec := range records(t, filepath.Join(out, "results")) {
		if rec.Status != record.StatusComplete || rec.ID == failed {
			t.Errorf("record %s (%s) among the compared", rec.ID, rec.Status)
		}
		slots[fmt.Sprintf("%s %d %d", rec.Routine.Side, rec.Routine.Block, rec.Routine.Position)] = true
	}
	if len(slots) != 8 {
		t.Errorf("the runs fill %d slots of the order, want 8: %v", len(slots), slots)
	}
	for _, f := range []string{"interrupted/" + failed + ".json", "interrupted/03-*.log", "runs/03-*.log", "runs/08-*.log"} {
		if m, _ := filepath.Glob(filepath.Join(out, f)); len(m) != 1 {
			t.Errorf("%s: %v", f, m)
		}
	}
	if r := bench(t, append(args, "--resume")...); r.code != 2 || !strings.Contains(r.stderr, "finished") {
		t.Fatalf("--resume of a finished routine: exit %d\n%s", r.code, r.stderr)
	}
}

// TestRoutineSameServerAfterFirstBlock: two external sides that are one
// server (here the test suite's Elasticsearch, whose build_hash both runs
// record) are refused once the first block has run, exit 2, naming the
// build; with --aa the same routine goes on, and so does one whose sides
// differ by a key (a comparison of configurations).
func TestRoutineSameServerAfterFirstBlock(t *testing.T) {
	host, port := testES(t)
	args := []string{"routine", "-c", "examples/elasticsearch.properties", "--set", "HOST=" + host, "--set", "PORT=" + port,
		"--set", "LOOP=24", "--set", "GROUP_NUMBER=1", "--set", "DEVICE_NUMBER=2", "--set", "DATA_CLIENT_NUMBER=2", "--set", "DB_NAME=tsbench_routine_same", "--baseline", "a=external", "--contender", "b=external", "--runs", "4"}
	out := t.TempDir()
	r := bench(t, append(args, "--out", out)...)
	if r.code != 2 || !strings.Contains(r.stderr, "two sides are the same build: the servers reported it after the first block: a and b (Elasticsearch ") || !strings.Contains(r.stderr, "--aa") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(records(t, filepath.Join(out, "results"))); n != 2 {
		t.Fatalf("%d runs before the refusal, want the first block's 2", n)
	}
	out = t.TempDir()
	if r := bench(t, append(args, "--out", out, "--aa")...); !aaStated(r) || !strings.Contains(r.stdout, "SAME SERVER BUILD: a and b both measured Elasticsearch ") {
		t.Fatalf("declared A/A: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// One build in two configurations: no --aa, and no refusal; the
	// report says what it compares.
	out = t.TempDir()
	r = bench(t, append(args, "--out", out, "--side-set", "b:ES_REFRESH_INTERVAL=2s")...)
	if r.code != 0 && r.code != 1 && r.code != 4 || !strings.Contains(r.stdout, "SAME SERVER BUILD: a and b both measured Elasticsearch ") ||
		!strings.Contains(r.stdout, "a comparison of configurations") || !strings.Contains(r.stdout, `CONFIGURATION CHANGE: a → b: ES_REFRESH_INTERVAL "1s" → "2s" (--side-set)`) {
		t.Fatalf("config sides: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// countLines counts each line of a file that commands appended to.
func countLines(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		count[line]++
	}
	return count
}

// testES is the test suite's Elasticsearch (TSBENCH_ES), as testServer.
func testES(t *testing.T) (host, port string) {
	t.Helper()
	return testServer(t, "TSBENCH_ES", "Elasticsearch", "scripts/elasticsearch start, then TSBENCH_ES=127.0.0.1:9200")
}

// testSecureES is the test suite's secured Elasticsearch (TSBENCH_ES_SECURE)
// and the CA it is trusted by (TSBENCH_ES_SECURE_CA), as testServer.
func testSecureES(t *testing.T) (host, port, ca string) {
	t.Helper()
	host, port = testServer(t, "TSBENCH_ES_SECURE", "the secured Elasticsearch",
		"ES_SECURITY=1 ES_PORT=9202 scripts/elasticsearch start, then TSBENCH_ES_SECURE=127.0.0.1:9202 TSBENCH_ES_SECURE_CA=<its state>/certs/ca.pem")
	return host, port, os.Getenv("TSBENCH_ES_SECURE_CA")
}

// testServer is the host and port in env: CI must have it, elsewhere a
// test without it skips and says how to start the server.
func testServer(t *testing.T, env, what, how string) (host, port string) {
	t.Helper()
	addr := os.Getenv(env)
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs this test against %s: %s is needed", what, env)
		}
		t.Skipf("needs %s: %s", what, how)
	}
	host, port, _ = strings.Cut(addr, ":")
	return host, port
}

// TestRoutineTrack: a routine of a Rally track's ingest (no query rounds)
// on the test suite's Elasticsearch, through external sides whose commands
// write down each call: the routine starts and stops each side around each
// run, the runs themselves restart nothing, the log says once why, and
// the report measures the documents in documents/s and MB/s.
func TestRoutineTrack(t *testing.T) {
	host, port := testES(t)
	dir := t.TempDir()
	var docs strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&docs, "{\"@timestamp\": %d, \"clientip\": \"10.0.%d.%d\", \"request\": \"GET /%d HTTP/1.1\", \"status\": 200, \"size\": %d}\n", 893964617+i, i/250, i%250, i, 100+i%900)
	}
	track := fmt.Sprintf(`{"indices": [{"name": "tsbench_routine_logs"}], "corpora": [{"name": "c", "documents": [{"source-file": "d.json", "target-index": "tsbench_routine_logs", "document-count": 3000, "uncompressed-bytes": %d}]}],
	  "schedule": [{"operation": {"operation-type": "bulk", "bulk-size": 100}, "clients": 2}]}`, docs.Len())
	if err := os.WriteFile(filepath.Join(dir, "track.json"), []byte(track), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(docs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(t.TempDir(), "calls")
	out := t.TempDir()
	r := bench(t, "routine", "-c", "examples/elasticsearch.properties", "--set", "HOST="+host, "--set", "PORT="+port, "--set", "TRACK_PATH="+dir,
		"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "QUERY_ROUNDS=0",
		"--set", "START_COMMAND=echo start $TSBENCH_SIDE >> "+calls, "--set", "STOP_COMMAND=echo stop $TSBENCH_SIDE >> "+calls,
		"--baseline", "a=external", "--contender", "b=external", "--aa", "--runs", "4", "--out", out)
	if !aaStated(r) && r.code != 1 || !strings.Contains(r.stderr, "routine: "+routine.NoRoundsWords) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	count := countLines(t, calls)
	if len(count) != 4 || count["start a"] != 4 || count["stop a"] != 4 || count["start b"] != 4 || count["stop b"] != 4 {
		t.Errorf("the commands ran %v, want each 4 times: around each run, by the routine alone", count)
	}
	for _, rec := range records(t, filepath.Join(out, "results")) {
		for _, st := range rec.Steps {
			if st.Name == "stop" || st.Name == "start" {
				t.Errorf("run %s restarted its server (%s)", rec.ID, st.Name)
			}
		}
		if rec.Config[runner.TrackKey] == "" || len(rec.Phases) == 0 || rec.Phases[0].Operations[0].OKOps == 0 {
			t.Errorf("run %s: not the track's ingest: %v", rec.ID, rec.Config[runner.TrackKey])
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"| throughput (docs/s) ", "| throughput (MB/s) "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md without %q:\n%s", want, md)
		}
	}
}

// TestRoutineSecured: a routine against the test suite's Elasticsearch
// with security on, over HTTPS as the least-privilege user the scripts
// make (tsbench: monitor, and all on tsbench* indices), through external
// sides: it runs to a verdict, and the password is in no output, record,
// report or the routine's state.
func TestRoutineSecured(t *testing.T) {
	host, port, ca := testSecureES(t)
	const password = "tsbench-pass"
	out := t.TempDir()
	r := bench(t, "routine", "-c", "examples/elasticsearch.properties", "--set", "HOST="+host, "--set", "PORT="+port, "--set", "USE_SSL=true",
		"--set", "ES_CA_FILE="+ca, "--set", "USERNAME=tsbench", "--set", "PASSWORD="+password,
		"--set", "LOOP=24", "--set", "GROUP_NUMBER=1", "--set", "DEVICE_NUMBER=2", "--set", "DATA_CLIENT_NUMBER=2", "--set", "DB_NAME=tsbench_routine_secured",
		"--baseline", "a=external", "--contender", "b=external", "--aa", "--runs", "4", "--out", out)
	if !aaStated(r) && r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	noSecretIn(t, r, out, password)
	if n := len(records(t, filepath.Join(out, "results"))); n != 8 {
		t.Fatalf("%d records, want 8", n)
	}
}

// TestRoutinePipelineSides: seed report 2's shape, small: one secured
// Elasticsearch (the test suite's) in two configurations, a Rally track
// ingested through an empty ingest pipeline and through one with a
// processor (set_security_user), as the superuser who may make pipelines,
// through external sides. No --aa: the routine takes the sides' one
// TRACK_CHALLENGE key for the change, names it in the report, and every
// run sends the track's documents, each side through its own pipeline.
func TestRoutinePipelineSides(t *testing.T) {
	host, port, ca := testSecureES(t)
	const docs, password = 5000, "tsbench-elastic" // the scripts' superuser
	track := filepath.Join(t.TempDir(), "track")
	mk := exec.Command("go", "run", "./tools/maketrack", "-out", track, "-docs", fmt.Sprint(docs), "-bulk-size", "500", "-clients", "2")
	mk.Dir = filepath.Join("..", "..")
	if b, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("maketrack: %v\n%s", err, b)
	}
	out := t.TempDir()
	r := bench(t, "routine", "-c", "config.properties", "--set", "DB_SWITCH=Elasticsearch", "--set", "HOST="+host, "--set", "PORT="+port, "--set", "USE_SSL=true",
		"--set", "ES_CA_FILE="+ca, "--set", "USERNAME=elastic", "--set", "PASSWORD="+password, "--set", "TRACK_PATH="+track,
		"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "QUERY_ROUNDS=0", "--set", "VERIFY=true", "--set", "INIT_WAIT_TIME=0",
		"--set", "START_COMMAND=true", "--set", "STOP_COMMAND=true",
		"--side-set", "empty:TRACK_CHALLENGE=append-empty-pipeline", "--side-set", "user:TRACK_CHALLENGE=append-user-pipeline",
		"--baseline", "empty=external", "--contender", "user=external", "--runs", "4", "--out", out)
	const change = `CONFIGURATION CHANGE: empty → user: TRACK_CHALLENGE "append-empty-pipeline" → "append-user-pipeline" (--side-set)`
	if r.code != 0 && r.code != 1 && r.code != 4 || !strings.Contains(r.stdout, change) || !strings.Contains(r.stdout, "a comparison of configurations") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	noSecretIn(t, r, out, password)
	recs := records(t, filepath.Join(out, "results"))
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, rec := range recs {
		want := map[string]string{"empty": "append-empty-pipeline", "user": "append-user-pipeline"}[rec.Routine.Side]
		if got := rec.Config["TRACK_CHALLENGE"]; got != want {
			t.Errorf("side %s's run took challenge %q, want %q", rec.Routine.Side, got, want)
		}
		if why := rec.Failure(0); why != "" || len(rec.Phases) == 0 || rec.Phases[0].Operations[0].OKOps == 0 {
			t.Errorf("side %s's run: failed %q or ingested nothing", rec.Routine.Side, why)
		}
	}
}

// noSecretIn fails the test where the secret is in the command's output or
// in any file under dir.
func noSecretIn(t *testing.T, r result, dir, secret string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatal("the secret is in the command's output")
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the secret is in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRoutineSecuredSides: seed report 4's shape (a secured server over
// many indices with aliases, against a server tsbench cannot start), small.
// The baseline is a release the routine starts itself with USE_SSL=true: it
// makes USERNAME on the node with the config's PASSWORD (not the script's
// default, so the runs succeed only if it did), and each run trusts that
// side's own CA. The contender is external: a secured node started before
// the routine on a port of its own, which the side's commands stop and
// start around each run (the first start finds it up). The baseline is
// kept running and the runs make no query rounds, so that five secured
// starts (20-40 s each) are all the test costs: about two minutes. The
// password is in no output and no file.
func TestRoutineSecuredSides(t *testing.T) {
	if os.Getenv("TSBENCH_ES_SECURE") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs this test beside the secured Elasticsearch (its zip and openssl): TSBENCH_ES_SECURE is needed")
		}
		t.Skip("needs what the secured Elasticsearch needs (scripts/elasticsearch install, openssl): ES_SECURITY=1 ES_PORT=9202 scripts/elasticsearch start, then TSBENCH_ES_SECURE=127.0.0.1:9202; this test starts nodes of its own on 9260-9261")
	}
	const password = "routine-made-7f3a"
	// The role's indices are matched as the adapter names them, lower case,
	// and USE_SSL in any case a boolean takes.
	if r := bench(t, "routine", "-c", "examples/elasticsearch.properties", "--set", "USE_SSL=True", "--set", "USERNAME=tsbench", "--set", "DB_NAME=TSBENCH_Upper",
		"--baseline", "a=elasticsearch:8.19.21", "--contender", "b=elasticsearch:8.19.21", "--aa", "--dry-run", "--out", t.TempDir()); r.code != 0 {
		t.Fatalf("--dry-run with DB_NAME=TSBENCH_Upper: exit %d\n%s", r.code, r.stderr)
	}
	out := t.TempDir()
	// As root the nodes' state is under /var/lib/tsbench, where the node's
	// user can enter, not in out.
	external := provision.StateFolder(provision.Elasticsearch, filepath.Join(out, "external"), "b")
	calls := filepath.Join(t.TempDir(), "calls")
	es := "ES_SECURITY=1 ES_PORT=9261 ES_HOME_DIR=" + external + ` ES_USER_PASSWORD="$TSBENCH_TEST_PASSWORD" bash scripts/elasticsearch`
	env := []string{"TSBENCH_TEST_PASSWORD=" + password}
	script := func(action string) error {
		cmd := exec.Command("sh", "-c", es+" "+action)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), env...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", action, err, b)
		}
		return nil
	}
	t.Cleanup(func() {
		if err := script("wipe"); err != nil {
			t.Error(err)
		}
		for _, d := range []string{external, provision.StateFolder(provision.Elasticsearch, filepath.Join(out, "servers"), "a")} {
			if d := filepath.Dir(d); strings.HasPrefix(d, "/var/lib/tsbench/routine-") {
				os.RemoveAll(d)
			}
		}
	})
	if err := script("wipe && " + es + " start"); err != nil {
		t.Fatal(err)
	}
	r := benchEnv(t, env, "routine", "-c", "examples/es-many-indices.properties", "--set", "PORT=9260", "--set", "PASSWORD="+password,
		"--set", "ES_EXTRA_INDICES=20", "--set", "DEVICE_NUMBER=4", "--set", "DATA_CLIENT_NUMBER=2", "--set", "TEST_MAX_TIME=3000", "--set", "QUERY_ROUNDS=0",
		"--set", "START_COMMAND=echo start >> "+calls+" && "+es+" start", "--set", "STOP_COMMAND=echo stop >> "+calls+" && "+es+" stop",
		"--side-set", "b:PORT=9261", "--side-set", "b:ES_CA_FILE="+filepath.Join(external, "certs", "ca.pem"),
		"--baseline", "a=elasticsearch:8.19.21", "--contender", "b=external", "--aa", "--keep-running", "--warmup-runs", "0", "--runs", "4", "--out", out)
	if !aaStated(r) && r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "HTTPS with the CA") {
		t.Errorf("the log does not say the routine's node was secured:\n%s", r.stderr)
	}
	noSecretIn(t, r, out, password)
	noSecretIn(t, r, filepath.Dir(external), password)
	if count := countLines(t, calls); len(count) != 2 || count["start"] != 4 || count["stop"] != 4 {
		t.Errorf("the external side's commands ran %v, want each 4 times: around each of its runs", count)
	}
	if err := exec.Command("sh", "-c", "exec 3<>/dev/tcp/127.0.0.1/9261").Run(); err == nil {
		t.Error("the external node still listens after the routine: its STOP_COMMAND did not stop it")
	}
	recs := records(t, filepath.Join(out, "results"))
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, rec := range recs {
		side := rec.Routine.Side
		ca := filepath.Join(provision.StateFolder(provision.Elasticsearch, filepath.Join(out, "servers"), side), "certs", "ca.pem")
		if side == "b" {
			ca = filepath.Join(external, "certs", "ca.pem")
		}
		if got := rec.Config["ES_CA_FILE"]; got != ca {
			t.Errorf("side %s's run trusted %q, want its own CA %s", side, got, ca)
		}
		if why := rec.Failure(0); why != "" {
			t.Errorf("side %s's run failed: %s", side, why)
		}
		if len(rec.Phases) == 0 || rec.Phases[0].Operations[0].OKOps == 0 {
			t.Errorf("side %s's run ingested nothing", side)
		}
	}
}

// TestDropCachesSaid: a run whose lifecycle drops the caches with the
// default command says once that it drops the whole machine's page cache
// and how to turn it off, --dry-run too; a command the user chose is not
// said again.
func TestDropCachesSaid(t *testing.T) {
	const want = `note: the lifecycle step runs DROP_CACHES_COMMAND's default, "sync; echo 3 > /proc/sys/vm/drop_caches": as root it drops the page cache of the whole machine`
	r := bench(t, "run", "-c", "config.properties", "--set", "QUERY_ROUNDS=1", "--dry-run")
	if r.code != 0 || strings.Count(r.stderr, want) != 1 || !strings.Contains(r.stderr, "DROP_CACHES_COMMAND= turns it off") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, set := range []string{"DROP_CACHES_COMMAND=", "DROP_CACHES_COMMAND=true", "QUERY_ROUNDS=0"} {
		if r := bench(t, "run", "-c", "config.properties", "--set", "QUERY_ROUNDS=1", "--set", set, "--dry-run"); r.code != 0 || strings.Contains(r.stderr, "DROP_CACHES_COMMAND's default") {
			t.Errorf("--set %s: exit %d, stderr %q", set, r.code, r.stderr)
		}
	}
}

// delayTarget is the Null database answering each operation in 5–7 ms
// (tools/gate-proof's delay target), for routines whose verdicts must come
// quickly and surely.
var delayTarget = []string{"routine", "-c", "config.properties", "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=2", "--set", "GROUP_NUMBER=1",
	"--set", "DATA_CLIENT_NUMBER=2", "--set", "LOOP=60", "--set", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "--set", "INIT_WAIT_TIME=0",
	"--set", "VERIFY=false", "--set", "NULL_DELAY_MS=5", "--set", "NULL_JITTER_MS=2", "--set", "NULL_SLOW_OPERATION=PRECISE_POINT",
	"--baseline", "a=embedded", "--contender", "b=embedded", "--runs", "4"}

// TestRoutineStopsWhenItKnows: with --budget the routine looks after its
// first 4 runs a side and at 6, 8, 10, 14, ... (routine.LookRuns; at most
// 14 looks with a budget), and stops at the look
// that decides (a 30% slowdown early), at the budget, or at its last look
// (saying how much budget was left and the looks that would have used it);
// the report says where and why, and the records are the runs made.
func TestRoutineStopsWhenItKnows(t *testing.T) {
	const passed = "because every gated row is proven within the limit"
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		look  int // 0: any look before the last
		looks int
		why   string
	}{
		{"a 30% slowdown", []string{"--side-set", "b:NULL_SLOWDOWN_PCT=30", "--budget", "10m"}, 1, 0, routine.DefaultLooks, "because a regression is shown"},
		{"a limit no run can prove, and a budget spent", []string{"--fail-above", "0.1", "--budget", "1s"}, 4, 1, routine.DefaultLooks, "would not fit in --budget 1s: this look spent the levels left. "},
		{"two looks and no budget", []string{"--fail-above", "0.1", "--looks", "2"}, 4, 2, 2, "because it was the last look"},
		{"two looks and time to spare", []string{"--fail-above", "0.1", "--looks", "2", "--budget", "10m"}, 4, 2, 2, "because it was the last look, with 9m"},
	} {
		out := t.TempDir()
		r := bench(t, append(slices.Clone(delayTarget), append(c.args, "--out", out)...)...)
		m := regexp.MustCompile(`stopped at look (\d+) of at most`).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Errorf("%s: exit %d, no look said:\n%s\n%s", c.name, r.code, r.stdout, r.stderr)
			continue
		}
		look, _ := strconv.Atoi(m[1])
		code, why := c.code, c.why
		switch {
		case c.look == 0 && look == c.looks:
			// Where a real slowdown is shown depends on the machine's noise
			// (the first look spends only α/DefaultLooks²), but not at the last look.
			t.Errorf("%s: did not stop before its last look:\n%s", c.name, r.stdout)
			continue
		case c.code == 4 && r.code == 0 && look <= c.look:
			// A throughput row can be proven within even 0.1% when the
			// contender happens to be faster by enough (seen about once in
			// 15): that is a stop too, and must be said as one.
			code, why = 0, passed
		case c.look != 0 && look != c.look:
			t.Errorf("%s: stopped at look %d, want %d:\n%s", c.name, look, c.look, r.stdout)
			continue
		}
		if r.code != code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", c.name, r.code, code, r.stdout, r.stderr)
			continue
		}
		runs := routine.LookRuns(4, c.looks, 2)[look-1]
		want := fmt.Sprintf("Sequential: the routine stopped at look %d of at most %d (%d runs a side) ", look, c.looks, runs)
		md, _ := os.ReadFile(filepath.Join(out, "report.md"))
		for what, text := range map[string]string{"stdout": r.stdout, "report.md": string(md)} {
			if !strings.Contains(text, want) || !strings.Contains(text, why) {
				t.Errorf("%s: %s does not say %q ... %q:\n%s", c.name, what, want, why, text)
			}
		}
		// A look after which no pair fits spends every level left: at
		// look 1 the whole α.
		if spent := "This look: α=0.01, intervals at 90%."; strings.Contains(c.why, "spent the levels left") && !strings.Contains(r.stdout, spent) {
			t.Errorf("%s: stdout does not say %q:\n%s", c.name, spent, r.stdout)
		}
		verdict := map[int]string{0: "Gate passed", 1: "Gate failed", 4: "Gate inconclusive"}[code]
		if line := fmt.Sprintf("look %d of at most %d, %d runs a side: %s", look, c.looks, runs, verdict); !strings.Contains(r.stderr, line) {
			t.Errorf("%s: stderr does not say %q:\n%s", c.name, line, r.stderr)
		}
		recs, err := record.Store{Dir: filepath.Join(out, "results")}.List()
		if err != nil || len(recs) != 2*runs {
			t.Errorf("%s: %d records (%v), want %d", c.name, len(recs), err, 2*runs)
		}
	}
	r := bench(t, append(slices.Clone(delayTarget), "--budget", "-1m", "--out", t.TempDir())...)
	if r.code != 2 || !strings.Contains(r.stderr, "--budget -1m0s --looks 0: a duration and a number of looks, 0 or more") {
		t.Errorf("a negative budget: exit %d\n%s", r.code, r.stderr)
	}
}

// TestRoutineConfigSides: sides that differ only by their --side-set keys
// are a comparison of configurations without --aa: the log, the summary,
// report.md and report.json name the keys and their values, every record
// carries them, and compare takes the runs although their workloads differ
// in those keys. With --aa the report calls it an A/A, as declared.
func TestRoutineConfigSides(t *testing.T) {
	out := t.TempDir()
	r := bench(t, append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--side-set", "b:BATCH_SIZE_PER_WRITE=50", "--runs", "4", "--out", out)...)
	const change = `CONFIGURATION CHANGE: a → b: BATCH_SIZE_PER_WRITE "100" → "50" (--side-set); the ratios measure this change.`
	if r.code != 0 && r.code != 1 && r.code != 4 || !strings.Contains(r.stdout, change) || !strings.Contains(r.stderr, "routine: the sides differ in BATCH_SIZE_PER_WRITE (--side-set): a comparison of configurations") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	js, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if !strings.Contains(string(md), change) || !strings.Contains(string(js), `"changes": [`) {
		t.Errorf("report.md or report.json without the change:\n%s", md)
	}
	for _, rec := range records(t, filepath.Join(out, "results")) {
		if rec.Routine == nil || !slices.Equal(rec.Routine.Change, []string{"BATCH_SIZE_PER_WRITE"}) || rec.Routine.AA {
			t.Fatalf("record %s: %+v", rec.ID, rec.Routine)
		}
	}
	again := bench(t, "compare", "a", "b", "--results", filepath.Join(out, "results"))
	if again.code != 0 && again.code != 1 && again.code != 4 || !strings.Contains(again.stdout, change) {
		t.Fatalf("compare of the routine's runs: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
	out = t.TempDir()
	aa := bench(t, append(small, "--baseline", "a=embedded", "--contender", "b=embedded", "--side-set", "b:BATCH_SIZE_PER_WRITE=50", "--aa", "--runs", "4", "--out", out)...)
	if aa.code != 2 || !strings.Contains(aa.stderr, "BATCH_SIZE_PER_WRITE") || strings.Contains(aa.stdout, "CONFIGURATION CHANGE") {
		t.Fatalf("--aa with a change: exit %d\n%s\n%s", aa.code, aa.stdout, aa.stderr)
	}
}

// TestRoutineWarmupRuns: --warmup-runs makes each side's warm-up runs
// before block 1, their records in OUT/warmup, out of the comparison; the
// dry run lists them and the summary says what they took.
func TestRoutineWarmupRuns(t *testing.T) {
	args := append(slices.Clone(small), "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=2", "--baseline", "a=embedded", "--contender", "b=embedded", "--runs", "4", "--warmup-runs", "1")
	dry := bench(t, append(slices.Clone(args), "--dry-run", "--out", t.TempDir())...)
	if dry.code != 0 || !strings.Contains(dry.stdout, "  warm-up run 1: side a (not compared)\n  warm-up run 1: side b (not compared)\n  run 1: side ") {
		t.Fatalf("dry run: exit %d\n%s\n%s", dry.code, dry.stdout, dry.stderr)
	}
	out := t.TempDir()
	r := bench(t, append(args, "--out", out)...)
	if !aaStated(r) || !strings.Contains(r.stdout, "the warm-up runs ") || !strings.Contains(r.stderr, "routine: warm-up run 1 of side b, not compared") ||
		!strings.Contains(r.stdout, "Routine: a vs b, 4 runs a side") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	warm, damaged := record.Store{Dir: filepath.Join(out, "warmup")}.List()
	measured, damaged2 := record.Store{Dir: filepath.Join(out, "results")}.List()
	if len(damaged)+len(damaged2) > 0 || len(warm) != 2 || len(measured) != 8 {
		t.Fatalf("%d warm-up records, %d measured (want 2 and 8): %v %v", len(warm), len(measured), damaged, damaged2)
	}
	for _, rec := range warm {
		if rec.Routine == nil || !rec.Routine.Warmup || rec.Routine.Block != 0 {
			t.Errorf("warm-up record %s: %+v", rec.ID, rec.Routine)
		}
		for _, m := range measured {
			if !rec.StartedAt.Before(m.StartedAt) {
				t.Errorf("warm-up run %s started after measured run %s", rec.ID, m.ID)
			}
		}
	}
	for _, rec := range measured {
		if rec.Routine == nil || rec.Routine.Warmup || rec.Routine.Block == 0 {
			t.Errorf("measured record %s: %+v", rec.ID, rec.Routine)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "warmup-1-a.log")); err != nil {
		t.Error(err)
	}
}

// TestRoutineDuet: --duet makes each block's runs at the same time, every
// phase of one side beginning with the other side's (each run lasts about
// a second on the delay target, so runs made one after the other would
// start a second apart), the blocks tested in pairs; the summary says so.
// TestRoutineDefaultDesign: without a design flag the routine is a duet
// where one fits and stops when it knows within 30 minutes; where no duet
// fits (embedded sides, a configuration a server kept running cannot take)
// it says why and takes turns; --runs alone makes exactly that many runs.
func TestRoutineDefaultDesign(t *testing.T) {
	const (
		sequential = "Sequential: looks after 6, 8, 10, 14, …, 150 runs a side, at most 14 looks, within --budget 30m0s"
		duet       = "\nDuet (--duet): each block's runs made at the same time"
	)
	iotdb := []string{"routine", "-c", "examples/weekly-iotdb.properties", "--baseline", "a=iotdb:2.0.10", "--contender", "b=iotdb:2.0.10", "--aa", "--dry-run"}
	for _, c := range []struct {
		name      string
		args      []string
		duet, seq bool
		why       string
	}{
		{"two IoTDB releases", iotdb, true, true, ""},
		{"IS_DELETE_DATA=false", append(slices.Clone(iotdb), "--set", "IS_DELETE_DATA=false"), false, true, "routine: no duet (the default where one fits): IS_DELETE_DATA=false: "},
		{"--duet=false", append(slices.Clone(iotdb), "--duet=false"), false, true, ""},
		{"--runs alone", append(slices.Clone(iotdb), "--runs", "4"), true, false, ""},
		{"embedded sides", append(slices.Clone(small), "--baseline", "a=embedded", "--contender", "b=embedded", "--aa", "--dry-run"), false, true,
			"routine: no duet (the default where one fits): side a is embedded: it has no server to keep running beside the others; the sides' runs take turns instead"},
	} {
		r := bench(t, append(c.args, "--out", t.TempDir())...)
		if r.code != 0 {
			t.Errorf("%s: exit %d\n%s", c.name, r.code, r.stderr)
			continue
		}
		if strings.Contains(r.stdout, duet) != c.duet || strings.Contains(r.stdout, sequential) != c.seq || !strings.Contains(r.stderr, c.why) ||
			c.why == "" && strings.Contains(r.stderr, "no duet") {
			t.Errorf("%s: want duet %v, sequential %v, %q:\n%s\n%s", c.name, c.duet, c.seq, c.why, r.stdout, r.stderr)
		}
	}
}

// TestRoutineRestartLooks: a sequential routine that restarts its servers
// looks only after whole server processes, the first after three a side,
// and says so before it begins; --runs then gives no smaller first look.
func TestRoutineRestartLooks(t *testing.T) {
	args := []string{"routine", "-c", "examples/weekly-iotdb.properties", "--baseline", "a=iotdb:2.0.10", "--contender", "b=iotdb:2.0.10", "--aa", "--dry-run", "--restart-every", "8"}
	for _, c := range []struct {
		more       []string
		first, seq string
	}{
		{nil, "Routine: 24 runs a side", "Sequential: looks after 24, 32, 40, 56, …, 600 runs a side (after whole server processes of 8 blocks, the first after 3: a process is a sample of the tests), at most 14 looks, within --budget 30m0s"},
		{[]string{"--runs", "10", "--budget", "1h", "--looks", "3"}, "Routine: 24 runs a side", "Sequential: looks after 24, 32, 40 runs a side (after whole server processes of 8 blocks, the first after 3"},
	} {
		r := bench(t, append(append(slices.Clone(args), c.more...), "--out", t.TempDir())...)
		if r.code != 0 || !strings.Contains(r.stdout, c.first) || !strings.Contains(r.stdout, c.seq) {
			t.Errorf("%v: exit %d, want %q and %q:\n%s\n%s", c.more, r.code, c.first, c.seq, r.stdout, r.stderr)
		}
	}
	// One look, no budget: exactly the runs asked, restarts or not.
	r := bench(t, append(slices.Clone(args), "--runs", "6", "--out", t.TempDir())...)
	if r.code != 0 || !strings.Contains(r.stdout, "Routine: 6 runs a side") || strings.Contains(r.stdout, "Sequential:") {
		t.Errorf("--runs 6: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestRoutineDuet(t *testing.T) {
	out := t.TempDir()
	r := bench(t, append(slices.Clone(small), "--set", "DB_SWITCH=Null", "--set", "NULL_DELAY_MS=10", "--set", "VERIFY=false", "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=3",
		"--baseline", "a=embedded", "--contender", "b=embedded", "--aa", "--duet", "--runs", "4", "--out", out)...)
	if !aaStated(r) || !strings.Contains(r.stdout, "(tested in pairs within blocks)") || !strings.Contains(r.stdout, "\nDuet (--duet): each block's runs made at the same time") ||
		!strings.Contains(r.stderr, "routine: block 4 (runs 7 to 8 of 8): every side at once (--duet)") || strings.Contains(r.stdout, "warning: with --cold clear and without --duet") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs, damaged := record.Store{Dir: filepath.Join(out, "results")}.List()
	if len(damaged) > 0 || len(recs) != 8 {
		t.Fatalf("%d records, %v", len(recs), damaged)
	}
	byBlock := map[int][]*record.Record{}
	for _, rec := range recs {
		byBlock[rec.Routine.Block] = append(byBlock[rec.Routine.Block], rec)
	}
	for b, pair := range byBlock {
		if len(pair) != 2 || pair[0].Label == pair[1].Label || len(pair[0].Phases) != len(pair[1].Phases) {
			t.Fatalf("block %d: %d runs", b, len(pair))
		}
		if d := pair[0].FinishedAt.Sub(pair[0].StartedAt); d < 800*time.Millisecond {
			t.Fatalf("a run of %s: too short to tell runs at once from runs in turn", d)
		}
		for i := range pair[0].Phases {
			gap := pair[0].Phases[i].StartedAt.Sub(pair[1].Phases[i].StartedAt).Abs()
			if gap > 300*time.Millisecond {
				t.Errorf("block %d, phase %s: the sides began %s apart", b, pair[0].Phases[i].Group(), gap)
			}
		}
	}
}
