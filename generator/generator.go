package generator

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/tsbench/tsbench/config"
)

// Kind is the shape of a value function.
type Kind int8

// Value function kinds (iot-benchmark's function.xml classes).
const (
	Line     Kind = iota // saw-tooth from Min to Max over Cycle ms
	Sine                 // sine between Min and Max, period Cycle seconds
	Square               // Max for the first half of Cycle ms, then Min
	Random               // uniform in [Min, Max)
	Constant             // Min
)

var kindNames = [...]string{"line", "sine", "square", "random", "constant"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Function is one entry of the value-function catalogue.
type Function struct {
	Kind  Kind
	ID    string
	Int   bool // int_* functions truncate their value to a 32-bit integer
	Min   float64
	Max   float64
	Cycle int64 // ms, or seconds for Sine
}

// Generator computes the points of every device. It is immutable after New
// and safe for concurrent use; Streams and Batches are per goroutine.
type Generator struct {
	schema    *Schema
	start     int64 // START_TIME in precision units
	step      int64 // POINT_STEP
	regular   bool
	rows      int64 // rows per device in this run
	batchSize int
	seed      uint64
	scale     float64 // 10^DOUBLE_LENGTH
	sensors   []sensorGen
	texts     []string // pool of TEXT values; len is a power of two
	ooo       outOfOrder
}

// sensorGen is a sensor's function with everything precomputed that the hot
// loop would otherwise recompute per point.
type sensorGen struct {
	typ       DataType
	kind      Kind
	intFn     bool
	min, span float64 // span = Max - Min
	mid       float64 // threshold for BOOLEAN
	cycle     int64   // period in precision units
	half      int64   // cycle / 2 (Square)
	salt      uint64  // distinguishes sensors in hashes
	// Sine with regular timestamps: sin and cos of the angle one row
	// advances, and of the angle anchorRows rows advance, for the
	// rotations from an exact row (see sineAt).
	sinStep, cosStep     float64
	sinAnchor, cosAnchor float64
}

const golden = 0x9e3779b97f4a7c15

// mix is the SplitMix64 finaliser: a fast, well-spread hash used to make
// per-point random values that depend only on (seed, device, sensor, row).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) * (1.0 / (1 << 53)) }

// New prepares the generator for a run in which every written device gets
// rowsPerDevice rows.
func New(s *Schema, c *config.Config, rowsPerDevice int64) *Generator {
	g := &Generator{
		schema:    s,
		start:     c.StartUnits(),
		step:      c.PointStep,
		regular:   c.RegularFrequency,
		rows:      rowsPerDevice,
		batchSize: c.BatchSize,
		seed:      uint64(c.DataSeed),
		scale:     math.Pow(10, float64(c.DoubleLength)),
	}
	prec := c.Precision()
	for _, sn := range s.Sensors {
		f := sn.Func
		cyc := f.Cycle * prec
		if f.Kind == Sine {
			cyc *= 1000
		}
		cyc = max(cyc, 1)
		sg := sensorGen{
			typ: sn.Type, kind: f.Kind, intFn: f.Int,
			min: f.Min, span: f.Max - f.Min, mid: (f.Max + f.Min) / 2,
			cycle: cyc, half: cyc / 2, salt: mix(uint64(sn.Index) + 0x51ed),
		}
		sg.sinStep, sg.cosStep = math.Sincos(turn(floorMod(c.PointStep, cyc), cyc))
		sg.sinAnchor, sg.cosAnchor = math.Sincos(turn(floorMod(c.PointStep*anchorRows, cyc), cyc))
		g.sensors = append(g.sensors, sg)
	}
	g.texts = textPool(c.DataSeed, c.StringLength)
	g.ooo = newOutOfOrder(c, rowsPerDevice)
	return g
}

// Schema returns the schema the generator was built for.
func (g *Generator) Schema() *Schema { return g.schema }

// RowsPerDevice is how many rows each written device gets in this run.
func (g *Generator) RowsPerDevice() int64 { return g.rows }

// textPool makes 1024 distinct-enough strings of n characters; TEXT values
// are picked from it by hash, so the hot path never allocates a string.
func textPool(seed int64, n int) []string {
	const chars = "1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7e47))
	pool := make([]string, 1024)
	buf := make([]byte, n)
	for i := range pool {
		for k := range buf {
			buf[k] = chars[rng.IntN(len(chars))]
		}
		pool[i] = string(buf)
	}
	return pool
}

// Timestamp is the timestamp of row r of device d (its in-order position).
func (g *Generator) Timestamp(d *Device, r int64) int64 {
	ts := g.start + g.step*r
	if !g.regular {
		ts += int64(float64(g.step) * unit(mix(g.jitterKey(d)+uint64(r)*golden)))
	}
	return ts
}

// RowsBetween is the rows [first, last) whose timestamps can fall in
// [lo, hi], on any device: row r's timestamp is in [START + r·step,
// START + (r+1)·step) (irregular timestamps add less than one step), so a
// reader of a time range need not look at every row. It is empty when no
// row can be in range.
func (g *Generator) RowsBetween(lo, hi int64) (first, last int64) {
	if g.step <= 0 {
		return 0, g.rows
	}
	first = max(floorDiv(lo-g.start, g.step)-1, 0)
	last = min(floorDiv(hi-g.start, g.step)+1, g.rows)
	if last < first {
		return 0, 0
	}
	return first, last
}

// floorDiv is a/b rounded down, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func (g *Generator) jitterKey(d *Device) uint64 {
	return mix(g.seed ^ mix(uint64(d.ID)*0x632be59bd9b4e019^0x1177))
}

