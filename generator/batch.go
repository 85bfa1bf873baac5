package generator

import "math"

// Column holds one sensor's values of a batch; only the slice of the
// sensor's type is used. Columnar so that IoTDB tablets and SQL encoders read
// values without conversion or boxing.
type Column struct {
	Sensor   *Sensor
	Bools    []bool
	Int32s   []int32 // INT32, and DATE as days since 1970-01-01
	Int64s   []int64 // INT64 and TIMESTAMP
	Float32s []float32
	Float64s []float64
	Texts    []string // TEXT, STRING and BLOB (its bytes)
}

// Value is row i's value as Generator.Value gives it: typed by the
// sensor's type, a Day for DATE.
func (c *Column) Value(i int) any {
	switch c.Sensor.Type {
	case Boolean:
		return c.Bools[i]
	case Int32:
		return c.Int32s[i]
	case Date:
		return Day(c.Int32s[i])
	case Int64, Timestamp:
		return c.Int64s[i]
	case Float:
		return c.Float32s[i]
	case Double:
		return c.Float64s[i]
	}
	return c.Texts[i]
}

// Batch is up to BATCH_SIZE_PER_WRITE rows of one device. A Batch is reused
// from call to call: writers must not keep references to its slices.
type Batch struct {
	Device     *Device
	Rows       []int64 // in-order row index of each row
	Timestamps []int64
	Columns    []Column // one per sensor, in schema order
	scratch    []float64
	positions  []int64 // phase positions of one column's rows
	// consecutive: Rows are r, r+1, r+2, … (in order, the usual case), so
	// the periodic functions step from row to row without checks.
	consecutive bool
}

// Len is the number of rows.
func (b *Batch) Len() int { return len(b.Timestamps) }

// Points is the number of values: rows × sensors.
func (b *Batch) Points() int64 { return int64(len(b.Timestamps)) * int64(len(b.Columns)) }

// NewBatch allocates a batch with room for BATCH_SIZE_PER_WRITE rows. Make
// one per goroutine and reuse it.
func (g *Generator) NewBatch() *Batch {
	n := g.batchSize
	b := &Batch{Rows: make([]int64, 0, n), Timestamps: make([]int64, 0, n), Columns: make([]Column, len(g.schema.Sensors)), scratch: make([]float64, n), positions: make([]int64, n)}
	for j := range b.Columns {
		c := &b.Columns[j]
		c.Sensor = &g.schema.Sensors[j]
		switch c.Sensor.Type {
		case Boolean:
			c.Bools = make([]bool, 0, n)
		case Int32, Date:
			c.Int32s = make([]int32, 0, n)
		case Int64, Timestamp:
			c.Int64s = make([]int64, 0, n)
		case Float:
			c.Float32s = make([]float32, 0, n)
		case Double:
			c.Float64s = make([]float64, 0, n)
		case Text, String, Blob:
			c.Texts = make([]string, 0, n)
		}
	}
	return b
}

// Fill makes b hold the given rows of device d. len(rows) must not exceed
// the batch capacity. Values equal Value(d, j, r) exactly.
func (g *Generator) Fill(b *Batch, d *Device, rows []int64) {
	n := len(rows)
	b.Device = d
	b.Rows = append(b.Rows[:0], rows...)
	b.consecutive = true
	for i := 1; i < n; i++ {
		if rows[i] != rows[i-1]+1 {
			b.consecutive = false
			break
		}
	}
	b.Timestamps = b.Timestamps[:n]
	if g.regular {
		for i, r := range rows {
			b.Timestamps[i] = g.start + g.step*r
		}
	} else {
		jk := g.jitterKey(d)
		for i, r := range rows {
			b.Timestamps[i] = g.start + g.step*r + int64(float64(g.step)*unit(mix(jk+uint64(r)*golden)))
		}
	}
	for j := range b.Columns {
		g.fillColumn(&b.Columns[j], &g.sensors[j], d, b)
	}
}

func (g *Generator) fillColumn(c *Column, sg *sensorGen, d *Device, b *Batch) {
	n := len(b.Rows)
	k := g.columnKey(d, sg)
	if sg.typ.Textual() {
		c.Texts = c.Texts[:n]
		mask := uint64(len(g.texts) - 1)
		for i, r := range b.Rows {
			c.Texts[i] = g.texts[pointHash(k, r)&mask]
		}
		return
	}
	raw := b.scratch[:n]
	switch sg.typ {
	case Float:
		c.Float32s = c.Float32s[:n]
		if fillLevelColumn(g, c.Float32s, g.roundFloat, sg, d, b, raw, k) {
			return
		}
	case Double:
		c.Float64s = c.Float64s[:n]
		if fillLevelColumn(g, c.Float64s, g.roundDouble, sg, d, b, raw, k) {
			return
		}
	}
	g.fillRaw(raw, sg, d, b, k)
	switch sg.typ {
	case Boolean:
		c.Bools = c.Bools[:n]
		for i, v := range raw {
			c.Bools[i] = v > sg.mid
		}
	case Int32:
		c.Int32s = c.Int32s[:n]
		for i, v := range raw {
			c.Int32s[i] = truncInt32(v)
		}
	case Int64, Timestamp:
		c.Int64s = c.Int64s[:n]
		for i, v := range raw {
			c.Int64s[i] = truncInt64(v)
		}
	case Date:
		c.Int32s = c.Int32s[:n]
		for i, v := range raw {
			c.Int32s[i] = dateDays(v)
		}
	case Float:
		for i, v := range raw {
			c.Float32s[i] = g.roundFloat(v)
		}
	case Double:
		for i, v := range raw {
			c.Float64s[i] = g.roundDouble(v)
		}
	}
}

