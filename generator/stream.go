package generator

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/tsbench/tsbench/config"
)

// outOfOrder is the run's out-of-order plan. Both modes permute the rows of
// a device, so every timestamp is still written exactly once: iot-benchmark
// moved timestamps instead, which overwrote earlier rows and went before
// START_TIME (spec §9 items 19, 20).
type outOfOrder struct {
	mode  string // "", POISSON or BATCH
	ratio float64
	// POISSON delay model: cdf over n = 1..len(cdf), then scaled (see delay).
	cdf    []float64
	scaled bool
	lambda float64
	maxK   int
	seed   uint64
}

func newOutOfOrder(c *config.Config, rows int64) outOfOrder {
	if !c.OutOfOrder || c.OutOfOrderRatio == 0 {
		return outOfOrder{}
	}
	o := outOfOrder{mode: c.OutOfOrderMode, ratio: c.OutOfOrderRatio, lambda: c.Lambda, maxK: c.MaxK, seed: uint64(c.DataSeed)}
	if o.mode != config.OutOfOrderPoisson {
		return o
	}
	// iot-benchmark's two models (spec §5.1): LAMBDA ≥ 500 draws n from
	// Poisson(10)+1 over 1..25 and stretches it to LAMBDA..MAX_K; smaller
	// LAMBDA draws Poisson(LAMBDA)+1 directly. The table is built once, not per
	// draw, and cut where the tail no longer matters.
	lam, k := c.Lambda, c.MaxK
	if lam >= 500 {
		lam, k, o.scaled = 10, 25, true
	} else {
		k = min(k, int(lam+float64(12*math.Sqrt(lam))+30))
	}
	p := math.Exp(-lam)
	acc := 0.0
	for i := 0; i < k; i++ {
		if i > 0 {
			p *= lam / float64(i)
		}
		acc += p
		o.cdf = append(o.cdf, acc)
	}
	o.cdf[len(o.cdf)-1] = 1
	return o
}

// delay draws how many rows a held-back row waits.
func (o *outOfOrder) delay(rng *rand.Rand) int64 {
	u := rng.Float64()
	n := sort.SearchFloat64s(o.cdf, u) + 1 // 1..len(cdf)
	if n > len(o.cdf) {
		n = len(o.cdf)
	}
	if !o.scaled {
		return int64(n)
	}
	var d float64
	if n <= 10 {
		d = o.lambda + float64(n-10)*o.lambda/10
	} else {
		d = o.lambda + float64(n-10)*(float64(o.maxK)-o.lambda)/15
	}
	return max(1, int64(d))
}

// Stream yields the batches of one device in the order they are sent. It is
// not safe for concurrent use; each device has one.
type Stream struct {
	g       *Generator
	dev     *Device
	rows    []int64 // row indices of the next batch
	batchNo int64
	batches int64
	// POISSON state: next in-order position, held-back rows, rows ready to send.
	pos   int64
	held  rowHeap
	ready []int64
	head  int
	rng   *rand.Rand
}

// NewStream starts the stream of device d (its index in the schema).
func (g *Generator) NewStream(d int) *Stream {
	dev := &g.schema.Devices[d]
	s := &Stream{g: g, dev: dev, rows: make([]int64, 0, g.batchSize)}
	if dev.Written {
		s.batches = (g.rows + int64(g.batchSize) - 1) / int64(g.batchSize)
	}
	if g.ooo.mode == config.OutOfOrderPoisson {
		s.rng = rand.New(rand.NewPCG(g.ooo.seed^0x0dd0, uint64(dev.ID)))
	}
	return s
}

// Device is the device this stream belongs to.
func (s *Stream) Device() *Device { return s.dev }

// Next fills b with the next batch and reports whether there was one.
func (s *Stream) Next(b *Batch) bool {
	if s.batchNo >= s.batches {
		return false
	}
	bs := int64(s.g.batchSize)
	s.rows = s.rows[:0]
	switch s.g.ooo.mode {
	case config.OutOfOrderPoisson:
		s.nextPoisson(int(bs))
	case config.OutOfOrderBatch:
		// Start at round ⌊rounds×ratio⌋, wrap to round 0: the last rounds
		// sent back-fill the oldest time range.
		base := int64(float64(s.batches) * s.g.ooo.ratio)
		round := (s.batchNo + base) % s.batches
		s.appendRange(round*bs, min((round+1)*bs, s.g.rows))
	default:
		s.appendRange(s.batchNo*bs, min((s.batchNo+1)*bs, s.g.rows))
	}
	s.batchNo++
	s.g.Fill(b, s.dev, s.rows)
	return true
}

func (s *Stream) appendRange(from, to int64) {
	for r := from; r < to; r++ {
		s.rows = append(s.rows, r)
	}
}

// nextPoisson takes n rows in send order. At in-order position p a row is
// either sent now or, with probability OUT_OF_ORDER_RATIO, held until
// position p+delay; held rows are sent in order of their due position,
// right after the in-order row of that position.
func (s *Stream) nextPoisson(n int) {
	total := s.g.rows
	for len(s.ready)-s.head < n && (s.pos < total || s.held.Len() > 0) {
		if s.pos < total {
			p := s.pos
			s.pos++
			if s.rng.Float64() < s.g.ooo.ratio {
				s.held.push(heldRow{due: p + s.g.ooo.delay(s.rng), row: p})
			} else {
				s.ready = append(s.ready, p)
			}
			for s.held.Len() > 0 && s.held.rows[0].due <= p {
				s.ready = append(s.ready, s.held.pop().row)
			}
		} else {
			s.ready = append(s.ready, s.held.pop().row)
		}
	}
	take := min(n, len(s.ready)-s.head)
	s.rows = append(s.rows, s.ready[s.head:s.head+take]...)
	s.head += take
	if s.head > 4096 && s.head*2 > len(s.ready) {
		s.ready = append(s.ready[:0], s.ready[s.head:]...)
		s.head = 0
	}
}

type heldRow struct{ due, row int64 }

// rowHeap is a binary min-heap of held rows by due position, then row.
// Hand-written rather than container/heap, whose interface boxes every
// element into an allocation on this per-row path.
type rowHeap struct{ rows []heldRow }

func (h *rowHeap) Len() int { return len(h.rows) }

func (h *rowHeap) less(i, j int) bool {
	a, b := h.rows[i], h.rows[j]
	return a.due < b.due || a.due == b.due && a.row < b.row
}

func (h *rowHeap) push(x heldRow) {
	h.rows = append(h.rows, x)
	i := len(h.rows) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.rows[i], h.rows[p] = h.rows[p], h.rows[i]
		i = p
	}
}

func (h *rowHeap) pop() heldRow {
	top := h.rows[0]
	last := len(h.rows) - 1
	h.rows[0] = h.rows[last]
	h.rows = h.rows[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.less(l, m) {
			m = l
		}
		if r < last && h.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		h.rows[i], h.rows[m] = h.rows[m], h.rows[i]
		i = m
	}
}
