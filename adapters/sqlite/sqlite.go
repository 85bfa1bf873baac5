// Package sqlite is the embedded default database: SQLite through the pure-Go
// modernc.org/sqlite, so a run needs no server and no C compiler.
//
// Schema: one table per group, <DB_NAME>_<group>, with a row per (device,
// timestamp) and a column per sensor, primary key (device, ts), WITHOUT
// ROWID. Rows are written in one transaction per batch through multi-row
// prepared INSERT OR REPLACE statements (a timestamp written twice keeps the
// last value, as in a time-series database). iot-benchmark's SQLite module
// wrote one autocommitted row per point, which measured fsync, not SQLite.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// maxColumns is SQLite's default column limit; two go to device and ts.
const maxColumns = 2000

// maxVariables is SQLite's default limit of bound parameters per statement.
const maxVariables = 32766

// Driver is the SQLite database (DB_SWITCH=SQLite).
func Driver() adapters.Driver {
	return adapters.Driver{
		Name:        "SQLite",
		Description: "embedded SQLite database file (the default; needs no server)",
		Can:         adapters.Capabilities{Flush: true, Count: true, Answer: true, Version: true, Reconnect: true},
		// Closing the file drops SQLite's page cache: that is its restart.
		ReconnectRestarts: true,
		Address:           func(c *config.Config) []string { return []string{Path(c)} },
		Footprint:         footprint,
		Discard:           discard,
		// The instances of a distributed run share the file on purpose.
		Claim: func(_ context.Context, c *config.Config) (func(), string, error) {
			release, err := claim(Path(c), c.BenchmarkCluster)
			return release, "", err
		},
		Keys:     Keys(),
		Check:    check,
		Requests: requests,
		Open:     open,
	}
}

// discard removes the database file and its journal, so that the next run
// creates it anew: a file that holds the free pages of earlier runs' dropped
// tables is another starting point than a new one.
func discard(c *config.Config) error {
	p := Path(c)
	// Only the run's own file: SQLITE_PATH may name a file of the user's
	// with other tables in it, which cleanup leaves alone.
	if rel, err := filepath.Rel(c.ResultsDir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &config.Error{Key: "SQLITE_PATH", Value: p, Msg: "is outside RESULTS_DIR, so it may hold tables of yours: bench routine does not delete a file it did not make",
			Valid: "no SQLITE_PATH (the file is then RESULTS_DIR/DB_NAME.db), or --keep-state"}
	}
	for _, f := range []string{p, p + "-wal", p + "-shm", p + "-journal"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("discard the SQLite file: %w", err)
		}
	}
	return nil
}

func check(c *config.Config) config.Errors {
	var errs config.Errors
	if c.Sensors > maxColumns-2 {
		errs = append(errs, &config.Error{Key: "SENSOR_NUMBER", Value: strconv.Itoa(c.Sensors), Msg: "is more than a SQLite table can hold as columns", Valid: fmt.Sprintf("1..%d with DB_SWITCH=SQLite", maxColumns-2)})
	}
	errs = append(errs, adapters.UnsupportedFamilies(c, "SQLite", func(f queries.Family) bool { return f != queries.SetOperation })...)
	errs = append(errs, adapters.TreeModelOnly(c, "SQLite")...)
	return errs
}

// Options are SQLite's own keys.
type Options struct {
	Path string // SQLITE_PATH
}

// Keys is SQLite's key set.
func Keys() *config.KeySet {
	return config.NewKeySet[Options]("SQLite", "SQLite file", []config.Key{
		config.String("SQLITE_PATH", "", "SQLite database file; empty means `<RESULTS_DIR>/<DB_NAME>.db`.", func(o *Options) *string { return &o.Path }),
	}, nil)
}

// Path returns the database file a configuration uses.
func Path(c *config.Config) string {
	if o, ok := config.OptionsOf[Options](c); ok && o.Path != "" {
		return o.Path
	}
	return filepath.Join(c.ResultsDir, c.DBName+".db")
}

