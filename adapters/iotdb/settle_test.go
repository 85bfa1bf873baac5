package iotdb

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iotdb-client-go/v2/client"
)

// TestSettle checks that the create-schema step leaves every database of
// the run with its data regions made (the write that waits for a dropped
// namesake's regions) and nothing of its own behind: no series or table
// named tsbench_settle, and no device beyond the workload's. TEMPLATE=true
// runs do not settle; TestIoTDB's template cases check that their template
// gains no measurement.
func TestSettle(t *testing.T) {
	server(t)
	for _, tc := range []struct {
		name string
		sets []string
	}{
		{"Tree", nil},
		{"Table", []string{"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := runPlan(t, append([]string{"DB_NAME=settle", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "DATA_CLIENT_NUMBER=2", "SENSOR_NUMBER=3"}, tc.sets...)...)
			a := openAfter(t, p)
			ctx := context.Background()
			// Twice: the second time, the databases were just dropped.
			for range 2 {
				if err := a.Cleanup(ctx); err != nil {
					t.Fatal(err)
				}
				if err := a.CreateSchema(ctx); err != nil {
					t.Fatal(err)
				}
			}
			dbs := map[string]bool{}
			if err := a.pool.query(ctx, "SHOW REGIONS", 1024, func(ds *client.SessionDataSet) error {
				typ, err := ds.GetString("Type")
				if err != nil {
					return err
				}
				db, err := ds.GetString("Database")
				if typ == "DataRegion" && strings.Contains(db, "settle") {
					dbs[db] = true
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(dbs) != 2 {
				t.Fatalf("data regions after create schema are in %v, want both of the run's databases", dbs)
			}
			var left []string
			sql := "SHOW DEVICES root.settle.**"
			if a.tm != nil {
				sql = "SHOW TABLES FROM " + a.tm.dbs[0]
			}
			if err := a.pool.query(ctx, sql, 1024, func(ds *client.SessionDataSet) error {
				s, err := ds.GetStringByIndex(1)
				left = append(left, s)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(left, func(s string) bool { return strings.Contains(s, settleName) }) {
				t.Fatalf("%s after create schema: %v, still holds %s", sql, left, settleName)
			}
			if len(left) == 0 {
				t.Fatalf("%s after create schema: nothing, so the check above proves nothing", sql)
			}
		})
	}
}
