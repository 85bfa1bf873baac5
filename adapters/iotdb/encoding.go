package iotdb

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The TsFile column encodings IoTDB's sessions use for "RPC compression"
// (ENABLE_IOTDB_RPC_COMPRESSION), written as the TsFile library of the
// server writes them: adapters/iotdb/testdata/encodings.json holds that
// library's own output for fixed series (tools/iotdb-encodings), and the
// tests compare byte for byte. Each function appends one column, flushed,
// to dst; none allocates beyond growing dst.

// TSEncoding codes, as TsFile serializes them in a request's encodingTypes.
const (
	encPlain   int8 = 0
	encRLE     int8 = 2
	encTS2Diff int8 = 4
	encGorilla int8 = 8
)

// deltaBlock is TS_2DIFF's block: a first value and up to 128 deltas.
const deltaBlock = 128

// appendDelta writes v as TS_2DIFF: per block of a first value and up to
// 128 deltas, the delta count, the bit width, the smallest delta and the
// first value, then each delta minus the smallest, packed at that width.
// INT32 (and DATE) columns write the header's smallest delta and first
// value in four bytes, INT64 ones in eight; deltas wrap as Java's do.
func appendDelta[T int32 | int64](dst []byte, v []T) []byte {
	size := 64
	if T(1)<<31 < 0 { // T is int32
		size = 32
	}
	mask := uint64(1)<<size - 1 // as wide as T
	if size == 64 {
		mask = math.MaxUint64
	}
	maxT := T(mask >> 1)
	for len(v) > 0 {
		n := min(len(v)-1, deltaBlock)
		minDelta := maxT
		for i := 1; i <= n; i++ {
			minDelta = min(minDelta, v[i]-v[i-1])
		}
		width := 0
		for i := 1; i <= n; i++ {
			width = max(width, bits.Len64(uint64(v[i]-v[i-1]-minDelta)&mask))
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
		dst = binary.BigEndian.AppendUint32(dst, uint32(width))
		if size == 32 {
			dst = binary.BigEndian.AppendUint32(dst, uint32(minDelta))
			dst = binary.BigEndian.AppendUint32(dst, uint32(v[0]))
		} else {
			dst = binary.BigEndian.AppendUint64(dst, uint64(minDelta))
			dst = binary.BigEndian.AppendUint64(dst, uint64(v[0]))
		}
		var w bitWriter
		for i := 1; i <= n; i++ {
			dst = w.write(dst, uint64(v[i]-v[i-1]-minDelta)&mask, width)
		}
		dst = w.pad(dst)
		v = v[n+1:]
	}
	return dst
}

// gorilla is TsFile's GORILLA (v2) for one column of 32- or 64-bit values:
// the first value whole, then per value a 0 bit when it repeats, or a 1
// bit and its XOR with the previous: 0 and the meaningful bits when they
// fit the previous window of leading and trailing zeros, else 1, the
// leading zeros, the meaningful bit count less one, and the bits. The
// column ends with the encoding of NaN (the end marker) and its last byte.
type gorilla struct {
	size, countBits int // 32 and 5, or 64 and 6
	started         bool
	prev            uint64
	leading         int
	trailing        int
	w               bitWriter
}

func newGorilla(size int) gorilla {
	g := gorilla{size: size, countBits: 5, leading: math.MaxInt32}
	if size == 64 {
		g.countBits = 6
	}
	return g
}

func (g *gorilla) add(dst []byte, v uint64) []byte {
	if !g.started {
		g.started, g.prev = true, v
		return g.w.write(dst, v, g.size)
	}
	xor := g.prev ^ v
	g.prev = v
	if xor == 0 {
		return g.w.write(dst, 0, 1)
	}
	leading := bits.LeadingZeros64(xor) - (64 - g.size)
	trailing := bits.TrailingZeros64(xor)
	if leading >= g.leading && trailing >= g.trailing {
		// Control bits 10, then the bits in the previous window.
		dst = g.w.write(dst, 0b10, 2)
		return g.w.write(dst, xor>>g.trailing, g.size-g.leading-g.trailing)
	}
	// Control bits 11, the leading zeros, the meaningful bit count less
	// one, in one write; then the bits.
	meaningful := g.size - leading - trailing
	head := uint64(0b11)<<(2*g.countBits) | uint64(leading)<<g.countBits | uint64(meaningful-1)
	dst = g.w.write(dst, head, 2+2*g.countBits)
	dst = g.w.write(dst, xor>>trailing, meaningful)
	g.leading, g.trailing = leading, trailing
	return dst
}

// end writes the end marker and the byte in progress, even an empty one,
// as TsFile does.
func (g *gorilla) end(dst []byte, marker uint64) []byte {
	dst = g.add(dst, marker)
	dst = g.w.bytes(dst)
	return append(dst, g.w.partial())
}

// appendGorilla32 writes FLOAT bits as GORILLA.
func appendGorilla32(dst []byte, v []uint32) []byte {
	g := newGorilla(32)
	for _, x := range v {
		dst = g.add(dst, uint64(x))
	}
	return g.end(dst, uint64(math.Float32bits(float32(math.NaN()))))
}

// appendGorilla64 writes DOUBLE bits as GORILLA.
func appendGorilla64(dst []byte, v []uint64) []byte {
	g := newGorilla(64)
	for _, x := range v {
		dst = g.add(dst, x)
	}
	return g.end(dst, javaNaN64)
}

// javaNaN64 is Java's Double.NaN; Go's math.NaN has other payload bits.
const javaNaN64 = 0x7ff8000000000000

// RLE's thresholds (TSFileConfig): this many repeats make a run, a
// bit-packed run holds at most 63 groups of 8, a run at most 0x7FFF repeats.
const (
	rleMinRepeat = 8
	rleMaxGroups = 63
	rleMaxRepeat = 0x7FFF
)

// appendRLEBools writes BOOLEAN as TsFile's RLE of 0/1 ints: the length of
// what follows (unsigned varint), the bit width, then runs, each either a
// repeat (count<<1, and the value in whole bytes) or bit-packed groups of
// 8 values (groups<<1|1, the count used in the last group, the groups).
// The state machine follows TsFile's RleEncoder step by step, since its
// choices (where a repeat starts counting) are part of the bytes.
func appendRLEBools(dst []byte, v []bool, body []byte) ([]byte, []byte) {
	// TsFile's bit width is at least 1, so even all-false columns pack
	// into one byte per group.
	r := rle{out: append(body[:0], 1)}
	for _, b := range v {
		x := 0
		if b {
			x = 1
		}
		r.add(x)
	}
	r.flush()
	dst = binary.AppendUvarint(dst, uint64(len(r.out)))
	return append(dst, r.out...), r.out
}

// rle holds RleEncoder's state for 0/1 values at bit width 1: a group of
// 8 packs into one byte, a repeated value takes one byte.
type rle struct {
	out      []byte
	prev     int
	repeat   int
	buffered [rleMinRepeat]int
	nbuf     int
	// The bit-packed run in progress and its groups, packed.
	inRun  bool
	groups int
	packed [rleMaxGroups]byte
}

func (r *rle) add(x int) {
	if x == r.prev {
		r.repeat++
		if r.repeat >= rleMinRepeat && r.repeat <= rleMaxRepeat {
			return
		}
		if r.repeat == rleMaxRepeat+1 {
			r.repeat = rleMaxRepeat
			r.writeRepeat()
			r.repeat, r.prev = 1, x
		}
	} else {
		if r.repeat >= rleMinRepeat {
			r.writeRepeat()
		}
		r.repeat, r.prev = 1, x
	}
	r.buffered[r.nbuf] = x
	r.nbuf++
	if r.nbuf == rleMinRepeat {
		r.packGroup()
	}
}

// packGroup packs the 8 buffered values into the bit-packed run.
func (r *rle) packGroup() {
	if r.groups >= rleMaxGroups {
		r.endRun(rleMinRepeat)
	}
	r.inRun = true
	var b byte
	for i, x := range r.buffered {
		b |= byte(x) << (7 - i)
	}
	r.packed[r.groups] = b
	r.nbuf, r.repeat = 0, 0
	r.groups++
}

// endRun writes the bit-packed run, last saying how many values of its
// last group count.
func (r *rle) endRun(last int) {
	if !r.inRun {
		return
	}
	r.out = append(r.out, byte(r.groups<<1|1), byte(last))
	r.out = append(r.out, r.packed[:r.groups]...)
	r.inRun, r.groups = false, 0
}

func (r *rle) writeRepeat() {
	r.endRun(rleMinRepeat)
	r.out = binary.AppendUvarint(r.out, uint64(r.repeat<<1))
	r.out = append(r.out, byte(r.prev))
	r.repeat, r.nbuf = 0, 0
}

func (r *rle) flush() {
	last := r.nbuf
	switch {
	case r.repeat >= rleMinRepeat:
		r.writeRepeat()
	case r.nbuf > 0:
		for i := r.nbuf; i < rleMinRepeat; i++ {
			r.buffered[i] = 0
		}
		r.packGroup()
		r.endRun(last)
	default:
		r.endRun(rleMinRepeat)
	}
}

// bitWriter writes values most significant bit first into whole bytes,
// gathering bits in a word and appending them four bytes at a time, so
// that a value costs a few shifts, not a loop over its bits.
type bitWriter struct {
	acc  uint64 // the pending bits are its low used bits (< 32)
	used int
}

// write appends the n low bits of v.
func (w *bitWriter) write(dst []byte, v uint64, n int) []byte {
	if n > 32 {
		dst = w.write(dst, v>>32, n-32)
		v, n = v&math.MaxUint32, 32
	}
	w.acc = w.acc<<n | v&(1<<n-1)
	w.used += n
	if w.used >= 32 {
		w.used -= 32
		dst = binary.BigEndian.AppendUint32(dst, uint32(w.acc>>w.used))
	}
	return dst
}

// bytes appends the whole bytes pending.
func (w *bitWriter) bytes(dst []byte) []byte {
	for w.used >= 8 {
		w.used -= 8
		dst = append(dst, byte(w.acc>>w.used))
	}
	return dst
}

// partial is the byte in progress after bytes, its unwritten bits zero.
func (w *bitWriter) partial() byte {
	return byte(w.acc << (8 - w.used))
}

// pad appends the pending bits, the last byte filled with zeros.
func (w *bitWriter) pad(dst []byte) []byte {
	dst = w.bytes(dst)
	if w.used > 0 {
		dst = append(dst, w.partial())
		w.acc, w.used = 0, 0
	}
	return dst
}
