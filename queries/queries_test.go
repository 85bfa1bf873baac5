package queries

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/configtest"
)

func setup(t *testing.T, sets ...string) (*config.Config, *generator.Schema) {
	t.Helper()
	base := []string{"DEVICE_NUMBER=12", "GROUP_NUMBER=3", "SENSOR_NUMBER=12", "DATA_CLIENT_NUMBER=3", "QUERY_DEVICE_NUM=2", "QUERY_SENSOR_NUM=2",
		"OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "QUERY_INTERVAL=50000", "POINT_STEP=1000", "STEP_SIZE=7"}
	c := configtest.Load(t, nil, append(base, sets...)...)
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func describe(q Query) string {
	var ds, ss []string
	for _, d := range q.Devices {
		ds = append(ds, d.Name)
	}
	for _, s := range q.Sensors {
		ss = append(ss, s.Name)
	}
	return fmt.Sprintf("%s %v %v [%d,%d] %s", q.Family.ID(), ds, ss, q.Start, q.End, q.Aggregate)
}

func TestDeterministicPerClient(t *testing.T) {
	c, s := setup(t)
	run := func() []string {
		g, err := New(s, ParamsOf(c), 1000)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for client := 0; client < 3; client++ {
			cl := g.Client(client)
			for i := 0; i < 20; i++ {
				for _, f := range Families {
					out = append(out, describe(cl.Next(f)))
				}
			}
		}
		return out
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same config gave different queries")
	}
	// Different clients must not all ask the same thing.
	g, _ := New(s, ParamsOf(c), 1000)
	if describe(g.Client(0).Next(TimeRange)) == describe(g.Client(1).Next(TimeRange)) && describe(g.Client(0).Next(ValueRange)) == describe(g.Client(1).Next(ValueRange)) {
		t.Fatal("clients 0 and 1 got identical queries")
	}
}

func TestParametersInsideWrittenRange(t *testing.T) {
	c, s := setup(t, "REAL_INSERT_RATE=0.5")
	const rows = 200
	g, err := New(s, ParamsOf(c), rows)
	if err != nil {
		t.Fatal(err)
	}
	first, last := c.StartUnits(), c.StartUnits()+c.PointStep*(rows-1)
	cl := g.Client(1)
	for i := 0; i < 500; i++ {
		for _, f := range Families {
			q := cl.Next(f)
			if q.Start < first || q.Start > last {
				t.Fatalf("%s: start %d outside written range [%d, %d]", describe(q), q.Start, first, last)
			}
			if f.HasTimeRange() && q.End > last && q.Start != first {
				t.Fatalf("%s: window runs past the data although a window fits", describe(q))
			}
			if len(q.Devices) != c.QueryDevices || len(q.Sensors) != c.QuerySensors {
				t.Fatalf("%s: wrong device or sensor count", describe(q))
			}
			grp := q.Devices[0].Group
			seen := map[string]bool{}
			for _, d := range q.Devices {
				if d.Group != grp || !d.Written || seen[d.Name] {
					t.Fatalf("%s: devices must be distinct, written and of one group", describe(q))
				}
				seen[d.Name] = true
			}
			for _, sn := range q.Sensors {
				if needsNumeric(f, q.Aggregate) && !sn.Type.Numeric() {
					t.Fatalf("%s: %s is %v, not numeric", describe(q), sn.Name, sn.Type)
				}
			}
		}
	}
}

func TestValidation(t *testing.T) {
	c, s := setup(t, "QUERY_DEVICE_NUM=5")
	_, err := New(s, ParamsOf(c), 100)
	wantConfigError(t, err, "QUERY_DEVICE_NUM=5: is larger than the written devices of every group (of every table, in IoTDB's table model); a query takes all its devices from one (valid: 1..4)")

	c, s = setup(t, "INSERT_DATATYPE_PROPORTION=1:0:0:0:1:1:0:0:0:0:0", "QUERY_SENSOR_NUM=5")
	_, err = New(s, ParamsOf(c), 100)
	wantConfigError(t, err, "QUERY_SENSOR_NUM=5: is larger than the 4 numeric sensors that Q3 (VALUE_RANGE) can use; INSERT_DATATYPE_PROPORTION gives too few INT32, INT64, FLOAT or DOUBLE sensors (valid: 1..4, or more numeric sensors)")

	// The loader refuses an unknown aggregate whatever the mix, so a run
	// without aggregate queries cannot carry it to one that has them.
	_, err = configtest.Try(nil, "QUERY_AGGREGATE_FUN=median", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	if err == nil || err.Error() != "QUERY_AGGREGATE_FUN=median: is not an aggregate tsbench knows (valid: count, sum, avg, max_value, min_value)" {
		t.Fatalf("QUERY_AGGREGATE_FUN=median: %v", err)
	}
}

func wantConfigError(t *testing.T, err error, want string) {
	t.Helper()
	var ce *config.Error
	if !errors.As(err, &ce) || err.Error() != want {
		t.Fatalf("err = %v, want config error %q", err, want)
	}
}

func TestFixedAndRecentQueries(t *testing.T) {
	c, s := setup(t, "ENABLE_FIXED_QUERY=true")
	g, _ := New(s, ParamsOf(c), 1000)
	a, b := g.Client(0).Next(GroupBy), g.Client(2)
	b.Next(GroupBy)
	if describe(a) != describe(b.Next(GroupBy)) {
		t.Fatal("ENABLE_FIXED_QUERY: queries differ")
	}
	c, s = setup(t, "IS_RECENT_QUERY=true")
	g, _ = New(s, ParamsOf(c), 1000)
	cl := g.Client(0)
	cl.SetRecent(c.StartUnits() + 400000)
	if q := cl.Next(TimeRange); q.End != c.StartUnits()+400000 {
		t.Fatalf("IS_RECENT_QUERY: window ends at %d, want the newest written timestamp", q.End)
	}
	if q := cl.Next(PrecisePoint); q.Start != c.StartUnits()+400000 {
		t.Fatal("IS_RECENT_QUERY: Q1 must ask for the newest timestamp")
	}
}

func TestExpectedSemantics(t *testing.T) {
	c, s := setup(t, "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0", "POINT_STEP=1000")
	gen := generator.New(s, c, 100)
	d := &s.Devices[0]
	q := Query{Family: AggRange, Devices: []*generator.Device{d}, Sensors: []*generator.Sensor{&s.Sensors[0]}, Start: c.StartUnits(), End: c.StartUnits() + 9000, Aggregate: "count"}
	if a := Expected(gen, &q); len(a) != 1 || a[0].Value != 10.0 {
		t.Fatalf("count over 10 rows = %+v", a)
	}
	q.Family, q.GroupBy, q.End = GroupBy, 4000, c.StartUnits()+10000
	if a := Expected(gen, &q); len(a) != 3 || a[0].Value != 4.0 || a[2].Value != 2.0 {
		t.Fatalf("group by 4 s over 10 s = %+v, want windows of 4, 4, 2 rows", a)
	}
	q = Query{Family: LatestPoint, Devices: []*generator.Device{d}, Sensors: []*generator.Sensor{&s.Sensors[0], &s.Sensors[1]}, Limit: -1}
	if a := Expected(gen, &q); len(a) != 2 || a[0].Time != c.StartUnits()+99*1000 {
		t.Fatalf("latest point = %+v", a)
	}
	if !strings.Contains(Diff(Answer{{Device: "d_0", Value: 1.0}}, Answer{{Device: "d_0", Value: 1.1}}), "cell 0") {
		t.Fatal("Diff misses a value difference")
	}
}

// TestFamilyTraits pins the family table against iot-benchmark's meaning of
// each family, so an edit of one row cannot silently change a query.
func TestFamilyTraits(t *testing.T) {
	want := map[Family]string{ // time range, value filter, aggregate, window, desc
		PrecisePoint: "-----", TimeRange: "t----", ValueRange: "tv---", AggRange: "t-a--", AggValue: "-va--", AggRangeValue: "tva--",
		GroupBy: "t-aw-", LatestPoint: "-----", RangeDesc: "t---d", ValueRangeDesc: "tv--d", GroupByDesc: "t-awd",
	}
	flag := func(b bool, c string) string {
		if b {
			return c
		}
		return "-"
	}
	for _, f := range Families {
		got := flag(f.HasTimeRange(), "t") + flag(f.HasValueFilter(), "v") + flag(f.IsAggregate(), "a") + flag(f.IsGroupBy(), "w") + flag(f.Desc(), "d")
		if got != want[f] {
			t.Errorf("%s (%s): traits %s, want %s", f.ID(), f, got, want[f])
		}
	}
	if len(Families) != NumFamilies-1 || Family(NumFamilies) != SetOperation || NumFamilies+1 != config.NumOperations {
		t.Fatalf("%d families, NumFamilies %d, %d operations", len(Families), NumFamilies, config.NumOperations)
	}
	if Family(0).String() != "Family(0)" || Family(99).HasTimeRange() {
		t.Fatal("an unknown family must have no traits")
	}
}