// columnKey seeds per-point hashes of one (device, sensor) column.
func (g *Generator) columnKey(d *Device, sg *sensorGen) uint64 {
	return mix(g.seed ^ mix(uint64(d.ID)*0x8cb92ba72f3d8dd7^sg.salt))
}

// phase shifts each device's periodic functions so devices differ.
func (g *Generator) phase(d *Device, sg *sensorGen) int64 {
	return int64(mix(g.columnKey(d, sg)^0xfa5e) % uint64(sg.cycle))
}

func floorMod(a, m int64) int64 {
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

// turn is the angle of phase position x in a cycle of cyc units.
func turn(x, cyc int64) float64 { return 2 * math.Pi * (float64(x) / float64(cyc)) }

// anchorRows, exactRows: with regular timestamps, a sine column is
// computed exactly (math.Sincos) at the rows that are multiples of
// exactRows, by rotations of anchorRows rows from there to the anchors
// (the multiples of anchorRows), and by rotations of one row from its
// anchor to each row: a rotation is four multiplications where a sine costs
// tens of nanoseconds. Value takes the same steps, so a batch and Value
// agree to the bit; the rotated sine differs from math.Sin by far less than
// DOUBLE_LENGTH's digits (TestSineRotationDrift).
// A row out of order is computed from its exact row, up to 3 + 15
// rotations (one-row rotations from every 64th row lost the POISSON
// out-of-order benchmark 40%). Rows in order pay a math.Sincos every 64
// rows: against one every 16, the best of ten alternating runs gave
// BenchmarkGenerateKind/sine 1.15× and BenchmarkGenerateFloat 1.07× as
// fast, BenchmarkOutOfOrderPoisson 0.96×; exact rows every 256 gave 1.29×,
// 1.09× and 0.86×.
const (
	anchorRows = 16
	exactRows  = anchorRows * 4
)

// sineAt returns the sine and cosine of row r's angle, and those of its
// anchor row's, which a batch rotates on to the next anchor.
func (g *Generator) sineAt(sg *sensorGen, phase, r int64) (s, c, as, ac float64) {
	e := r &^ (exactRows - 1)
	a := r &^ (anchorRows - 1)
	as, ac = math.Sincos(turn(floorMod(g.step*e+phase, sg.cycle), sg.cycle))
	for k := e; k < a; k += anchorRows {
		as, ac = sg.rotateAnchor(as, ac)
	}
	s, c = as, ac
	for k := a; k < r; k++ {
		s, c = sg.rotate(s, c)
	}
	return s, c, as, ac
}

// rotate advances a sine and cosine by one row's angle. The conversions
// forbid fused multiply-adds, so every platform computes the same bits.
func (sg *sensorGen) rotate(s, c float64) (float64, float64) {
	return float64(s*sg.cosStep) + float64(c*sg.sinStep), float64(c*sg.cosStep) - float64(s*sg.sinStep)
}

// rotateAnchor advances a sine and cosine by anchorRows rows' angle.
func (sg *sensorGen) rotateAnchor(s, c float64) (float64, float64) {
	return float64(s*sg.cosAnchor) + float64(c*sg.sinAnchor), float64(c*sg.cosAnchor) - float64(s*sg.sinAnchor)
}

// sine is a Sine sensor's value where the sine of its angle is s.
func (sg *sensorGen) sine(s float64) float64 {
	v := float64(s*(sg.span/2)) + float64(sg.span/2) + sg.min
	if sg.intFn {
		v = float64(truncInt32(v))
	}
	return v
}

// raw is the function value at phase position x with per-point hash h
// (Sine: the exact sine, for irregular timestamps).
func (sg *sensorGen) raw(x int64, h uint64) float64 {
	var v float64
	switch sg.kind {
	case Line:
		v = sg.min + float64(sg.span*(float64(x)/float64(sg.cycle)))
	case Sine:
		return sg.sine(math.Sin(turn(x, sg.cycle)))
	case Square:
		v = sg.min
		if x < sg.half {
			v = sg.min + sg.span
		}
	case Random:
		v = float64(unit(h)*sg.span) + sg.min
	default:
		v = sg.min
	}
	if sg.intFn {
		v = float64(truncInt32(v))
	}
	return v
}

func truncInt32(v float64) int32 {
	switch {
	case v >= math.MaxInt32:
		return math.MaxInt32
	case v <= math.MinInt32:
		return math.MinInt32
	case v != v:
		return 0
	}
	return int32(v)
}

// dateDays is iot-benchmark's DATE of a function value: the value truncated
// to int32, then to its low 16 bits as a signed short, taken as days since
// 1970-01-01 — dates from 1880 to 2059, which every database can hold.
func dateDays(v float64) int32 { return int32(int16(truncInt32(v))) }

// Day is a DATE value: days since 1970-01-01.
type Day int32

// String is the date in ISO 8601 form, 2006-01-02: how query answers hold
// dates.
func (d Day) String() string { return d.Time().Format(time.DateOnly) }

// Time is midnight UTC of the day.
func (d Day) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// YMD is the date as the integer yyyyMMdd, IoTDB's form of a DATE on the
// wire.
func (d Day) YMD() int32 {
	y, m, dd := d.Time().Date()
	return int32(y*10000 + int(m)*100 + dd)
}

func truncInt64(v float64) int64 {
	switch {
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	case v != v:
		return 0
	}
	return int64(v)
}

// The conversions round the products before anything adds to them: Go may
// otherwise fuse a multiply and an add into one instruction on some
// machines and builds (arm64, GOAMD64=v3), and a value must be the same
// bits everywhere.
func (g *Generator) roundDouble(v float64) float64 { return round(float64(v*g.scale)) / g.scale }

func (g *Generator) roundFloat(v float64) float32 {
	return float32(round(float64(float64(float32(v))*g.scale)) / g.scale)
}

// belowHalf is the largest float64 below 0.5.
const belowHalf = 0.49999999999999994

// round is math.Round (half away from zero), to the bit, for every input
// (TestRound). math.Round works on the bits with branches and is not an
// instruction; math.Trunc is one on amd64 and arm64, and adding the largest
// number below ½ before truncating rounds exactly: a sum that is not exact
// rounds to the grid of x's own exponent, never across an integer. Rounding
// was the generator's largest cost: this alone made BenchmarkGenerateFloat
// 1.38× as fast in alternating runs.
func round(x float64) float64 { return math.Trunc(x + math.Copysign(belowHalf, x)) }

// pointHash is the per-point hash of row r in a column with key k.
func pointHash(k uint64, r int64) uint64 { return mix(k + uint64(r)*golden) }

// Value returns the value of sensor j of device d at row r, as the typed Go
// value a Batch column holds (bool, int32, int64, float32, float64, string),
// or a Day for DATE.
// It is the slow, obviously correct path that tests compare Batches with.
func (g *Generator) Value(d *Device, j int, r int64) any {
	sg := &g.sensors[j]
	if sg.typ.Textual() {
		return g.texts[pointHash(g.columnKey(d, sg), r)&uint64(len(g.texts)-1)]
	}
	v := g.numeric(d, sg, r)
	switch sg.typ {
	case Boolean:
		return v > sg.mid
	case Int32:
		return truncInt32(v)
	case Int64, Timestamp:
		return truncInt64(v)
	case Date:
		return Day(dateDays(v))
	case Float:
		return g.roundFloat(v)
	default:
		return g.roundDouble(v)
	}
}

// NumberAt is Number(Value(d, j, r)) without making the typed value: the
// model's aggregates read every row of a range, and boxing each value cost
// them most of their time.
func (g *Generator) NumberAt(d *Device, j int, r int64) (float64, bool) {
	sg := &g.sensors[j]
	if sg.typ.Textual() || sg.typ == Date {
		return 0, false
	}
	v := g.numeric(d, sg, r)
	switch sg.typ {
	case Boolean:
		if v > sg.mid {
			return 1, true
		}
		return 0, true
	case Int32:
		return float64(truncInt32(v)), true
	case Int64, Timestamp:
		return float64(truncInt64(v)), true
	case Float:
		return float64(g.roundFloat(v)), true
	default:
		return g.roundDouble(v), true
	}
}

// numeric is the value function of a numeric sensor at row r, before its
// type's rounding.
func (g *Generator) numeric(d *Device, sg *sensorGen, r int64) float64 {
	if sg.kind == Sine && g.regular {
		s, _, _, _ := g.sineAt(sg, g.phase(d, sg), r)
		return sg.sine(s)
	}
	rel := g.Timestamp(d, r) - g.start
	return sg.raw(floorMod(rel+g.phase(d, sg), sg.cycle), pointHash(g.columnKey(d, sg), r))
}

// Number returns Value as float64 (true = 1), for computing expected query
// answers; ok is false for the text types and DATE.
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
