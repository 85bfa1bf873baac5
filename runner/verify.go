package runner

import (
	"context"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
)

// ExpectedPoints is what device d holds after a complete run of the plan
// (or, for a query-only plan, after the run that wrote its data): every
// sensor of every row, nothing for a device REAL_INSERT_RATE leaves out.
// Out-of-order modes permute rows and overwrite none, so they do not change it.
func (p *Plan) ExpectedPoints(d *generator.Device) int64 {
	if !d.Written {
		return 0
	}
	return p.DataRows * int64(len(p.Schema.Sensors))
}

// Verify counts the points every device of the plan holds and sets them
// against ExpectedPoints: the one check behind both the VERIFY step and
// `bench verify`, so the two cannot disagree about what a complete run is.
// Each count has READ_OPERATION_TIMEOUT_MS.
func Verify(ctx context.Context, p *Plan, cnt adapters.Counter) []DeviceCount {
	timeout := time.Duration(p.Config.ReadTimeoutMS) * time.Millisecond
	out := make([]DeviceCount, 0, len(p.Schema.Devices))
	for i := range p.Schema.Devices {
		d := &p.Schema.Devices[i]
		qctx, cancel := context.WithTimeout(ctx, timeout)
		n, err := cnt.CountPoints(qctx, d)
		cancel()
		out = append(out, DeviceCount{Device: d, Expected: p.ExpectedPoints(d), Found: n, Err: err})
	}
	return out
}
