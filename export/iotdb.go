package export

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/apache/iotdb-client-go/v2/client"
)

// DefaultIoTDBPath is where runs go in IoTDB unless the URL names a path.
const DefaultIoTDBPath = "root.tsbench_results"

// textFields are the run's own measurements beside its values, so that a
// point says which run it is.
var textFields = []string{"run_id", "label", "version", "fingerprint", "status"}

func (r *Run) text() []any {
	return []any{r.ID, r.Label, r.Version, r.Fingerprint, r.Status}
}

// IoTDBDevice is the device a run's values of one operation in one phase
// go to: PATH.DB.PHASE.OPERATION, each made a name IoTDB takes unquoted
// (root.tsbench_results.SQLite.query_round_1.TIME_RANGE). Its points are at
// the runs' start times; its measurements are the metrics' fields
// (mean_latency, latency_p99, throughput, ...) as DOUBLE and run_id,
// label, version, fingerprint and status as TEXT.
func IoTDBDevice(path, db, phase, op string) string {
	return path + "." + Name(db) + "." + Name(phase) + "." + Name(op)
}

// iotdbPath is the URL's path as a series path, checked.
func iotdbPath(u *url.URL) (string, error) {
	p := strings.TrimPrefix(u.Path, "/")
	if p == "" {
		return DefaultIoTDBPath, nil
	}
	nodes := strings.Split(p, ".")
	if nodes[0] != "root" || len(nodes) < 2 {
		return "", fmt.Errorf("the path %q is not a series path under root (valid: e.g. %s)", p, DefaultIoTDBPath)
	}
	for _, n := range nodes {
		if n == "" || Name(n) != n || n[0] >= '0' && n[0] <= '9' {
			return "", fmt.Errorf("the path %q has a node %q that is not a plain name (valid: letters, digits and '_', not starting with a digit)", p, n)
		}
	}
	return p, nil
}

// ToIoTDB writes the runs into the IoTDB server of u
// (iotdb://USER:PASSWORD@HOST:PORT/PATH; root/root and DefaultIoTDBPath
// unless given): a point a run for each of its phases' operations
// (IoTDBDevice). Runs that start in the same millisecond are written a
// millisecond apart, in the order of their ids, so that none overwrites
// another. It returns the points written (a value each).
func ToIoTDB(ctx context.Context, u *url.URL, runs []Run) (int, error) {
	path, err := iotdbPath(u)
	if err != nil {
		return 0, err
	}
	if err := checkNames(runs); err != nil {
		return 0, err
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "6667"
	}
	user, pass := "root", "root"
	if u.User != nil {
		user = u.User.Username()
		if p, ok := u.User.Password(); ok {
			pass = p
		}
	}
	byStart(runs)
	var (
		devices []string
		meas    [][]string
		types   [][]client.TSDataType
		values  [][]any
		times   []int64
		points  int
	)
	last := map[string]int64{}
	for i := range runs {
		r := &runs[i]
		ts := r.StartedAt.UnixMilli()
		if prev, ok := last[r.DB]; ok && ts <= prev {
			ts = prev + 1
		}
		last[r.DB] = ts
		for _, g := range groups(r) {
			fs := g.sortedFields()
			m := append(append([]string{}, fs...), textFields...)
			t := make([]client.TSDataType, 0, len(m))
			v := make([]any, 0, len(m))
			for _, f := range fs {
				t = append(t, client.DOUBLE)
				v = append(v, g.Fields[f])
			}
			for _, x := range r.text() {
				t = append(t, client.TEXT)
				v = append(v, x)
			}
			devices = append(devices, IoTDBDevice(path, r.DB, g.Phase, g.Op))
			meas, types, values, times = append(meas, m), append(types, t), append(values, v), append(times, ts)
			points += len(fs)
		}
	}
	done := make(chan error, 1)
	go func() { // the client's calls take no context
		done <- func() error {
			s := client.NewSession(&client.Config{Host: host, Port: port, UserName: user, Password: pass})
			if err := s.Open(false, 10000); err != nil {
				return fmt.Errorf("connect to IoTDB at %s: %w", net.JoinHostPort(host, port), err)
			}
			defer s.Close()
			if err := s.ExecuteNonQueryStatement("CREATE DATABASE " + path); err != nil && !alreadyThere(err) {
				return fmt.Errorf("create database %s: %w", path, err)
			}
			const batch = 500
			for i := 0; i < len(devices); i += batch {
				j := min(i+batch, len(devices))
				if err := s.InsertRecords(devices[i:j], meas[i:j], types[i:j], values[i:j], times[i:j]); err != nil {
					return fmt.Errorf("write runs into IoTDB under %s: %w", path, err)
				}
			}
			return nil
		}()
	}()
	select {
	case err := <-done:
		return points, err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// alreadyThere says a CREATE DATABASE failed because the database, or one
// above or below it, exists: the points can still go in.
func alreadyThere(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "already") || strings.Contains(msg, "has been created")
}
