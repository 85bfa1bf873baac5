package sqlite

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// requests reads a suite's own requests in SQLite's SQL: the table of the
// query's group, devices by their ids, sensors as quoted columns.
var requests = &adapters.Requests{
	Language: func(*config.Config) string { return "sqlite" },
	Values: func(c *config.Config, s *generator.Schema, q *queries.Query) map[string]string {
		ids := make([]string, len(q.Devices))
		for i, d := range q.Devices {
			ids[i] = strconv.Itoa(d.ID)
		}
		cols := make([]string, len(q.Sensors))
		for i, sn := range q.Sensors {
			cols[i] = quote(sn.Name)
		}
		v := adapters.CommonValues(q, aggregateSQL[q.Aggregate])
		adapters.SetNames(v, ids, cols)
		if len(q.Devices) > 0 {
			v["table"] = quote(c.DBName + "_" + s.Groups[q.Devices[0].Group].Name)
		}
		return v
	},
}

// ownRequest runs a suite's own request and counts the non-null cells of its
// answer, the device and ts columns left out.
func (a *Adapter) ownRequest(ctx context.Context, q *queries.Query) (int64, error) {
	rows, err := a.db.QueryContext(ctx, q.Request)
	if err != nil {
		if isNoTable(err) {
			return 0, nil // nothing written yet: an empty result, as from a server
		}
		return 0, fmt.Errorf("%s's request: %w", q.Variant, err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return 0, fmt.Errorf("%s's request: %w", q.Variant, err)
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("%s's request: read result: %w", q.Variant, err)
		}
		for i, v := range vals {
			if v != nil && !adapters.KeyColumn(names[i], "device", "ts") {
				n++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("%s's request: %w", q.Variant, err)
	}
	return n, nil
}
