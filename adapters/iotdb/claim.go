package iotdb

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
)

// lockDatabase holds the markers, one time series per DB_NAME, in the
// tree model also for a table-model run: apart from every database a run
// creates, queries or drops.
const lockDatabase = "root.tsbench_lock"

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// claim holds DB_NAME through a marker time series,
// root.tsbench_lock.<DB_NAME>.holder (TEXT): creating a time series that
// exists fails on the server, so two runs cannot both create it; its
// latest value says who holds it.
func claim(ctx context.Context, c *config.Config) (func(), string, error) {
	pc, err := sessionConfig(c, options(c))
	if err != nil {
		return nil, "", err
	}
	node := c.DBName
	if !plainName.MatchString(node) {
		node = "`" + strings.ReplaceAll(node, "`", "``") + "`"
	}
	m := &marker{pool: newPool(pc), device: lockDatabase + "." + node}
	what := "the databases root." + c.DBName + ".*"
	if c.TableModel() {
		what = "the table-model database " + c.DBName
	}
	return adapters.Hold(ctx, m, c, what)
}

type marker struct {
	pool   *pool
	device string
}

func (m *marker) series() string { return m.device + ".holder" }

func (m *marker) Create(ctx context.Context, content []byte) (bool, error) {
	if err := m.pool.exec(ctx, "CREATE DATABASE "+lockDatabase); err != nil && !exists(err) {
		return false, err
	}
	if err := m.pool.exec(ctx, "CREATE TIMESERIES "+m.series()+" WITH DATATYPE=TEXT, ENCODING=PLAIN"); err != nil {
		if exists(err) {
			return false, nil
		}
		return false, err
	}
	return true, m.Renew(ctx, content)
}

func (m *marker) Read(ctx context.Context) ([]byte, error) {
	var out []byte
	err := m.pool.query(ctx, "SELECT holder FROM "+m.device+" ORDER BY time DESC LIMIT 1", 1, func(ds *client.SessionDataSet) error {
		for i, col := range ds.GetColumnNames() {
			if col == client.TimestampColumnName {
				continue
			}
			if null, err := ds.IsNullByIndex(int32(i + 1)); err != nil || null {
				return err
			}
			v, err := ds.GetStringByIndex(int32(i + 1))
			out = []byte(v)
			return err
		}
		return nil
	})
	if err != nil && notFound(err) {
		return nil, nil
	}
	return out, err
}

func (m *marker) Renew(ctx context.Context, content []byte) error {
	return m.pool.exec(ctx, fmt.Sprintf("INSERT INTO %s(timestamp, holder) VALUES (%d, '%s')", m.device, time.Now().UnixMilli(),
		strings.ReplaceAll(string(content), "'", "''")))
}

func (m *marker) Remove(ctx context.Context) error {
	if err := m.pool.exec(ctx, "DELETE TIMESERIES "+m.series()); err != nil && !notFound(err) {
		return err
	}
	return nil
}

func (m *marker) Where() string { return "time series " + m.series() }

func (m *marker) Close() { m.pool.close() }
