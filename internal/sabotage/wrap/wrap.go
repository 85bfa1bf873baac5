// Package wrap breaks a registry's adapters as package sabotage plans it,
// for the bench binary built with the tag "sabotage" (cmd/bench's
// sabotage_on.go); a package of its own because the adapters' tests import
// package sabotage, and this one imports the adapters.
package wrap

import (
	"context"
	"os"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/elasticsearch"
	"github.com/tsbench/tsbench/adapters/iotdb"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/internal/sabotage"
	"github.com/tsbench/tsbench/queries"
)

// Registry wraps each driver's adapter so that answers of the family
// TSBENCH_SABOTAGE names come out wrong: the test of CHECK_ANSWERS through
// the binary. Each wrapper embeds the concrete adapter, so every optional
// capability stays exactly as it was.
func Registry(r adapters.Registry) (adapters.Registry, error) {
	p, err := sabotage.Parse(os.Getenv(sabotage.Env))
	if err != nil || p.Family == 0 {
		return r, err
	}
	out := make(adapters.Registry, len(r))
	for i, d := range r {
		open := d.Open
		d.Open = func(ctx context.Context, params adapters.Params) (adapters.Adapter, error) {
			a, err := open(ctx, params)
			switch x := a.(type) {
			case *sqlite.Adapter:
				return sqliteBroken{x, p}, err
			case *iotdb.Adapter:
				return iotdbBroken{x, p}, err
			case *elasticsearch.Adapter:
				return esBroken{x, p}, err
			}
			return a, err
		}
		out[i] = d
	}
	return out, nil
}

type sqliteBroken struct {
	*sqlite.Adapter
	p sabotage.Plan
}

func (b sqliteBroken) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	a, err := b.Adapter.Answer(ctx, q)
	return b.p.Answer(q, a), err
}

func (b sqliteBroken) Query(ctx context.Context, q *queries.Query) (int64, error) {
	n, err := b.Adapter.Query(ctx, q)
	return b.p.Points(q, n), err
}

type iotdbBroken struct {
	*iotdb.Adapter
	p sabotage.Plan
}

func (b iotdbBroken) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	a, err := b.Adapter.Answer(ctx, q)
	return b.p.Answer(q, a), err
}

func (b iotdbBroken) Query(ctx context.Context, q *queries.Query) (int64, error) {
	n, err := b.Adapter.Query(ctx, q)
	return b.p.Points(q, n), err
}

type esBroken struct {
	*elasticsearch.Adapter
	p sabotage.Plan
}

func (b esBroken) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	a, err := b.Adapter.Answer(ctx, q)
	return b.p.Answer(q, a), err
}

func (b esBroken) Query(ctx context.Context, q *queries.Query) (int64, error) {
	n, err := b.Adapter.Query(ctx, q)
	return b.p.Points(q, n), err
}
