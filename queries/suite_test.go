package queries

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWeeklySuite(t *testing.T) {
	s, err := LoadSuite("weekly")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range s.Variants {
		names = append(names, v.Name)
	}
	want := "Q1 Q21 Q22 Q23 Q31 Q32 Q33 Q4a1 Q4a2 Q4a3 Q4b1 Q4b2 Q4b3 Q5 Q61 Q62 Q63 Q71 Q72 Q73 Q74 Q8 Q9 Q10"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("weekly classes:\n got %s\nwant %s", got, want)
	}
}

func TestSuiteErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Q1", `line 1: "Q1" needs a name and a family (Q1..Q11)`},
		{"A Q13", `line 1: "Q13" is not a query family (valid: Q1..Q11)`},
		{"A Q2 sensors", `line 1: "sensors" is not key=value`},
		{"A Q2 colour=red", `line 1: "colour=red" is not key=value`},
		{"A Q2 sensors=x-1", `line 1: sensors=x-1: scale "-1" is not a positive number`},
		{"A Q2\nA Q3", "line 2: variant A is defined twice"},
		{"# nothing", "the suite has no variants"},
	} {
		_, err := ParseSuite("t", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := LoadSuite("/no/such/suite"); err == nil || !strings.Contains(err.Error(), "QUERY_SUITE=/no/such/suite: is neither a built-in suite nor a readable file (valid: weekly or a path)") {
		t.Fatalf("missing suite: %v", err)
	}
}

func TestVariantApplyScalesAndCaps(t *testing.T) {
	c, s := setup(t, "QUERY_SENSOR_NUM=2", "QUERY_DEVICE_NUM=1", "QUERY_INTERVAL=1000")
	suite, err := ParseSuite("t", []byte("A Q2 sensors=x100 interval=x10\nB Q4 devices=x5 aggregate=avg\nC Q3 lower=7"))
	if err != nil {
		t.Fatal(err)
	}
	p := ParamsOf(c)
	a, notes, err := suite.Variants[0].Apply(p, s, "t")
	if err != nil || a.Sensors != 12 || a.Interval != 10000 || len(notes) != 1 || !strings.Contains(notes[0], "QUERY_SENSOR_NUM=200 capped at 12 (SENSOR_NUMBER)") {
		t.Fatalf("A: sensors %d interval %d notes %v err %v", a.Sensors, a.Interval, notes, err)
	}
	b, notes, _ := suite.Variants[1].Apply(p, s, "t")
	if b.Devices != 4 || b.Aggregate != "avg" || len(notes) != 1 {
		t.Fatalf("B: devices %d (a group has 4), aggregate %s, notes %v", b.Devices, b.Aggregate, notes)
	}
	if cc, _, _ := suite.Variants[2].Apply(p, s, "t"); cc.LowerValue != 7 || len(cc.Families) != 1 || cc.Families[0] != ValueRange || p.LowerValue == 7 {
		t.Fatal("C: lower must apply to the variant's parameters only")
	}

}

// A variant's own requests: indented "language: request" lines, a file by
// @path beside the suite, placeholders checked when the suite is read.
func TestSuiteRequests(t *testing.T) {
	dir := t.TempDir()
	body := `{"size":0,"query":{"bool":{"filter":[{"terms":{"device":[{devices}]}},{"range":{"ts":{"gte":{start},"lte":{end}}}}]}},"aggs":{"m":{"max":{"field":"{sensor}"}}}}`
	if err := os.WriteFile(filepath.Join(dir, "top.json"), []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := "# own queries\nTop  Q4  interval=x10\n  iotdb: SELECT max_value({sensor}) FROM {devices} WHERE time >= {start} AND time <= {end}\n" +
		"\telasticsearch: @top.json\n  # a comment between\nQ1 Q1\n"
	path := filepath.Join(dir, "own.suite")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Variants) != 2 || s.Variants[1].Requests != nil {
		t.Fatalf("variants %+v", s.Variants)
	}
	top := s.Variants[0]
	if top.Family != AggRange || top.Requests["elasticsearch"] != body || len(top.Requests) != 2 {
		t.Fatalf("Top: %+v", top)
	}
	got, err := Fill(top.Requests["iotdb"], map[string]string{"sensor": "s_0", "devices": "root.test.g_0.d_0", "start": "10", "end": "20"})
	if want := "SELECT max_value(s_0) FROM root.test.g_0.d_0 WHERE time >= 10 AND time <= 20"; err != nil || got != want {
		t.Fatalf("Fill: %q %v, want %q", got, err, want)
	}
	got, err = Fill(body, map[string]string{"sensor": "s_1", "devices": `"d_0","d_1"`, "start": "1", "end": "2"})
	if want := `{"size":0,"query":{"bool":{"filter":[{"terms":{"device":["d_0","d_1"]}},{"range":{"ts":{"gte":1,"lte":2}}}]}},"aggs":{"m":{"max":{"field":"s_1"}}}}`; err != nil || got != want {
		t.Fatalf("Fill of a JSON body: %s %v", got, err)
	}
	if _, err := Fill("SELECT {sensor} FROM {devices}", map[string]string{"sensor": "s"}); err == nil || err.Error() != "{devices} has no value for this database" {
		t.Fatalf("a placeholder without a value: %v", err)
	}
	for _, c := range []struct{ text, want string }{
		{"  iotdb: SELECT 1", "line 1: an indented line is a request of the variant above it, and there is none"},
		{"A Q2\n  SELECT 1", `line 2: "SELECT 1" is not "language: request"`},
		{"A Q2\n  IoTDB: SELECT 1", `line 2: "IoTDB: SELECT 1" is not "language: request"`},
		{"A Q2\n  iotdb:", `line 2: "iotdb:" is not "language: request"`},
		{"A Q2\n  iotdb: SELECT 1\n  iotdb: SELECT 2", "line 3: variant A has two iotdb requests"},
		{"A Q2\n  iotdb: SELECT {strat}", "line 2: variant A's iotdb request: {strat} is not a placeholder (valid: start, end,"},
		{"A Q2\n  iotdb: @/no/such/file", "line 2: variant A's iotdb request: open /no/such/file"},
	} {
		_, err := ParseSuite("t", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.text, err, c.want)
		}
	}
}
