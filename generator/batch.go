package generator

// Column holds one sensor's values of a batch; only the slice of the
// sensor's type is used. Columnar so that IoTDB tablets and SQL encoders read
// values without conversion or boxing.
type Column struct {
	Sensor   *Sensor
	Bools    []bool
	Int32s   []int32
	Int64s   []int64
	Float32s []float32
	Float64s []float64
	Texts    []string
}

// Batch is up to BATCH_SIZE_PER_WRITE rows of one device. A Batch is reused
// from call to call: writers must not keep references to its slices.
type Batch struct {
	Device     *Device
	Rows       []int64 // in-order row index of each row
	Timestamps []int64
	Columns    []Column // one per sensor, in schema order
	scratch    []float64
}

// Len is the number of rows.
func (b *Batch) Len() int { return len(b.Timestamps) }

// Points is the number of values: rows × sensors.
func (b *Batch) Points() int64 { return int64(len(b.Timestamps)) * int64(len(b.Columns)) }

// NewBatch allocates a batch with room for BATCH_SIZE_PER_WRITE rows. Make
// one per goroutine and reuse it.
func (g *Generator) NewBatch() *Batch {
	n := g.batchSize
	b := &Batch{Rows: make([]int64, 0, n), Timestamps: make([]int64, 0, n), Columns: make([]Column, len(g.schema.Sensors)), scratch: make([]float64, n)}
	for j := range b.Columns {
		c := &b.Columns[j]
		c.Sensor = &g.schema.Sensors[j]
		switch c.Sensor.Type {
		case Boolean:
			c.Bools = make([]bool, 0, n)
		case Int32:
			c.Int32s = make([]int32, 0, n)
		case Int64:
			c.Int64s = make([]int64, 0, n)
		case Float:
			c.Float32s = make([]float32, 0, n)
		case Double:
			c.Float64s = make([]float64, 0, n)
		case Text:
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
	if sg.typ == Text {
		c.Texts = c.Texts[:n]
		mask := uint64(len(g.texts) - 1)
		for i, r := range b.Rows {
			c.Texts[i] = g.texts[pointHash(k, r)&mask]
		}
		return
	}
	raw := b.scratch[:n]
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
	case Int64:
		c.Int64s = c.Int64s[:n]
		for i, v := range raw {
			c.Int64s[i] = truncInt64(v)
		}
	case Float:
		c.Float32s = c.Float32s[:n]
		for i, v := range raw {
			c.Float32s[i] = g.roundFloat(v)
		}
	case Double:
		c.Float64s = c.Float64s[:n]
		for i, v := range raw {
			c.Float64s[i] = g.roundDouble(v)
		}
	}
}

// fillRaw computes the function values of one column. Periodic kinds walk
// the phase incrementally while rows are consecutive and regular, because an
// integer division per point would cost more than everything else.
func (g *Generator) fillRaw(raw []float64, sg *sensorGen, d *Device, b *Batch, k uint64) {
	switch sg.kind {
	case Constant:
		v := sg.raw(0, 0)
		for i := range raw {
			raw[i] = v
		}
		return
	case Random:
		for i, r := range b.Rows {
			raw[i] = sg.raw(0, pointHash(k, r))
		}
		return
	}
	phase := g.phase(d, sg)
	cyc := sg.cycle
	ts := b.Timestamps
	x := int64(0)
	for i := range raw {
		if i > 0 && g.regular && b.Rows[i] == b.Rows[i-1]+1 && g.step < cyc {
			x += g.step
			if x >= cyc {
				x -= cyc
			}
		} else {
			x = floorMod(ts[i]-g.start+phase, cyc)
		}
		raw[i] = sg.raw(x, 0)
	}
}
