// Package generator makes the synthetic sensor data of a run: the schema
// (groups, devices, sensors, types, value functions, client binding) and,
// per device, a deterministic stream of columnar batches, in order or out of
// order. The points of a device depend only on the configuration and its
// seeds, never on the number of clients, scheduling or the machine.
package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/tsbench/tsbench/config"
)

// DataType is a sensor's value type.
type DataType uint8

// The data types tsbench generates, in INSERT_DATATYPE_PROPORTION order.
const (
	Boolean DataType = iota
	Int32
	Int64
	Float
	Double
	Text
	String    // IoTDB's STRING: text values like TEXT's, a distinct column type
	Blob      // bytes: the characters of a text value, stored as binary
	Timestamp // an int64 value in the unit of TIMESTAMP_PRECISION, as INT64's
	Date      // a calendar date, held as days since 1970-01-01 (see DateOf)
)

// LastType is the last data type tsbench generates (OBJECT, the eleventh
// weight of INSERT_DATATYPE_PROPORTION, is not).
const LastType = Date

var typeNames = [...]string{"BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE", "TEXT", "STRING", "BLOB", "TIMESTAMP", "DATE"}

func (t DataType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "DataType(" + strconv.Itoa(int(t)) + ")"
}

// Numeric reports whether values of t can be compared with a number and
// aggregated with sum or avg: INT32, INT64, FLOAT and DOUBLE. TIMESTAMP and
// DATE are ordered but not summed by every database, so queries that filter
// or aggregate values leave them out, like BOOLEAN and the text types.
func (t DataType) Numeric() bool { return t >= Int32 && t <= Double }

// Textual reports whether values of t are strings of STRING_LENGTH
// characters: TEXT, STRING and BLOB.
func (t DataType) Textual() bool { return t == Text || t == String || t == Blob }

// Sensor is one measurement column; every device has the same sensors.
type Sensor struct {
	Index int
	Name  string
	Type  DataType
	Func  Function
}

// Device is one series source. Index is its position 0..D-1 in this
// instance; ID adds the instance offset of BENCHMARK_INDEX and names it.
type Device struct {
	Index   int
	ID      int
	Name    string
	Group   int
	Table   int      // index into Schema.Tables
	Tags    []string // tag values, in the order of Schema.TagKeys
	Written bool     // false for devices REAL_INSERT_RATE leaves out
}

// Group is a storage group (IoTDB database, SQLite table).
type Group struct {
	ID      int
	Name    string
	Devices []int // device indices, increasing
}

// Table is a table of IoTDB's table model: devices of one group that share
// a table, and a query's devices all come from one. In the tree model each
// group is one table, named like the group.
type Table struct {
	ID      int
	Name    string
	Group   int   // index into Schema.Groups
	Devices []int // device indices, increasing
}

// Schema is the data model of a run. It is immutable after NewSchema and
// safe to share between goroutines.
type Schema struct {
	Devices []Device
	Sensors []Sensor
	Groups  []Group
	Tables  []Table // in increasing group, then table id
	// TagKeys are the tag keys in the order iot-benchmark iterates them
	// (a Java HashMap's), which is the order of tree path levels and of
	// the table model's TAG columns; a device's Tags follow it.
	TagKeys []string
	// Canonical is the device order used to hand devices to clients: groups
	// in increasing id, devices in increasing index (iot-benchmark §3.3).
	Canonical []int
}