// fillLevelColumn fills a FLOAT or DOUBLE column of a Constant or Square
// sensor and reports whether the sensor is one. Rounding costs more than
// these functions: each of the two levels is rounded once, and with rows in
// order the square wave is walked straight into the column, without raw
// values.
func fillLevelColumn[T float32 | float64](g *Generator, out []T, round func(float64) T, sg *sensorGen, d *Device, b *Batch, raw []float64, k uint64) bool {
	a, z, ok := sg.levels()
	if !ok {
		return false
	}
	ra, rz := round(a), round(z)
	if sg.kind == Constant {
		for i := range out {
			out[i] = ra
		}
		return true
	}
	if x, ok := g.walkStart(sg, g.phase(d, sg), b); ok {
		for i := range out {
			if x < sg.half {
				out[i] = ra
			} else {
				out[i] = rz
			}
			x += g.step
			if x >= sg.cycle {
				x -= sg.cycle
			}
		}
		return true
	}
	g.fillRaw(raw, sg, d, b, k)
	for i, v := range raw {
		out[i] = pick(v, a, ra, rz)
	}
	return true
}

// walkStart is the phase position of the batch's first row when the rows
// are consecutive and regular, so that each next row's position is one
// step on, modulo the cycle: an integer division per point would cost more
// than the functions.
func (g *Generator) walkStart(sg *sensorGen, phase int64, b *Batch) (int64, bool) {
	if !g.regular || g.step >= sg.cycle || !b.consecutive || len(b.Timestamps) == 0 {
		return 0, false
	}
	return floorMod(b.Timestamps[0]-g.start+phase, sg.cycle), true
}

// levels returns the two values a Constant or Square column takes (raw's,
// bit for bit); ok is false for the other kinds.
func (sg *sensorGen) levels() (a, b float64, ok bool) {
	switch sg.kind {
	case Constant:
		v := sg.raw(0, 0)
		return v, v, true
	case Square:
		return sg.raw(0, 0), sg.raw(sg.half, 0), true
	}
	return 0, 0, false
}

// pick is ra where v is the level a (compared by bits: -0 == 0, yet they
// round apart), else rb.
func pick[T float32 | float64](v, a float64, ra, rb T) T {
	if math.Float64bits(v) == math.Float64bits(a) {
		return ra
	}
	return rb
}

// fillRaw computes the function values of one column, a loop per kind so
// that the per-point work is the function's arithmetic alone. Periodic
// kinds walk the phase incrementally while rows are consecutive and
// regular, because an integer division per point would cost more than
// everything else.
func (g *Generator) fillRaw(raw []float64, sg *sensorGen, d *Device, b *Batch, k uint64) {
	switch sg.kind {
	case Constant:
		v := sg.raw(0, 0)
		for i := range raw {
			raw[i] = v
		}
		return
	case Random:
		if sg.intFn {
			for i, r := range b.Rows {
				raw[i] = sg.raw(0, pointHash(k, r))
			}
			return
		}
		// raw's expression, without its dispatch.
		for i, r := range b.Rows {
			raw[i] = float64(unit(pointHash(k, r))*sg.span) + sg.min
		}
		return
	}
	phase := g.phase(d, sg)
	if sg.kind == Sine && g.regular {
		var s, c, as, ac float64
		for i, r := range b.Rows {
			switch {
			case i == 0 || r != b.Rows[i-1]+1 || r&(exactRows-1) == 0:
				s, c, as, ac = g.sineAt(sg, phase, r)
			case r&(anchorRows-1) != 0:
				s, c = sg.rotate(s, c)
			default:
				as, ac = sg.rotateAnchor(as, ac)
				s, c = as, ac
			}
			raw[i] = sg.sine(s)
		}
		return
	}
	xs := b.positions[:len(raw)]
	cyc := sg.cycle
	ts := b.Timestamps
	x0, walk := g.walkStart(sg, phase, b)
	if walk && sg.kind == Line && !sg.intFn {
		// raw's expression, without its dispatch or a pass over xs.
		x := x0
		for i := range raw {
			raw[i] = sg.min + float64(sg.span*(float64(x)/float64(cyc)))
			x += g.step
			if x >= cyc {
				x -= cyc
			}
		}
		return
	}
	if walk {
		x := x0
		for i := range xs {
			xs[i] = x
			x += g.step
			if x >= cyc {
				x -= cyc
			}
		}
	} else {
		x := int64(0)
		stepping := g.regular && g.step < cyc
		for i := range xs {
			if i > 0 && stepping && b.Rows[i] == b.Rows[i-1]+1 {
				x += g.step
				if x >= cyc {
					x -= cyc
				}
			} else {
				x = floorMod(ts[i]-g.start+phase, cyc)
			}
			xs[i] = x
		}
	}
	switch {
	case sg.intFn || sg.kind == Sine:
		for i, x := range xs {
			raw[i] = sg.raw(x, 0)
		}
	case sg.kind == Line:
		// The same expression as raw's, without its dispatch.
		for i, x := range xs {
			raw[i] = sg.min + float64(sg.span*(float64(x)/float64(cyc)))
		}
	case sg.kind == Square:
		hi, lo := sg.min+sg.span, sg.min
		for i, x := range xs {
			if x < sg.half {
				raw[i] = hi
			} else {
				raw[i] = lo
			}
		}
	}
}
