package generator

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/internal/configtest"
)

func cfg(t testing.TB, sets ...string) *config.Config {
	t.Helper()
	return configtest.Load(t, nil, append([]string{"DEVICE_NUMBER=10", "SENSOR_NUMBER=12", "DATA_CLIENT_NUMBER=2", "BATCH_SIZE_PER_WRITE=50", "LOOP=8"}, sets...)...)
}

func build(t testing.TB, c *config.Config, rows int64) *Generator {
	t.Helper()
	s, err := NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	return New(s, c, rows)
}

// checksum hashes every point of every device, streaming devices in the
// order a given number of clients would own them, then combining per-device
// sums in device order.
func checksum(t *testing.T, g *Generator, clients int) uint64 {
	per := make([]uint64, len(g.Schema().Devices))
	b := g.NewBatch()
	for _, devs := range g.Schema().ClientDevices(clients) {
		for _, d := range devs {
			h := fnv.New64a()
			st := g.NewStream(d)
			for st.Next(b) {
				for i, ts := range b.Timestamps {
					fmt.Fprint(h, ts)
					for j := range b.Columns {
						fmt.Fprint(h, ",", b.Columns[j].Value(i))
					}
					fmt.Fprintln(h)
				}
			}
			per[d] = h.Sum64()
		}
	}
	h := fnv.New64a()
	for _, p := range per {
		fmt.Fprint(h, p, ";")
	}
	return h.Sum64()
}

func TestSameConfigSamePoints(t *testing.T) {
	for _, sets := range [][]string{nil, {"IS_OUT_OF_ORDER=true"}, {"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH"}, {"IS_REGULAR_FREQUENCY=false"}} {
		a := checksum(t, build(t, cfg(t, sets...), 400), 1)
		b := checksum(t, build(t, cfg(t, sets...), 400), 3)
		c := checksum(t, build(t, cfg(t, sets...), 400), 10)
		if a != b || a != c {
			t.Errorf("%v: checksums differ by client count: %x %x %x", sets, a, b, c)
		}
	}
	// A different seed must give different data, or the checksum proves nothing.
	if checksum(t, build(t, cfg(t), 400), 1) == checksum(t, build(t, cfg(t, "DATA_SEED=667"), 400), 1) {
		t.Fatal("DATA_SEED does not change the data")
	}
}

// TestPinnedChecksum fails when the data a config produces changes. That
// breaks comparisons with earlier run records, so a change must be
// deliberate: update the constant and say so in docs/compat.md.
func TestPinnedChecksum(t *testing.T) {
	const want = uint64(0x7f7c1e0d46fb38f4)
	got := checksum(t, build(t, cfg(t), 400), 2)
	if got != want {
		t.Fatalf("checksum of the reference workload = %#x, want %#x", got, want)
	}
}