// NewSchema builds the schema from a validated configuration.
func NewSchema(c *config.Config) (*Schema, error) {
	s := &Schema{}
	first := c.FirstDeviceIndex()
	written := int(math.Ceil(float64(c.Devices) * c.RealInsertRate))
	written = max(1, min(written, c.Devices))
	groupOf := make([]int, c.Devices)
	used := map[int]bool{}
	for i := 0; i < c.Devices; i++ {
		g, err := groupFor(c.SGStrategy, i, c.Devices, c.Groups)
		if err != nil {
			return nil, err
		}
		groupOf[i] = g
		used[g] = true
	}
	gidx := map[int]int{}
	for g := 0; g < c.Groups; g++ {
		if used[g] {
			gidx[g] = len(s.Groups)
			s.Groups = append(s.Groups, Group{ID: g, Name: c.GroupPrefix + strconv.Itoa(g)})
		}
	}
	for i := 0; i < c.Devices; i++ {
		id := first + i
		d := Device{Index: i, ID: id, Name: c.DevicePrefix + strconv.Itoa(id), Group: gidx[groupOf[i]], Written: i < written}
		s.Devices = append(s.Devices, d)
		gr := &s.Groups[d.Group]
		gr.Devices = append(gr.Devices, i)
	}
	s.tag(c)
	if err := s.layTables(c); err != nil {
		return nil, err
	}
	// Groups in increasing id, their tables in increasing id, devices in
	// increasing index: iot-benchmark's order (in the tree model a group is
	// one table).
	for _, t := range s.Tables {
		s.Canonical = append(s.Canonical, t.Devices...)
	}
	types := sensorTypes(c.TypeProportion, c.Sensors)
	for j := 0; j < c.Sensors; j++ {
		s.Sensors = append(s.Sensors, Sensor{Index: j, Name: c.SensorPrefix + strconv.Itoa(j), Type: types[j], Func: chooseFunction(c.FunctionRatios, c.DataSeed, j)})
	}
	return s, nil
}

// groupFor maps a device index to its group id per SG_STRATEGY. Unlike
// iot-benchmark, hash is applied once and never yields a negative group.
// tag gives every device its tags as iot-benchmark derives them from the
// device name (its spec §3.6): with cardinalities c0 … cn-1 and L[i] the
// product of c_i … cn-1, id = |hash(name)|, then for each tag i: id mod
// L[i], divided by L[i+1], is the value's index. Products are 64-bit where
// Java's int would overflow.
func (s *Schema) tag(c *config.Config) {
	n := c.TagNumber
	if n == 0 {
		return
	}
	l := make([]int64, n+1)
	l[n] = 1
	for i := n - 1; i >= 0; i-- {
		l[i] = int64(c.TagCardinality[i]) * l[i+1]
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = c.TagKeyPrefix + strconv.Itoa(i)
	}
	order := javaHashMapOrder(keys)
	for i := range order {
		s.TagKeys = append(s.TagKeys, keys[order[i]])
	}
	for d := range s.Devices {
		h := javaStringHash(s.Devices[d].Name)
		if h < 0 && h != math.MinInt32 {
			h = -h // Math.abs, which leaves MinInt32 negative
		}
		id := int64(h)
		values := make([]string, n)
		for i := 0; i < n; i++ {
			id %= l[i]
			values[i] = c.TagValuePrefix + strconv.FormatInt(id/l[i+1], 10)
		}
		for _, k := range order {
			s.Devices[d].Tags = append(s.Devices[d].Tags, values[k])
		}
	}
}

// javaHashMapOrder is the order in which a Java HashMap, filled with keys
// in their order, iterates them: by bucket (the spread hash masked by the
// final capacity, 16 doubled while more than 3/4 full), then by insertion.
func javaHashMapOrder(keys []string) []int {
	capacity := 16
	for len(keys) > capacity*3/4 {
		capacity *= 2
	}
	bucket := func(k string) int {
		h := javaStringHash(k)
		return int((uint32(h) ^ uint32(h)>>16) & uint32(capacity-1))
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return bucket(keys[a]) - bucket(keys[b]) })
	return order
}

