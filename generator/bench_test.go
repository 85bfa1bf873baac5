package generator

import (
	"strings"
	"testing"
)

// benchmarkStream measures generating batches of one device, reporting
// points per second of one goroutine.
func benchmarkStream(b *testing.B, sets ...string) {
	c := cfg(b, append([]string{"SENSOR_NUMBER=500", "BATCH_SIZE_PER_WRITE=100"}, sets...)...)
	g := build(b, c, 1<<40)
	batch := g.NewBatch()
	st := g.NewStream(0)
	for i := 0; i < 100; i++ {
		st.Next(batch)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		st.Next(batch)
	}
	b.ReportMetric(float64(b.N)*float64(batch.Points())/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkGenerateFloat is the target of the generator: FLOAT and DOUBLE
// sensors, the default mix of value functions.
func BenchmarkGenerateFloat(b *testing.B) {
	benchmarkStream(b, "INSERT_DATATYPE_PROPORTION=0:0:0:1:1:0:0:0:0:0:0")
}

// BenchmarkGenerateMixed uses the default type mix (a sixth each of
// BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT).
func BenchmarkGenerateMixed(b *testing.B) { benchmarkStream(b) }

// BenchmarkOutOfOrderPoisson adds the POISSON out-of-order transform.
func BenchmarkOutOfOrderPoisson(b *testing.B) {
	benchmarkStream(b, "INSERT_DATATYPE_PROPORTION=0:0:0:1:1:0:0:0:0:0:0", "IS_OUT_OF_ORDER=true")
}

// BenchmarkOutOfOrderBatch adds the BATCH out-of-order transform.
func BenchmarkOutOfOrderBatch(b *testing.B) {
	benchmarkStream(b, "INSERT_DATATYPE_PROPORTION=0:0:0:1:1:0:0:0:0:0:0", "IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH")
}

// BenchmarkGenerateKind measures each value function alone (FLOAT and
// DOUBLE sensors), to see where BenchmarkGenerateFloat's time goes.
func BenchmarkGenerateKind(b *testing.B) {
	for i, kind := range []string{"line", "sine", "square", "random", "constant"} {
		ratios := []string{"LINE_RATIO=0", "SIN_RATIO=0", "SQUARE_RATIO=0", "RANDOM_RATIO=0", "CONSTANT_RATIO=0"}
		ratios[i] = strings.Replace(ratios[i], "=0", "=1", 1)
		b.Run(kind, func(b *testing.B) {
			benchmarkStream(b, append(ratios, "INSERT_DATATYPE_PROPORTION=0:0:0:1:1:0:0:0:0:0:0")...)
		})
	}
}