// Adapter is an open SQLite database file.
type Adapter struct {
	db     *sql.DB
	dsn    string
	path   string
	cfg    *config.Config
	schema *generator.Schema
	tables []*table // by group index
	args   sync.Pool
}

var (
	_ adapters.Adapter     = (*Adapter)(nil)
	_ adapters.Flusher     = (*Adapter)(nil)
	_ adapters.Counter     = (*Adapter)(nil)
	_ adapters.Answerer    = (*Adapter)(nil)
	_ adapters.Versioner   = (*Adapter)(nil)
	_ adapters.Reconnecter = (*Adapter)(nil)
	_ adapters.Sizer       = (*Adapter)(nil)
)

type table struct {
	name    string
	columns string // quoted sensor columns, comma-separated
	mu      sync.Mutex
	inserts map[int]*sql.Stmt // by rows per statement
}

func open(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
	c := p.Config
	path := Path(c)
	if p.Existing {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("the SQLite file %s does not exist (SQLITE_PATH, or RESULTS_DIR/DB_NAME.db): nothing to verify", path)
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create the folder of the SQLite file %s: %w", path, err)
		}
	}
	// WAL lets queries run while a writer commits; busy_timeout makes
	// concurrent writers wait for the lock instead of failing at once; an
	// IMMEDIATE transaction takes the write lock up front, so two writers
	// never deadlock upgrading read locks.
	dsn := "file:" + path + "?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	a := &Adapter{dsn: dsn, path: path, cfg: c, schema: p.Schema}
	db, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	a.db = db
	for _, g := range p.Schema.Groups {
		var cols []string
		for _, s := range p.Schema.Sensors {
			cols = append(cols, quote(s.Name))
		}
		a.tables = append(a.tables, &table{name: c.DBName + "_" + g.Name, columns: strings.Join(cols, ", "), inserts: map[int]*sql.Stmt{}})
	}
	return a, nil
}

func (a *Adapter) connect(ctx context.Context) (*sql.DB, error) {
	db, err := sql.Open("sqlite", a.dsn)
	if err != nil {
		return nil, fmt.Errorf("open SQLite file %s: %w", a.path, err)
	}
	db.SetMaxOpenConns(a.cfg.DataClients + 2)
	db.SetMaxIdleConns(a.cfg.DataClients + 2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open SQLite file %s: %w", a.path, err)
	}
	return db, nil
}

// Reconnect is SQLite's restart: it closes the database file, dropping
// SQLite's page cache and prepared statements, and opens it again.
func (a *Adapter) Reconnect(ctx context.Context) error {
	for _, t := range a.tables {
		t.mu.Lock()
		t.inserts = map[int]*sql.Stmt{}
		t.mu.Unlock()
	}
	if err := a.db.Close(); err != nil {
		return fmt.Errorf("close SQLite file %s: %w", a.path, err)
	}
	db, err := a.connect(ctx)
	if err != nil {
		return err
	}
	a.db = db
	return nil
}

// quote makes a name an SQL identifier. Square brackets, not double
// quotes: SQLite reads a double-quoted name that matches no column as a
// string literal, so count("s_10") on a table without s_10 counted every
// row, and VERIFY passed a database that lacked half its sensors. A
// bracketed name that matches nothing is an error. Names are letters,
// digits and underscores (config checks them), so none holds a bracket.
func quote(name string) string { return "[" + name + "]" }

// Close closes the database file.
func (a *Adapter) Close() error { return a.db.Close() }

// ServerVersion is the SQLite library version.
func (a *Adapter) ServerVersion(ctx context.Context) (string, error) {
	var v string
	err := a.db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v)
	return "SQLite " + v, err
}

