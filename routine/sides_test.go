package routine

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/elasticsearch"
	"github.com/tsbench/tsbench/adapters/null"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/pipeline"
	"github.com/tsbench/tsbench/record"
)

func TestParseSidesAndSideSets(t *testing.T) {
	sides, err := ParseSides("master=iotdb:2.0.10", []string{"pr=embedded", "other=external"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sides) != 3 || sides[0].Name != "master" || sides[1].Form != Embedded || sides[2].Form != External {
		t.Fatalf("sides %+v", sides)
	}
	if _, err := ParseSides("a=embedded", []string{"b=embedded", "a=external"}); err == nil || !strings.Contains(err.Error(), "--contender=a=external: the name a is taken") {
		t.Errorf("a name two sides take: %v", err)
	}
	if _, err := ParseSides("master", nil); err == nil || !strings.HasPrefix(err.Error(), "--baseline=") {
		t.Errorf("a baseline without a server: %v", err)
	}
	per, err := SideSets([]string{"pr:LOOP=3", "pr:BATCH_SIZE_PER_WRITE=2", "master:LOOP=4"}, sides)
	if err != nil || strings.Join(per["pr"], ",") != "LOOP=3,BATCH_SIZE_PER_WRITE=2" || len(per["master"]) != 1 {
		t.Errorf("side sets %v, %v", per, err)
	}
	for _, bad := range []string{"nobody:LOOP=3", "pr-LOOP=3", "pr:LOOP"} {
		if _, err := SideSets([]string{bad}, sides); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("--side-set=%s: %v", bad, err)
		}
	}
}

func TestEvenRuns(t *testing.T) {
	for _, c := range []struct {
		asked, runs int
		note, err   string
	}{
		{asked: 6, runs: 6},
		{asked: 4, runs: 4},
		{asked: 3, runs: 4, note: "--runs=3 rounded up to 4"},
		{asked: 2, err: "--runs=2: the gate tests 3 runs a side or more"},
		{asked: 0, err: "--runs=0"},
	} {
		runs, note, err := EvenRuns(c.asked)
		switch {
		case c.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("%d: %v, want %q", c.asked, err, c.err)
			}
		case err != nil || runs != c.runs || !strings.HasPrefix(note, c.note) || (c.note == "") != (note == ""):
			t.Errorf("%d: %d %q %v, want %d %q", c.asked, runs, note, err, c.runs, c.note)
		}
	}
}

func TestFits(t *testing.T) {
	iotdb := []string{"iotdb"}
	es := []string{"elasticsearch", "opensearch"}
	for _, c := range []struct {
		spec     string
		servers  []string
		embedded bool
		err      string
	}{
		{spec: "iotdb:2.0.10", servers: iotdb},
		{spec: "opensearch:2.19.6", servers: es},
		{spec: "external", servers: iotdb},
		{spec: "external", embedded: true},
		{spec: "embedded", embedded: true},
		{spec: "embedded", servers: iotdb, err: "side s is embedded, but DB_SWITCH=DB needs a server (give iotdb:VERSION"},
		{spec: "iotdb:2.0.10", embedded: true, err: "side s=iotdb:2.0.10: DB_SWITCH=DB has no server to start (give s=embedded)"},
		{spec: "iotdb:2.0.10", servers: es, err: "DB_SWITCH=DB measures elasticsearch or opensearch, not iotdb"},
	} {
		s, err := ParseSide("--baseline", "s="+c.spec)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Fits("DB", c.servers, c.embedded)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s on %v (embedded %v): %v, want %q", c.spec, c.servers, c.embedded, err, c.err)
		}
	}
}

