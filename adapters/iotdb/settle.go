package iotdb

import (
	"context"
	"fmt"
)

// settleName names the time series (tree model) or table (table model)
// that settle writes one point into, in each of the run's databases, and
// removes again; instances of a distributed run have one each, so that
// one's delete does not meet another's write.
const settleName = "tsbench_settle"

func (a *Adapter) settleTarget() string {
	if a.cfg.Distributed() {
		return fmt.Sprintf("%s_%d", settleName, a.cfg.BenchmarkIndex)
	}
	return settleName
}

// settle makes every database of the run take a write before the ingest,
// then leaves the databases as they were: one point into a series (table)
// of its own, which is then deleted (dropped). The write creates the
// database's data regions, and it waits for what IoTDB holds the first
// write into a database for: a database of the same name dropped just
// before (the cleanup of the run before, IS_DELETE_DATA) is deleted region
// by region, and a write into the new one waits until that is done. On
// IoTDB 2.0.10 the wait was about 2.5 s after a run of the weekly config,
// half of its 4 s ingest, and 15–18 s after 10 M points
// (docs/servers.md); the creation of the regions, about 0.15 s, was in the
// ingest too. Both now fall in the create-schema step, which is not
// measured, and take what they take, not a fixed INIT_WAIT_TIME.
func (a *Adapter) settle(ctx context.Context) error {
	t := a.cfg.StartUnits() // in the first time partition the ingest writes
	name := a.settleTarget()
	if a.tm != nil {
		for _, db := range a.tm.dbs {
			table := db + "." + name
			for _, sql := range []string{
				"CREATE TABLE IF NOT EXISTS " + table + " (v INT32 FIELD)",
				fmt.Sprintf("INSERT INTO %s(time, v) VALUES (%d, 0)", table, t),
				"DROP TABLE IF EXISTS " + table,
			} {
				if err := a.pool.exec(ctx, sql); err != nil {
					return fmt.Errorf("settle database %s: %w", db, err)
				}
			}
		}
		return nil
	}
	if a.opts.Template {
		// A series written under a database with a device template joins
		// the template, and with it every device of the run: TEMPLATE=true
		// runs go without, and a kept-running server's hold stays in their
		// ingest (docs/servers.md).
		return nil
	}
	for _, g := range a.schema.Groups {
		db := a.root + "." + g.Name
		series := db + "." + name + ".v"
		if err := a.pool.exec(ctx, "CREATE TIMESERIES "+series+" WITH DATATYPE=INT32, ENCODING=PLAIN"); err != nil && !exists(err) {
			return fmt.Errorf("settle database %s: %w", db, err)
		}
		if err := a.pool.exec(ctx, fmt.Sprintf("INSERT INTO %s.%s(time, v) VALUES (%d, 0)", db, name, t)); err != nil {
			return fmt.Errorf("settle database %s: %w", db, err)
		}
		if err := a.pool.exec(ctx, "DELETE TIMESERIES "+db+"."+name+".**"); err != nil && !notFound(err) {
			return fmt.Errorf("settle database %s: %w", db, err)
		}
	}
	return nil
}