// Cleanup drops every table of this benchmark's DB_NAME and group prefix,
// including groups of earlier runs with another GROUP_NUMBER.
func (a *Adapter) Cleanup(ctx context.Context) error {
	rows, err := a.db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return fmt.Errorf("list SQLite tables: %w", err)
	}
	var drop []string
	prefix := a.cfg.DBName + "_" + a.cfg.GroupPrefix
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return fmt.Errorf("list SQLite tables: %w", err)
		}
		if rest, ok := strings.CutPrefix(name, prefix); ok && isDigits(rest) {
			drop = append(drop, name)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list SQLite tables: %w", err)
	}
	for _, t := range a.tables {
		t.mu.Lock()
		for _, st := range t.inserts {
			st.Close()
		}
		t.inserts = map[int]*sql.Stmt{}
		t.mu.Unlock()
	}
	for _, name := range drop {
		if _, err := a.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+quote(name)); err != nil {
			return fmt.Errorf("drop SQLite table %s: %w", name, err)
		}
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var sqlTypes = map[generator.DataType]string{
	generator.Boolean: "INTEGER", generator.Int32: "INTEGER", generator.Int64: "INTEGER",
	generator.Float: "REAL", generator.Double: "REAL", generator.Text: "TEXT",
	// A DATE is ISO 8601 text, the form SQLite's date functions read.
	generator.String: "TEXT", generator.Blob: "BLOB", generator.Timestamp: "INTEGER", generator.Date: "TEXT",
}

// CreateSchema creates one table per group.
func (a *Adapter) CreateSchema(ctx context.Context) error {
	var cols []string
	for _, s := range a.schema.Sensors {
		cols = append(cols, quote(s.Name)+" "+sqlTypes[s.Type])
	}
	for _, t := range a.tables {
		stmt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (device INTEGER NOT NULL, ts INTEGER NOT NULL, %s, PRIMARY KEY (device, ts)) WITHOUT ROWID", quote(t.name), strings.Join(cols, ", "))
		if _, err := a.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create SQLite table %s: %w", t.name, err)
		}
	}
	return nil
}

// insert returns the prepared statement that inserts n rows into t.
func (a *Adapter) insert(ctx context.Context, t *table, n int) (*sql.Stmt, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st, ok := t.inserts[n]; ok {
		return st, nil
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(a.schema.Sensors)+2), ", ") + ")"
	q := fmt.Sprintf("INSERT OR REPLACE INTO %s (device, ts, %s) VALUES %s", quote(t.name), t.columns, strings.TrimSuffix(strings.Repeat(one+", ", n), ", "))
	st, err := a.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare insert into %s: %w", t.name, err)
	}
	t.inserts[n] = st
	return st, nil
}

// Write stores a batch in one transaction.
func (a *Adapter) Write(ctx context.Context, b *generator.Batch) error {
	t := a.tables[b.Device.Group]
	width := len(b.Columns) + 2
	perStmt := max(1, min(b.Len(), maxVariables/width))
	full, err := a.insert(ctx, t, perStmt)
	if err != nil {
		return err
	}
	args := a.argSlice(perStmt * width)
	defer a.args.Put(args)
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer tx.Rollback()
	dev := int64(b.Device.ID)
	for from := 0; from < b.Len(); from += perStmt {
		to := min(from+perStmt, b.Len())
		st := full
		if to-from != perStmt {
			if st, err = a.insert(ctx, t, to-from); err != nil {
				return err
			}
		}
		vals := (*args)[:(to-from)*width]
		k := 0
		for i := from; i < to; i++ {
			vals[k], vals[k+1] = dev, b.Timestamps[i]
			k += 2
			for j := range b.Columns {
				vals[k] = cell(&b.Columns[j], i)
				k++
			}
		}
		if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, vals...); err != nil {
			return fmt.Errorf("insert %d rows of %s into %s: %w", to-from, b.Device.Name, t.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit batch of %s: %w", b.Device.Name, err)
	}
	return nil
}

func (a *Adapter) argSlice(n int) *[]any {
	if p, ok := a.args.Get().(*[]any); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]any, n)
	return &s
}