func TestSameBuildsSeen(t *testing.T) {
	sides, _ := ParseSides("master=external", []string{"pr=external"})
	run := func(side, build string) *record.Record {
		return &record.Record{Routine: &record.Routine{Side: side}, Target: record.Target{DB: "IoTDB", Version: "2.0.10", Build: build}}
	}
	same := []*record.Record{run("master", "3c26382"), run("pr", "3c26382"), run("pr", "other")}
	err := SameBuildsSeen(same, sides, false)
	if !errors.Is(err, ErrSameBuild) || !strings.Contains(err.Error(), "master and pr (2.0.10 build 3c26382)") {
		t.Errorf("one build on both sides: %v", err)
	}
	if err := SameBuildsSeen(same, sides, true); err != nil {
		t.Errorf("a declared A/A: %v", err)
	}
	if err := SameBuildsSeen([]*record.Record{run("master", "3c26382"), run("pr", "a0b1c2d")}, sides, false); err != nil {
		t.Errorf("two builds: %v", err)
	}
	if err := SameBuildsSeen([]*record.Record{run("master", ""), run("pr", "")}, sides, false); err != nil {
		t.Errorf("servers that report no build are never called the same: %v", err)
	}
}

func TestAnswersByDefault(t *testing.T) {
	reg := adapters.Registry{sqlite.Driver(), null.Driver(), elasticsearch.Driver()}
	file := filepath.Join(t.TempDir(), "c.properties")
	if err := os.WriteFile(file, []byte("LOOP=10\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1\nOPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0\nSQLITE_PATH="+filepath.Join(t.TempDir(), "db")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		sets      []string
		on        bool
		unchecked string
		chosen    bool
	}{
		{name: "the routine turns it on", sets: []string{"QUERY_ROUNDS=1"}, on: true},
		{name: "the config chose it", sets: []string{"QUERY_ROUNDS=1", "CHECK_ANSWERS=true"}, on: true, chosen: true},
		{name: "the config chose against", sets: []string{"QUERY_ROUNDS=1", "CHECK_ANSWERS=false"}, unchecked: "CHECK_ANSWERS=false in the configuration", chosen: true},
		{name: "no model: the mixed phase", sets: []string{"QUERY_ROUNDS=0"}, unchecked: "CHECK_ANSWERS needs query rounds"},
		{name: "nothing to check: ingest only", sets: []string{"QUERY_ROUNDS=0", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0"}, unchecked: "CHECK_ANSWERS has no query to check: the run only writes"},
		{name: "no answers: Null", sets: []string{"QUERY_ROUNDS=1", "DB_SWITCH=Null"}, unchecked: "CHECK_ANSWERS Null returns no answers"},
		{name: "query-only: the routine wipes", sets: []string{"QUERY_ROUNDS=1", "OPERATION_PROPORTION=0:1:0:0:0:0:0:0:0:0:0"}, unchecked: "CHECK_ANSWERS of a run that writes nothing"},
	} {
		p, err := pipeline.Load(file, c.sets, reg)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		a := AnswersByDefault(p, c.sets)
		on := strings.Contains(strings.Join(a.Sets, " "), "CHECK_ANSWERS=true")
		if on != c.on || a.Chosen != c.chosen || !strings.HasPrefix(a.Unchecked, c.unchecked) || (c.unchecked == "") != (a.Unchecked == "") {
			t.Errorf("%s: %+v", c.name, a)
		}
	}
}

func TestSummarize(t *testing.T) {
	op := func(name string, ops, checked, wrong, us int64) *metrics.Snapshot {
		return &metrics.Snapshot{Operation: name, OKOps: ops, AnswersChecked: checked, AnswersWrong: wrong, CheckMicros: us}
	}
	recs := []*record.Record{
		{Label: "master", Phases: []record.Phase{
			{Seconds: 10, Operations: []*metrics.Snapshot{op(config.Ingestion, 100, 0, 0, 0)}, Warmup: &record.Warmup{Seconds: 2}},
			{Seconds: 3, Operations: []*metrics.Snapshot{op("PRECISE_POINT", 40, 40, 1, 2000)}},
		}, Steps: []record.Step{{Name: "cleanup", Seconds: 1}, {Name: "stop", Phase: "query", Seconds: 4}}},
		{Label: "pr", AnswersNotChecked: "the ingest lost writes", Phases: []record.Phase{
			{Seconds: 5, Operations: []*metrics.Snapshot{op("GROUP_BY", 60, 0, 0, 0)}},
		}},
	}
	s := Summarize(recs)
	if s.Runs != 2 || s.Measured != 20*time.Second || s.Lifecycle != 4*time.Second || s.Setup != time.Second ||
		s.Queries != 100 || s.Checked != 40 || s.Wrong != 1 || s.Check != 2*time.Millisecond {
		t.Errorf("summary %+v", s)
	}
	want := "Answers: 40 of 100 queries checked in 2 runs, 1 wrong; the checks took the clients 0.0 s (0.05 ms a query, after each latency)\n  not checked in pr: the ingest lost writes"
	if got := s.AnswersLine(""); got != want {
		t.Errorf("answers line\n%s\nwant\n%s", got, want)
	}
	if got := s.AnswersLine("CHECK_ANSWERS=false in the configuration"); got != "Answers: not checked: CHECK_ANSWERS=false in the configuration" {
		t.Errorf("unchecked line %q", got)
	}
}

// TestConfigChange: the keys the sides' own sets give other values, by
// their names as loaded, with the keys that follow them; not a key set to the value the
// others have anyway, not where a server listens or the CA it is trusted
// by, never a secret.
func TestConfigChange(t *testing.T) {
	reg := adapters.Registry{sqlite.Driver(), null.Driver(), elasticsearch.Driver()}
	file := filepath.Join(t.TempDir(), "c.properties")
	if err := os.WriteFile(file, []byte("LOOP=10\nBATCH_SIZE_PER_WRITE=100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		sides [][]string
		want  string
	}{
		{"no side sets", [][]string{nil, nil}, ""},
		{"one key", [][]string{nil, {"BATCH_SIZE_PER_WRITE=50"}}, "BATCH_SIZE_PER_WRITE"},
		{"the value the config has", [][]string{nil, {"BATCH_SIZE_PER_WRITE=100"}}, ""},
		// QUERY_LOOP follows LOOP where not given: its value changes too.
		{"two keys, two sides each", [][]string{{"LOOP=20"}, {"LOOP=30", "USERNAME=reader"}}, "LOOP QUERY_LOOP USERNAME"},
		{"one contender of two", [][]string{nil, nil, {"LOOP=20", "QUERY_LOOP=10"}}, "LOOP"},
		{"where the servers listen", [][]string{{"PORT=6668"}, {"PORT=6669", "HOST=localhost"}}, ""},
		{"a secret", [][]string{nil, {"PASSWORD=other"}}, ""},
		{"each secured node's own CA", [][]string{{"DB_SWITCH=Elasticsearch", "ES_CA_FILE=/a/ca.pem"}, {"DB_SWITCH=Elasticsearch", "ES_CA_FILE=/b/ca.pem", "ES_SHARDS=2"}}, "ES_SHARDS"},
	} {
		var configs []*config.Config
		for _, sets := range c.sides {
			p, err := pipeline.Load(file, sets, reg)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			configs = append(configs, p.Loaded.Config)
		}
		if got := strings.Join(ConfigChange(configs), " "); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestServerPortIsNotASideRelay: the servers the routine starts listen on
// the port of the configuration every side shares; a side's own --side-set
// PORT is a relay or proxy in front of its server (tools/power-curve's),
// which must not move where the server is started.
func TestServerPortIsNotASideRelay(t *testing.T) {
	reg := adapters.Registry{sqlite.Driver(), null.Driver(), elasticsearch.Driver()}
	file := filepath.Join(t.TempDir(), "c.properties")
	if err := os.WriteFile(file, []byte("DB_SWITCH=Elasticsearch\nPORT=9300\nLOOP=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sides, err := ParseSides("a=elasticsearch:8.19.21", []string{"b=elasticsearch:8.19.21"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sets []string
		want int
	}{
		{"no side ports", nil, 9300},
		{"a relay before each side", []string{"a:PORT=9310", "b:PORT=9311"}, 9300},
	} {
		r := &Request{Config: file, Registry: reg, Log: io.Discard, Out: t.TempDir()}
		if r.perSide, err = SideSets(c.sets, sides); err != nil {
			t.Fatal(err)
		}
		port, _, err := r.check(sides)
		if err != nil || port != c.want {
			t.Errorf("%s: servers on %d (%v), want %d", c.name, port, err, c.want)
		}
	}
}