func TestBatchesEqualValue(t *testing.T) {
	sine := []string{"DOUBLE_LENGTH=15", "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0", "LINE_RATIO=0", "SQUARE_RATIO=0", "RANDOM_RATIO=0", "CONSTANT_RATIO=0"}
	for _, sets := range [][]string{nil, {"IS_OUT_OF_ORDER=true"}, {"IS_REGULAR_FREQUENCY=false"}, {"TIMESTAMP_PRECISION=us"}, {"DOUBLE_LENGTH=0"},
		sine, append(sine, "IS_OUT_OF_ORDER=true"), append(sine, "IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH"),
		{"SENSOR_NUMBER=20", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0"}} {
		g := build(t, cfg(t, sets...), 300)
		b := g.NewBatch()
		for d := range g.Schema().Devices {
			st := g.NewStream(d)
			dev := &g.Schema().Devices[d]
			for st.Next(b) {
				for i, r := range b.Rows {
					if ts := g.Timestamp(dev, r); ts != b.Timestamps[i] {
						t.Fatalf("%v: device %d row %d: batch ts %d, Timestamp %d", sets, d, r, b.Timestamps[i], ts)
					}
					for j := range b.Columns {
						if got, want := b.Columns[j].Value(i), g.Value(dev, j, r); got != want {
							t.Fatalf("%v: device %d row %d sensor %d: batch %v, Value %v", sets, d, r, j, got, want)
						}
					}
				}
			}
		}
	}
}

func TestEveryRowOnceAndTotalPoints(t *testing.T) {
	for _, sets := range [][]string{nil, {"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.7"}, {"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH"}, {"IS_OUT_OF_ORDER=true", "LAMBDA=20", "MAX_K=100"}} {
		c := cfg(t, sets...)
		const rows = 1000
		g := build(t, c, rows)
		b := g.NewBatch()
		var points int64
		for d := range g.Schema().Devices {
			seen := map[int64]bool{}
			st := g.NewStream(d)
			for st.Next(b) {
				points += b.Points()
				for i, r := range b.Rows {
					if seen[r] {
						t.Fatalf("%v: row %d of device %d sent twice", sets, r, d)
					}
					seen[r] = true
					if b.Timestamps[i] < c.StartUnits() {
						t.Fatalf("%v: timestamp before START_TIME", sets)
					}
				}
			}
			if len(seen) != rows {
				t.Fatalf("%v: device %d got %d distinct rows, want %d", sets, d, len(seen), rows)
			}
		}
		if want := int64(rows * c.Devices * c.Sensors); points != want {
			t.Fatalf("%v: %d points, want %d", sets, points, want)
		}
	}
}

// outOfOrderShare measures the share of rows sent after a row with a later
// timestamp.
func outOfOrderShare(g *Generator) float64 {
	b := g.NewBatch()
	late, total := 0, 0
	for d := range g.Schema().Devices {
		st := g.NewStream(d)
		maxTS := int64(math.MinInt64)
		for st.Next(b) {
			for _, ts := range b.Timestamps {
				if ts < maxTS {
					late++
				}
				maxTS = max(maxTS, ts)
				total++
			}
		}
	}
	return float64(late) / float64(total)
}

func TestOutOfOrderShare(t *testing.T) {
	cases := []struct {
		sets []string
		want float64
	}{
		{nil, 0},
		{[]string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.5"}, 0.5},
		{[]string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.2", "LAMBDA=30", "MAX_K=200"}, 0.2},
		{[]string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.3", "OUT_OF_ORDER_MODE=BATCH"}, 0.3},
	}
	for _, tc := range cases {
		// 100 rounds of 50 rows: long enough that delays of thousands of rows fit.
		g := build(t, cfg(t, tc.sets...), 200000)
		got := outOfOrderShare(g)
		if math.Abs(got-tc.want) > 0.03 {
			t.Errorf("%v: out-of-order share %.3f, want %.2f ± 0.03", tc.sets, got, tc.want)
		}
	}
}

func TestPoissonDelays(t *testing.T) {
	// LAMBDA ≥ 500: iot-benchmark's scaled model, n = 1 → 220, n = 10 → 2200,
	// n = 25 → 170000 with the defaults (spec §5.1).
	o := newOutOfOrder(cfg(t, "IS_OUT_OF_ORDER=true"), 1000)
	if !o.scaled || len(o.cdf) != 25 {
		t.Fatalf("default model: scaled=%v table=%d, want scaled with 25 entries", o.scaled, len(o.cdf))
	}
	var d []int64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		d = append(d, o.delay(rng))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if d[0] < 220 || d[len(d)-1] > 170000 {
		t.Fatalf("delays range %d..%d, want within 220..170000", d[0], d[len(d)-1])
	}
	if med := d[len(d)/2]; med < 1980 || med > 13386 {
		t.Fatalf("median delay %d, want near LAMBDA=2200 (n=10 or 11)", med)
	}
	// Small LAMBDA: Poisson(LAMBDA)+1 directly; the mean is LAMBDA+1.
	o = newOutOfOrder(cfg(t, "IS_OUT_OF_ORDER=true", "LAMBDA=10", "MAX_K=30"), 1000)
	sum := 0.0
	for i := 0; i < 20000; i++ {
		sum += float64(o.delay(rng))
	}
	if mean := sum / 20000; math.Abs(mean-11) > 0.2 {
		t.Fatalf("mean delay %.2f, want 11 ± 0.2", mean)
	}
}

func TestValueFunctionShapes(t *testing.T) {
	c := cfg(t, "SENSOR_NUMBER=1", "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0", "DOUBLE_LENGTH=6", "POINT_STEP=1000")
	s, err := NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Function{
		{Kind: Line, Min: 10, Max: 20, Cycle: 100000},
		{Kind: Sine, Min: 3, Max: 7, Cycle: 600},
		{Kind: Square, Min: 1, Max: 5, Cycle: 60000},
		{Kind: Random, Min: -2, Max: 8, Cycle: 1},
		{Kind: Constant, Min: 4.5, Max: 4.5, Cycle: 1},
	} {
		s.Sensors[0].Func = f
		g := New(s, c, 5000)
		dev := &s.Devices[0]
		var vals []float64
		for r := int64(0); r < 5000; r++ {
			v, _ := Number(g.Value(dev, 0, r))
			if v < f.Min-1e-9 || v > f.Max+1e-9 {
				t.Fatalf("%v: value %g outside [%g, %g]", f.Kind, v, f.Min, f.Max)
			}
			vals = append(vals, v)
		}
		switch f.Kind {
		case Line: // rises by (max-min)/cycle per ms, i.e. 0.1 per 1000 ms row, then drops
			drops := 0
			for i := 1; i < len(vals); i++ {
				if d := vals[i] - vals[i-1]; d < 0 {
					drops++
				} else if math.Abs(d-0.1) > 1e-6 {
					t.Fatalf("line: step %g, want 0.1", d)
				}
			}
			if drops < 49 || drops > 51 { // 5000 s / 100 s
				t.Fatalf("line: %d drops over 50 cycles", drops)
			}
		case Sine: // period 600 s = 600 rows: v(r) = v(r+600), mean at the middle
			for i := 0; i+600 < len(vals); i++ {
				if math.Abs(vals[i]-vals[i+600]) > 1e-5 {
					t.Fatalf("sine: not periodic at row %d: %g vs %g", i, vals[i], vals[i+600])
				}
			}
			if m := mean(vals[:4800]); math.Abs(m-5) > 0.01 {
				t.Fatalf("sine: mean %g, want 5", m)
			}
		case Square: // 30 rows at max, 30 at min
			hi := 0
			for _, v := range vals {
				if v == 5 {
					hi++
				} else if v != 1 {
					t.Fatalf("square: value %g", v)
				}
			}
			if hi < 2450 || hi > 2550 {
				t.Fatalf("square: %d of 5000 at max, want half", hi)
			}
		case Random:
			if m := mean(vals); math.Abs(m-3) > 0.15 {
				t.Fatalf("random: mean %g, want 3", m)
			}
		case Constant:
			for _, v := range vals {
				if v != 4.5 {
					t.Fatalf("constant: %g", v)
				}
			}
		}
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestSensorTypesAsIoTBenchmark(t *testing.T) {
	def := []float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0}
	got := fmt.Sprint(sensorTypes(def, 10))
	if want := "[BOOLEAN INT32 INT32 INT64 INT64 FLOAT DOUBLE DOUBLE TEXT TEXT]"; got != want {
		t.Errorf("S=10: %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(sensorTypes(def, 3)), "[INT32 FLOAT TEXT]"; got != want {
		t.Errorf("S=3: %s, want %s", got, want)
	}
	ts := sensorTypes(def, 200)
	for _, c := range []struct {
		j    int
		want DataType
	}{{32, Boolean}, {33, Int32}, {65, Int32}, {66, Int64}, {99, Int64}, {100, Float}, {132, Float}, {133, Double}, {165, Double}, {166, Text}, {199, Text}} {
		if ts[c.j] != c.want {
			t.Errorf("S=200: s_%d is %v, want %v", c.j, ts[c.j], c.want)
		}
	}
	// Every generated type, ten sensors: one of each, in the weights' order.
	every := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	if got, want := fmt.Sprint(sensorTypes(every, 10)), "[BOOLEAN INT32 INT64 FLOAT DOUBLE TEXT STRING BLOB TIMESTAMP DATE]"; got != want {
		t.Errorf("every type: %s, want %s", got, want)
	}
}

// DATE follows iot-benchmark: the value truncated to int32, its low 16 bits
// as a signed short, in days since 1970-01-01.
func TestDateOfValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		days int32
		iso  string
		ymd  int32
	}{
		{70000.7, 4464, "1982-03-23", 19820323}, // the spec's example
		{0, 0, "1970-01-01", 19700101},
		{-1.5, -1, "1969-12-31", 19691231},
		{32767, 32767, "2059-09-18", 20590918},
		{32768, -32768, "1880-04-14", 18800414},
		{1e12, -1, "1969-12-31", 19691231}, // saturates at MaxInt32, whose low 16 bits are -1
	} {
		d := dateDays(c.v)
		if d != c.days || Day(d).String() != c.iso || Day(d).YMD() != c.ymd {
			t.Errorf("DATE of %g = %d %s %d, want %d %s %d", c.v, d, Day(d), Day(d).YMD(), c.days, c.iso, c.ymd)
		}
	}
}

func TestGroupsAndClients(t *testing.T) {
	groups := func(strategy string, d, g int) string {
		var out []int
		for i := 0; i < d; i++ {
			x, err := groupFor(strategy, i, d, g)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, x)
		}
		return fmt.Sprint(out)
	}
	for _, c := range []struct {
		strategy string
		d, g     int
		want     string
	}{
		{"mod", 10, 3, "[0 1 2 0 1 2 0 1 2 0]"},
		{"div", 10, 3, "[0 0 0 1 1 1 2 2 2 0]"},
		{"mod", 12, 5, "[0 1 2 3 4 0 1 2 3 4 0 1]"},
		{"div", 12, 5, "[0 0 1 1 2 2 3 3 4 4 0 0]"},
		// One Java string hash ("0" = 48, "10" = 1567, ...) mod G.
		{"hash", 12, 5, "[3 4 0 1 2 3 4 0 1 2 2 3]"},
	} {
		if got := groups(c.strategy, c.d, c.g); got != c.want {
			t.Errorf("%s D=%d G=%d: %s, want %s", c.strategy, c.d, c.g, got, c.want)
		}
	}
	s, err := NewSchema(cfg(t, "GROUP_NUMBER=3", "DATA_CLIENT_NUMBER=4"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(s.Canonical), "[0 3 6 9 1 4 7 2 5 8]"; got != want {
		t.Errorf("canonical order %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(s.ClientDevices(4)), "[[0 3 6] [9 1 4] [7 2] [5 8]]"; got != want {
		t.Errorf("client devices %s, want %s", got, want)
	}
}

func TestRealInsertRateAndCluster(t *testing.T) {
	s, err := NewSchema(cfg(t, "REAL_INSERT_RATE=0.5", "BENCHMARK_CLUSTER=true", "BENCHMARK_INDEX=2"))
	if err != nil {
		t.Fatal(err)
	}
	if s.WrittenDevices() != 5 {
		t.Errorf("%d written devices, want 5 of 10", s.WrittenDevices())
	}
	if s.Devices[0].Name != "d_20" || s.Devices[9].Name != "d_29" {
		t.Errorf("instance 2 of 10 devices names %s..%s, want d_20..d_29", s.Devices[0].Name, s.Devices[9].Name)
	}
	g := New(s, cfg(t), 100)
	if g.NewStream(7).Next(g.NewBatch()) {
		t.Error("an unwritten device produced a batch")
	}
}

func TestNoAllocationsPerBatch(t *testing.T) {
	for _, sets := range [][]string{nil, {"IS_OUT_OF_ORDER=true"}} {
		g := build(t, cfg(t, sets...), 1<<40)
		b := g.NewBatch()
		st := g.NewStream(0)
		for i := 0; i < 2000; i++ { // reach steady state: held-row heap at its size
			st.Next(b)
		}
		if n := testing.AllocsPerRun(200, func() { st.Next(b) }); n != 0 {
			t.Errorf("%v: %.1f allocations per batch, want 0", sets, n)
		}
	}
}

// TestBatchSizeKeepsValues: a sine is rotated from anchor rows fixed by the
// row index, not by where a batch starts, so the values (sent in order)
// are the same whatever the batch size. Sine DOUBLE sensors only, with
// DOUBLE_LENGTH=15, which keeps the digits where a rotation from another
// row would differ.
func TestBatchSizeKeepsValues(t *testing.T) {
	sine := []string{"DOUBLE_LENGTH=15", "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0",
		"LINE_RATIO=0", "SIN_RATIO=1", "SQUARE_RATIO=0", "RANDOM_RATIO=0", "CONSTANT_RATIO=0"}
	want := checksum(t, build(t, cfg(t, sine...), 400), 1)
	for _, bs := range []string{"BATCH_SIZE_PER_WRITE=7", "BATCH_SIZE_PER_WRITE=64", "BATCH_SIZE_PER_WRITE=400"} {
		if got := checksum(t, build(t, cfg(t, append(sine, bs)...), 400), 1); got != want {
			t.Errorf("%s: checksum %#x, want %#x as with 50 rows a batch", bs, got, want)
		}
	}
}

// TestSineRotationDrift bounds how far the rotated sine strays from the
// exact one: for cycles of 7 to 10,000 rows and every offset from an
// anchor, the sines (on [-1, 1]) differ by less than 1e-13, so a value
// rounded to DOUBLE_LENGTH decimals changes only where math.Sin's would
// have sat on a rounding tie. The measured maximum is logged.
func TestSineRotationDrift(t *testing.T) {
	worst := 0.0
	for _, cycleSeconds := range []int64{35, 600, 3600, 50000} { // POINT_STEP 5 s: 7 to 10,000 rows a cycle
		c := cfg(t, "SENSOR_NUMBER=1", "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0", "POINT_STEP=5000")
		s, err := NewSchema(c)
		if err != nil {
			t.Fatal(err)
		}
		s.Sensors[0].Func = Function{Kind: Sine, Min: -1, Max: 1, Cycle: cycleSeconds}
		g := New(s, c, 20000)
		sg := &g.sensors[0]
		phase := g.phase(&s.Devices[0], sg)
		for r := int64(0); r < 20000; r++ {
			got, _, _, _ := g.sineAt(sg, phase, r)
			want := math.Sin(turn(floorMod(g.step*r+phase, sg.cycle), sg.cycle))
			worst = max(worst, math.Abs(got-want))
		}
	}
	t.Logf("largest difference of a rotated sine from math.Sin: %.3g", worst)
	if worst > 1e-13 {
		t.Fatalf("rotated sines differ from math.Sin by up to %g, more than 1e-13", worst)
	}
}

// The table model lays devices into tables, and tables into groups, as
// iot-benchmark does; the canonical order walks groups, then tables.
func TestTableLayout(t *testing.T) {
	s, err := NewSchema(cfg(t, "DEVICE_NUMBER=12", "GROUP_NUMBER=2", "IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=4"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tb := range s.Tables {
		got = append(got, fmt.Sprintf("%s:%s:%v", s.Groups[tb.Group].Name, tb.Name, tb.Devices))
	}
	if want := "[g_0:table_0:[0 4 8] g_0:table_2:[2 6 10] g_1:table_1:[1 5 9] g_1:table_3:[3 7 11]]"; fmt.Sprint(got) != want {
		t.Errorf("tables %v, want %s", got, want)
	}
	if want := "[0 4 8 2 6 10 1 5 9 3 7 11]"; fmt.Sprint(s.Canonical) != want {
		t.Errorf("canonical order %v, want %s", s.Canonical, want)
	}
	for _, d := range s.Devices {
		if tb := s.Tables[d.Table]; tb.Group != d.Group || !slices.Contains(tb.Devices, d.Index) {
			t.Errorf("device %s: table %s of group %d, device in group %d", d.Name, tb.Name, tb.Group, d.Group)
		}
	}
	// Every strategy keeps a table inside one group (NewSchema fails if not).
	for _, st := range []string{"mod", "div", "hash"} {
		for _, gt := range [][2]int{{1, 1}, {1, 5}, {2, 10}, {5, 20}, {3, 60}} {
			sets := []string{"DEVICE_NUMBER=60", "SG_STRATEGY=" + st, "IOTDB_DIALECT_MODE=table", fmt.Sprintf("GROUP_NUMBER=%d", gt[0]), fmt.Sprintf("IOTDB_TABLE_NUMBER=%d", gt[1])}
			s, err := NewSchema(cfg(t, sets...))
			if err != nil {
				t.Fatalf("%v: %v", sets, err)
			}
			n := 0
			for _, tb := range s.Tables {
				n += len(tb.Devices)
			}
			if n != 60 || len(s.Canonical) != 60 {
				t.Errorf("%v: tables hold %d devices, canonical %d", sets, n, len(s.Canonical))
			}
		}
	}
}

// Tags follow iot-benchmark's spec §3.6 and §3.7: the worked example, and
// the Java HashMap order in which paths and TAG columns list the keys.
func TestTags(t *testing.T) {
	s, err := NewSchema(cfg(t, "TAG_NUMBER=2", "TAG_VALUE_CARDINALITY=50,10"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.TagKeys, s.Devices[0].Tags); got != "[tag_0 tag_1] [value_9 value_3]" {
		t.Errorf("d_0 (hash 99093, 50×10 values): %s, want [tag_0 tag_1] [value_9 value_3]", got)
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{5, "[tag_0 tag_1 tag_2 tag_3 tag_4]"},
		{6, "[tag_5 tag_0 tag_1 tag_2 tag_3 tag_4]"},
		{10, "[tag_5 tag_6 tag_7 tag_8 tag_9 tag_0 tag_1 tag_2 tag_3 tag_4]"},
		{11, "[tag_5 tag_6 tag_7 tag_8 tag_9 tag_0 tag_1 tag_2 tag_10 tag_3 tag_4]"},
	} {
		card := strings.TrimSuffix(strings.Repeat("3,", c.n), ",")
		s, err := NewSchema(cfg(t, fmt.Sprintf("TAG_NUMBER=%d", c.n), "TAG_VALUE_CARDINALITY="+card))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(s.TagKeys); got != c.want {
			t.Errorf("%d tags: keys %s, want %s", c.n, got, c.want)
		}
		for _, d := range s.Devices {
			if len(d.Tags) != c.n {
				t.Fatalf("%s has %d tags, want %d", d.Name, len(d.Tags), c.n)
			}
		}
	}
}

// TestRound checks the fast round against math.Round: the edges of every
// rounding case, and a million values across the exponents the generator
// meets (DOUBLE_LENGTH scales values by up to 10^15).
func TestRound(t *testing.T) {
	edges := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, belowHalf, -belowHalf,
		math.Nextafter(0.5, 1), math.Nextafter(1.5, 1), math.Nextafter(1.5, 2), 1<<51 + 0.5, 1<<52 - 0.5,
		1 << 52, 1<<52 + 1, 1 << 53, 1<<53 + 2, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), 4503599627370495.5, -4503599627370495.5}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		x := math.Ldexp(rng.Float64(), rng.IntN(130)-70)
		if rng.IntN(2) == 0 {
			x = -x
		}
		edges = append(edges, x, math.Trunc(x)+0.5, math.Nextafter(math.Trunc(x)+0.5, 0))
	}
	for _, x := range edges {
		got, want := round(x), math.Round(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("round(%v) = %v, math.Round gives %v", x, got, want)
		}
	}
}

// TestRowsBetween checks that the rows RowsBetween gives hold every row in
// range, with regular and irregular timestamps, for ranges inside, across
// and outside the data.
func TestRowsBetween(t *testing.T) {
	for _, regular := range []string{"true", "false"} {
		g := build(t, cfg(t, "IS_REGULAR_FREQUENCY="+regular, "POINT_STEP=7"), 300)
		d := &g.Schema().Devices[3]
		start := g.Timestamp(d, 0)
		for _, r := range [][2]int64{{start, start}, {start - 50, start + 3}, {start + 100, start + 999}, {start + 2000, start + 2100}, {start - 99, start - 9}, {start + 5, start + 5}} {
			first, last := g.RowsBetween(r[0], r[1])
			for row := int64(0); row < g.RowsPerDevice(); row++ {
				ts := g.Timestamp(d, row)
				if ts >= r[0] && ts <= r[1] && (row < first || row >= last) {
					t.Errorf("regular=%s, range %v: row %d (ts %d) is in range but outside rows [%d, %d)", regular, r, row, ts, first, last)
				}
			}
		}
	}
}

// TestNumberAt: the unboxed number of a value is Number of the value, to
// the bit, for every type and both timestamp modes.
func TestNumberAt(t *testing.T) {
	for _, regular := range []string{"true", "false"} {
		g := build(t, cfg(t, "IS_REGULAR_FREQUENCY="+regular, "SENSOR_NUMBER=30", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0", "SIN_RATIO=3"), 300)
		for di := range g.Schema().Devices {
			d := &g.Schema().Devices[di]
			for j := range g.Schema().Sensors {
				for r := int64(0); r < 300; r += 7 {
					want, wok := Number(g.Value(d, j, r))
					got, ok := g.NumberAt(d, j, r)
					if ok != wok || math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("regular=%s %s %s row %d: NumberAt %v %v, Number(Value) %v %v", regular, d.Name, g.Schema().Sensors[j].Name, r, got, ok, want, wok)
					}
				}
			}
		}
	}
}