// layTables maps the devices of each group to tables. Table t of device i
// is SG_STRATEGY's map of i over IOTDB_TABLE_NUMBER tables; since that
// number is a multiple of GROUP_NUMBER and divides DEVICE_NUMBER, every
// strategy puts all devices of a table into one group (the check below
// holds the proof to account).
func (s *Schema) layTables(c *config.Config) error {
	if !c.TableModel() {
		for gi, g := range s.Groups {
			s.Tables = append(s.Tables, Table{ID: g.ID, Name: g.Name, Group: gi, Devices: g.Devices})
			for _, d := range g.Devices {
				s.Devices[d].Table = gi
			}
		}
		return nil
	}
	for gi, g := range s.Groups {
		byID := map[int]*Table{}
		var ids []int
		for _, d := range g.Devices {
			t, err := groupFor(c.SGStrategy, d, c.Devices, c.Tables)
			if err != nil {
				return err
			}
			if byID[t] == nil {
				byID[t] = &Table{ID: t, Name: c.TablePrefix + strconv.Itoa(t), Group: gi}
				ids = append(ids, t)
			}
			byID[t].Devices = append(byID[t].Devices, d)
		}
		slices.Sort(ids)
		for _, t := range ids {
			for _, d := range byID[t].Devices {
				s.Devices[d].Table = len(s.Tables)
			}
			s.Tables = append(s.Tables, *byID[t])
		}
	}
	seen := map[int]int{}
	for _, t := range s.Tables {
		if g, ok := seen[t.ID]; ok && g != t.Group {
			return fmt.Errorf("table %s holds devices of groups %s and %s", t.Name, s.Groups[g].Name, s.Groups[t.Group].Name)
		}
		seen[t.ID] = t.Group
	}
	return nil
}

func groupFor(strategy string, i, devices, groups int) (int, error) {
	switch strategy {
	case config.StrategyMod:
		return i % groups, nil
	case config.StrategyDiv:
		per := devices / groups
		return (i / per) % groups, nil
	case config.StrategyHash:
		h := int(javaStringHash(strconv.Itoa(i))) % groups
		if h < 0 {
			h += groups
		}
		return h, nil
	}
	return 0, fmt.Errorf("unknown SG_STRATEGY %q", strategy)
}

func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		h = 31*h + int32(r)
	}
	return h
}

// sensorTypes assigns types in contiguous blocks exactly as iot-benchmark
// does (spec §3.5), so sensor s_i has the same type in both tools.
func sensorTypes(weights []float64, sensors int) []DataType {
	var p [config.NumDataTypes + 1]float64
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	acc := 0.0
	for i, w := range weights {
		acc += w
		if sum > 0 {
			p[i+1] = acc / sum
		}
	}
	out := make([]DataType, sensors)
	for j := range out {
		pos := float64(j+1) / float64(sensors)
		out[j] = Text
		for i := 1; i <= config.NumDataTypes; i++ {
			if p[i-1] < pos && pos <= p[i] {
				if i-1 <= int(LastType) {
					out[j] = DataType(i - 1)
				}
				break
			}
		}
	}
	return out
}

// chooseFunction picks a sensor's value function: the kind by the
// configured ratios, then one function of that kind from the catalogue.
// Each sensor has its own seeded stream, so neighbouring sensors get
// independent choices (iot-benchmark's seeding gave almost all sensors of a
// kind the same function).
func chooseFunction(ratios [5]float64, seed int64, sensor int) Function {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5e05e0+uint64(sensor)))
	// Config order: LINE, SIN, SQUARE, RANDOM, CONSTANT.
	kinds := [5]Kind{Line, Sine, Square, Random, Constant}
	sum := 0.0
	for _, r := range ratios {
		sum += r
	}
	u := rng.Float64() * sum
	kind := Kind(-1)
	for i, r := range ratios {
		if r <= 0 {
			continue
		}
		kind = kinds[i] // the last kind with weight catches rounding at the top end
		if u < r {
			break
		}
		u -= r
	}
	var list []Function
	for _, f := range catalogue {
		if f.Kind == kind {
			list = append(list, f)
		}
	}
	return list[rng.IntN(len(list))]
}

// ClientDevices hands devices to n clients as iot-benchmark does (spec
// §3.4): client k gets D/n+1 devices if k < D mod n, else D/n, taken in
// canonical order. The result holds device indices.
func (s *Schema) ClientDevices(n int) [][]int {
	out := make([][]int, n)
	d := len(s.Canonical)
	pos := 0
	for k := 0; k < n; k++ {
		cnt := d / n
		if k < d%n {
			cnt++
		}
		out[k] = s.Canonical[pos : pos+cnt]
		pos += cnt
	}
	return out
}

// WrittenDevices counts devices that REAL_INSERT_RATE keeps.
func (s *Schema) WrittenDevices() int {
	n := 0
	for _, d := range s.Devices {
		if d.Written {
			n++
		}
	}
	return n
}
