package sqlite

import (
	"context"
	"testing"
)

// BenchmarkEncodeBatch measures turning a batch into statement arguments,
// the client-side share of a SQLite write.
func BenchmarkEncodeBatch(b *testing.B) {
	f := load(b, 0, "SENSOR_NUMBER=500", "BATCH_SIZE_PER_WRITE=100")
	gen := newGen(b, f, 1<<30)
	batch := gen.NewBatch()
	gen.NewStream(0).Next(batch)
	args := make([]any, batch.Len()*(len(batch.Columns)+2))
	b.ReportAllocs()
	for b.Loop() {
		k := 0
		for i := range batch.Timestamps {
			args[k], args[k+1] = int64(batch.Device.ID), batch.Timestamps[i]
			k += 2
			for j := range batch.Columns {
				args[k] = cell(&batch.Columns[j], i)
				k++
			}
		}
	}
	b.ReportMetric(float64(b.N)*float64(batch.Points())/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkWriteBatch measures a whole SQLite write: encoding, statements
// and the transaction, into a file in a temporary folder.
func BenchmarkWriteBatch(b *testing.B) {
	f := load(b, 0, "SENSOR_NUMBER=500", "BATCH_SIZE_PER_WRITE=100")
	gen := newGen(b, f, 1<<30)
	batch := gen.NewBatch()
	st := gen.NewStream(0)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		st.Next(batch)
		if err := f.a.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(batch.Points())/b.Elapsed().Seconds(), "points/s")
}
