// Package null is the adapter that accepts everything and stores nothing:
// a run against it measures tsbench's own ceiling (generation, scheduling,
// recording) with no database in the way.
package null

import (
	"context"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// Driver is the Null database (DB_SWITCH=Null).
func Driver() adapters.Driver {
	return adapters.Driver{
		Name:        "Null",
		Aliases:     []string{"FakeDB"},
		Description: "accepts every write, answers every query with nothing: measures tsbench itself",
		Can:         adapters.Capabilities{Flush: true},
		Check:       func(*config.Config) config.Errors { return nil },
		Open: func(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
			return Adapter{}, nil
		},
	}
}

// Adapter does nothing, successfully, unless its context is already done.
type Adapter struct{}

var (
	_ adapters.Adapter = Adapter{}
	_ adapters.Flusher = Adapter{}
)

// Cleanup does nothing.
func (Adapter) Cleanup(ctx context.Context) error { return ctx.Err() }

// CreateSchema does nothing.
func (Adapter) CreateSchema(ctx context.Context) error { return ctx.Err() }

// Write discards the batch.
func (Adapter) Write(ctx context.Context, _ *generator.Batch) error { return ctx.Err() }

// Query returns no points.
func (Adapter) Query(ctx context.Context, _ *queries.Query) (int64, error) { return 0, ctx.Err() }

// Flush does nothing.
func (Adapter) Flush(ctx context.Context) error { return ctx.Err() }

// Close does nothing.
func (Adapter) Close() error { return nil }
