package iotdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// devicePath is a device's path in the tree model:
// root.<DB_NAME>.<group>[.<tag value>…].<device>.
func devicePath(c *config.Config, s *generator.Schema, d *generator.Device) string {
	levels := append(append([]string{"root." + c.DBName, s.Groups[d.Group].Name}, d.Tags...), d.Name)
	return strings.Join(levels, ".")
}

// tableName is a device's table in the table model, with its database.
func tableName(c *config.Config, s *generator.Schema, d *generator.Device) string {
	tb := &s.Tables[d.Table]
	return c.DBName + "_" + s.Groups[tb.Group].Name + "." + tb.Name
}

// requests reads a suite's own requests in IoTDB's SQL: "iotdb" in the
// tree model (devices as paths), "iotdb-table" in the table model (devices
// as quoted device_id values, the table with its database). The window
// carries its unit ("1000ms"), as IoTDB's durations do.
var requests = &adapters.Requests{
	Language: func(c *config.Config) string {
		if c.TableModel() {
			return "iotdb-table"
		}
		return "iotdb"
	},
	Values: func(c *config.Config, s *generator.Schema, q *queries.Query) map[string]string {
		agg := aggregateSQL[q.Aggregate]
		if c.TableModel() {
			agg = tableAggregate[q.Aggregate]
		}
		v := adapters.CommonValues(q, agg)
		v["window"] = fmt.Sprintf("%d%s", q.GroupBy, c.TimestampPrecision)
		devs := make([]string, len(q.Devices))
		for i, d := range q.Devices {
			if c.TableModel() {
				devs[i] = "'" + d.Name + "'"
			} else {
				devs[i] = devicePath(c, s, d)
			}
		}
		names := make([]string, len(q.Sensors))
		for i, sn := range q.Sensors {
			names[i] = sn.Name
		}
		adapters.SetNames(v, devs, names)
		if c.TableModel() && len(q.Devices) > 0 {
			v["table"] = tableName(c, s, q.Devices[0])
		}
		return v
	},
}

// ownRequest runs a suite's own request and counts the non-null cells of its
// answer, the time and device columns left out.
func (a *Adapter) ownRequest(ctx context.Context, q *queries.Query) (int64, error) {
	var n int64
	var skip []bool
	err := a.pool.query(ctx, q.Request, fetchSize, func(ds *client.SessionDataSet) error {
		if skip == nil {
			for _, c := range ds.GetColumnNames() {
				skip = append(skip, adapters.KeyColumn(c, "Time", "Device", a.cfg.TimeColumn, deviceColumn))
			}
		}
		for i := range skip {
			if skip[i] {
				continue
			}
			null, err := ds.IsNullByIndex(int32(i + 1))
			if err != nil {
				return err
			}
			if !null {
				n++
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("%s's request: %w", q.Variant, err)
	}
	return n, nil
}