func cell(c *generator.Column, i int) any {
	switch c.Sensor.Type {
	case generator.Boolean:
		if c.Bools[i] {
			return int64(1)
		}
		return int64(0)
	case generator.Int32:
		return int64(c.Int32s[i])
	case generator.Int64, generator.Timestamp:
		return c.Int64s[i]
	case generator.Float:
		return float64(c.Float32s[i])
	case generator.Double:
		return c.Float64s[i]
	case generator.Date:
		return generator.Day(c.Int32s[i]).String()
	case generator.Blob:
		// Bound as bytes, or SQLite would keep a string in the BLOB column.
		return []byte(c.Texts[i])
	}
	return c.Texts[i]
}

// Flush checkpoints the write-ahead log into the database file.
func (a *Adapter) Flush(ctx context.Context) error {
	if _, err := a.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint SQLite WAL: %w", err)
	}
	return nil
}

// DataSize is the database file's size with its write-ahead log (empty
// after Flush's checkpoint); not the -shm file, the log's index in shared
// memory, which holds no data.
func (a *Adapter) DataSize(ctx context.Context) (int64, string, error) {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		st, err := os.Stat(a.path + suffix)
		switch {
		case err == nil:
			n += st.Size()
		case suffix == "" || !os.IsNotExist(err):
			return 0, "", fmt.Errorf("size of %s: %w", a.path+suffix, err)
		}
	}
	return n, "the file " + a.path, ctx.Err()
}

// CountPoints counts the values device d holds.
func (a *Adapter) CountPoints(ctx context.Context, d *generator.Device) (int64, error) {
	t := a.tables[d.Group]
	var counts []string
	for _, s := range a.schema.Sensors {
		counts = append(counts, "count("+quote(s.Name)+")")
	}
	var n sql.NullInt64
	q := fmt.Sprintf("SELECT %s FROM %s WHERE device = ?", strings.Join(counts, " + "), quote(t.name))
	if err := a.db.QueryRowContext(ctx, q, d.ID).Scan(&n); err != nil {
		if isNoTable(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("count points of %s: %w", d.Name, err)
	}
	return n.Int64, nil
}

func isNoTable(err error) bool { return err != nil && strings.Contains(err.Error(), "no such table") }

// Query runs q and counts the value cells of its result.
func (a *Adapter) Query(ctx context.Context, q *queries.Query) (int64, error) {
	if q.Request != "" {
		return a.ownRequest(ctx, q)
	}
	var n int64
	err := a.run(ctx, q, func(_ *generator.Device, _ int, _ int64, v any) {
		if v != nil {
			n++
		}
	})
	return n, err
}

// Answer runs q and returns its result values.
func (a *Adapter) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	var out queries.Answer
	err := a.run(ctx, q, func(d *generator.Device, s int, ts int64, v any) {
		if v == nil {
			return
		}
		out = append(out, queries.Cell{Device: d.Name, Sensor: q.Sensors[s].Name, Time: ts, Value: value(v)})
	})
	return out, err
}

func value(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case []byte:
		return string(x)
	}
	return v
}

// bytesPerPoint is what a point costs in the SQLite file, measured: the
// shipped config.properties (20 sensors of six types, 4.8 M points) makes a
// 27 MB file, 5.6 bytes a point; 6 leaves room for the WAL.
const bytesPerPoint = 6

// footprint estimates the file a run leaves and the space free in its folder.
func footprint(c *config.Config, points float64) (need float64, free int64, where string, err error) {
	path := Path(c)
	dir := filepath.Dir(path)
	// The folder may not exist yet: the space is that of its nearest parent.
	for {
		if _, err := os.Stat(dir); err == nil || dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	free, err = freeBytes(dir)
	return points * bytesPerPoint, free, path, err
}
