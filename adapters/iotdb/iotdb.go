// Package iotdb is the Apache IoTDB adapter (tree and table models), for
// IoTDB 1.3 and 2.x, speaking IoTDB's thrift session protocol through the
// rpc package of github.com/apache/iotdb-client-go/v2.
//
// Layout as iot-benchmark's (spec §3.7, §7): one database root.<DB_NAME>.<group>
// per group, device paths root.<DB_NAME>.<group>.<device>, aligned time series
// (VECTOR=true) or a device template (TEMPLATE=true), encodings ENCODING_<TYPE>
// and COMPRESSOR. Writes are one tablet per batch (SESSION_BY_TABLET, filled
// straight from the columnar batch), one record per row (SESSION_BY_RECORD)
// or one insertRecords call per batch (SESSION_BY_RECORDS).
package iotdb

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// Insert modes, the last part of DB_SWITCH.
const (
	ByTablet  = "SESSION_BY_TABLET"
	ByRecord  = "SESSION_BY_RECORD"
	ByRecords = "SESSION_BY_RECORDS"
)

// Driver is IoTDB (DB_SWITCH=IoTDB-200-SESSION_BY_TABLET and friends).
func Driver() adapters.Driver {
	var aliases []string
	for _, v := range []string{"200", "130"} {
		for _, m := range []string{ByRecord, ByRecords} {
			aliases = append(aliases, "IoTDB-"+v+"-"+m)
		}
	}
	aliases = append(aliases, "IoTDB-130-"+ByTablet, "IoTDB")
	return adapters.Driver{
		Name:        "IoTDB-200-" + ByTablet,
		Aliases:     aliases,
		Description: "Apache IoTDB 1.3 / 2.x, tree and table models, session protocol (HOST, PORT)",
		Wire:        "tablets encoded as IoTDB's Java session sends them (TS_2DIFF, GORILLA, RLE; IoTDB 2.0.6 or newer) with ENABLE_IOTDB_RPC_COMPRESSION=true, the default; plain with false",
		Can:         adapters.Capabilities{Flush: true, ClearCache: true, Count: true, Answer: true, Version: true, Reconnect: true, MultiWrite: true},
		Servers:     []string{"iotdb"},
		Address: func(c *config.Config) []string {
			var out []string
			for i, h := range c.Hosts {
				out = append(out, joinHostPort(h, c.Ports[i]))
			}
			return out
		},
		Keys:     Keys(),
		Check:    check,
		Claim:    claim,
		Open:     open,
		Requests: requests,
	}
}

// insertMode is the insert method a DB_SWITCH value names.
func insertMode(dbSwitch string) string {
	s := strings.ToUpper(dbSwitch)
	switch {
	case strings.HasSuffix(s, ByRecords):
		return ByRecords
	case strings.HasSuffix(s, ByRecord):
		return ByRecord
	}
	return ByTablet
}

var aggregateSQL = map[string]string{"count": "count", "sum": "sum", "avg": "avg", "max_value": "max_value", "min_value": "min_value"}

var encodings = map[string]bool{"PLAIN": true, "RLE": true, "TS_2DIFF": true, "GORILLA": true, "DICTIONARY": true, "ZIGZAG": true, "CHIMP": true, "SPRINTZ": true, "RLBE": true, "GORILLA_V1": true, "DIFF": true, "FREQ": true, "REGULAR": true}

var compressors = map[string]bool{"UNCOMPRESSED": true, "SNAPPY": true, "LZ4": true, "GZIP": true, "ZSTD": true, "LZMA2": true}

func check(c *config.Config) config.Errors {
	var errs config.Errors
	o := options(c)
	if len(c.Ports) == 0 {
		errs = append(errs, &config.Error{Key: "PORT", Value: "", Msg: "is empty; IoTDB needs the port of its session service", Valid: "a port such as 6667, one per HOST"})
	}
	if !compressors[strings.ToUpper(o.Compressor)] {
		errs = append(errs, &config.Error{Key: "COMPRESSOR", Value: o.Compressor, Msg: "is not an IoTDB compressor", Valid: "UNCOMPRESSED, SNAPPY, LZ4, GZIP, ZSTD, LZMA2"})
	}
	for _, t := range encodingTypes {
		if e := o.Encodings[t]; !encodings[e] {
			errs = append(errs, &config.Error{Key: "ENCODING_" + t, Value: e, Msg: "is not an IoTDB encoding", Valid: "PLAIN, RLE, TS_2DIFF, GORILLA, DICTIONARY, ZIGZAG, CHIMP, SPRINTZ, RLBE"})
		}
	}
	if n := len(o.MetricsPorts); n > 1 && n != len(c.Hosts) {
		errs = append(errs, &config.Error{Key: "IOTDB_METRICS_PORT", Value: strings.Trim(strings.Join(strings.Fields(fmt.Sprint(o.MetricsPorts)), ","), "[]"), Msg: fmt.Sprintf("lists %d ports for %d HOST entries", n, len(c.Hosts)), Valid: "one port for every HOST entry, or one per entry"})
	}
	if o.Template && !o.Vector {
		// Works in IoTDB, but iot-benchmark's non-aligned templates are rare;
		// keep the combination explicit rather than silently changing it.
		errs = append(errs, &config.Error{Key: "TEMPLATE", Value: "true", Msg: "needs VECTOR=true in tsbench (aligned device templates)", Valid: "false, or VECTOR=true"})
	}
	if o.UseSSL {
		if _, err := tlsConfig(o); err != nil {
			errs = append(errs, &config.Error{Key: "TRUST_STORE_PATH", Value: o.TrustStore, Msg: err.Error(), Valid: "a PEM file of CA certificates (keytool -exportcert -rfc writes one from a Java trust store), or empty for the system's CAs"})
		}
	}
	errs = append(errs, adapters.UnsupportedFamilies(c, "IoTDB", func(f queries.Family) bool { return f != queries.SetOperation })...)
	if c.DevicesPerWrite > 1 && !c.TableModel() && insertMode(c.DBSwitch) != ByRecords {
		// iot-benchmark: "The combination of DEVICE_NUM_PER_WRITE and
		// insert-mode is not supported": a tree tablet is one device.
		errs = append(errs, &config.Error{Key: "DB_SWITCH", Value: c.DBSwitch, Msg: fmt.Sprintf("writes one device a request, but DEVICE_NUM_PER_WRITE=%d asks for several in the tree model", c.DevicesPerWrite), Valid: "IoTDB-200-SESSION_BY_RECORDS, or the table model"})
	}
	errs = append(errs, checkTable(c, o)...)
	return errs
}

// Adapter is a connection pool to one IoTDB (cluster).
type Adapter struct {
	cfg     *config.Config
	opts    *Options
	schema  *generator.Schema
	pool    *pool
	mode    string
	aligned bool
	root    string   // root.<DB_NAME>
	paths   []string // device path by device index
	names   []string // sensor names
	types   []int32  // IoTDB data type per sensor
	// encodings of an encoded tablet: the time's, then each sensor's.
	encodings []int8
	version   string // SHOW VERSION's answer, once asked
	build     string // and its BuildInfo
	enc       sync.Pool
	tm        *tableModel // the table model's layout; nil in the tree model
	route     *router     // leaders of devices; nil with one host
}

var (
	_ adapters.Adapter      = (*Adapter)(nil)
	_ adapters.Flusher      = (*Adapter)(nil)
	_ adapters.CacheClearer = (*Adapter)(nil)
	_ adapters.Counter      = (*Adapter)(nil)
	_ adapters.Answerer     = (*Adapter)(nil)
	_ adapters.Versioner    = (*Adapter)(nil)
	_ adapters.Builder      = (*Adapter)(nil)
	_ adapters.Wirer        = (*Adapter)(nil)
	_ adapters.Reconnecter  = (*Adapter)(nil)
	_ adapters.MultiWriter  = (*Adapter)(nil)
)

// IoTDB's TSDataType codes.
var tsType = map[generator.DataType]int32{
	generator.Boolean: int32(client.BOOLEAN), generator.Int32: int32(client.INT32), generator.Int64: int32(client.INT64),
	generator.Float: int32(client.FLOAT), generator.Double: int32(client.DOUBLE), generator.Text: int32(client.TEXT),
	generator.String: int32(client.STRING), generator.Blob: int32(client.BLOB), generator.Timestamp: int32(client.TIMESTAMP), generator.Date: int32(client.DATE),
}

// tlsConfig builds the client TLS settings of USE_SSL: the CA certificates
// of TRUST_STORE_PATH (PEM; Java key stores cannot be read from Go), or the
// system's CAs when it is empty.
func tlsConfig(o *Options) (*tls.Config, error) {
	t, err := adapters.ClientTLS(o.TrustStore, "the trust store")
	if errors.Is(err, adapters.ErrNoPEM) {
		return nil, fmt.Errorf("%w (a Java .jks trust store must be exported first)", err)
	}
	return t, err
}

// sessionConfig is how a session reaches the configured nodes: their
// addresses, the login, the protocol, TLS; a pool of one tree-model
// session unless the caller says otherwise.
func sessionConfig(c *config.Config, o *Options) (poolConfig, error) {
	var addrs []string
	for i, h := range c.Hosts {
		addrs = append(addrs, joinHostPort(h, c.Ports[i]))
	}
	connect := time.Duration(min(c.WriteTimeoutMS, 10000)) * time.Millisecond
	pc := poolConfig{addrs: addrs, user: c.Username, password: c.Password, compact: o.ThriftCompr, connectTimeout: connect, size: 1, zone: "UTC", dialect: config.DialectTree}
	if o.UseSSL {
		t, err := tlsConfig(o)
		if err != nil {
			return pc, fmt.Errorf("USE_SSL: TRUST_STORE_PATH=%s %w", o.TrustStore, err)
		}
		pc.tls = t
	}
	return pc, nil
}

func open(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
	c := p.Config
	o := options(c)
	a := &Adapter{cfg: c, opts: o, schema: p.Schema, mode: insertMode(c.DBSwitch), aligned: o.Vector, root: "root." + c.DBName}
	pc, err := sessionConfig(c, o)
	if err != nil {
		return nil, err
	}
	pc.size, pc.dialect = o.SessionPool+2, c.Dialect
	a.pool = newPool(pc)
	if len(pc.addrs) > 1 {
		a.route = newRouter()
	}
	if c.TableModel() {
		a.openTables(pc)
	}
	for i := range p.Schema.Devices {
		a.paths = append(a.paths, devicePath(c, p.Schema, &p.Schema.Devices[i]))
	}
	a.encodings = []int8{encTS2Diff}
	for _, s := range p.Schema.Sensors {
		a.names = append(a.names, s.Name)
		a.types = append(a.types, tsType[s.Type])
		a.encodings = append(a.encodings, encodingOf(s.Type))
	}
	// Connect now, so an unreachable host or a wrong password ends the run
	// before it starts, with one clear line.
	if err := a.pool.do(ctx, func(context.Context, *session) error { return nil }); err != nil {
		a.pool.close()
		return nil, err
	}
	if o.RPCCompr {
		if err := a.checkEncodedTablets(ctx); err != nil {
			a.closeAll()
			return nil, err
		}
	}
	return a, nil
}

// encodedSince is the first IoTDB release that reads encoded tablets; an
// older server ignores the request fields that say so and would take the
// encoded bytes for plain ones.
var encodedSince = [3]int{2, 0, 6}

// checkEncodedTablets refuses a server too old for
// ENABLE_IOTDB_RPC_COMPRESSION=true, before anything is written.
func (a *Adapter) checkEncodedTablets(ctx context.Context) error {
	v, err := a.ServerVersion(ctx)
	if err != nil {
		return err
	}
	if older(v, encodedSince) {
		return fmt.Errorf("ENABLE_IOTDB_RPC_COMPRESSION=true needs IoTDB %d.%d.%d or newer to read its encoded tablets; the server is %s: set ENABLE_IOTDB_RPC_COMPRESSION=false", encodedSince[0], encodedSince[1], encodedSince[2], v)
	}
	return nil
}

// older says whether the first version number in s (as "IoTDB 1.3.7" or
// "2.0.6-SNAPSHOT") is below want; a string without one is not older.
func older(s string, want [3]int) bool {
	m := versionNumber.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	for i := range want {
		n, _ := strconv.Atoi(m[i+1])
		if n != want[i] {
			return n < want[i]
		}
	}
	return false
}

var versionNumber = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// Reconnect drops the pooled sessions (a restarted server has closed them)
// and opens one, which fails until the server answers again.
func (a *Adapter) Reconnect(ctx context.Context) error {
	a.closeAll()
	return a.pool.do(ctx, func(context.Context, *session) error { return nil })
}

// Close closes every session.
func (a *Adapter) Close() error {
	a.closeAll()
	return nil
}

func (a *Adapter) closeAll() {
	a.pool.close()
	if a.route != nil {
		a.route.close()
	}
	if a.tm != nil {
		a.closeTables()
	}
}

// Wire says which wire format the run's writes take: tablets encoded or
// plain (ENABLE_IOTDB_RPC_COMPRESSION), or records, which the key does not
// change.
func (a *Adapter) Wire() string {
	switch {
	case a.tm == nil && (a.mode == ByRecords || a.mode == ByRecord):
		return "records (ENABLE_IOTDB_RPC_COMPRESSION applies to tablets only)"
	case a.opts.RPCCompr:
		return fmt.Sprintf("encoded tablets: TS_2DIFF times and integers, GORILLA floats, RLE booleans, PLAIN text; plain under %d rows (ENABLE_IOTDB_RPC_COMPRESSION=true)", minEncodedRows)
	}
	return "plain tablets (ENABLE_IOTDB_RPC_COMPRESSION=false)"
}

// ServerVersion asks the server, once: the check at open may have asked.
func (a *Adapter) ServerVersion(ctx context.Context) (string, error) {
	if a.version != "" {
		return a.version, nil
	}
	v, build := "", ""
	err := a.pool.query(ctx, "SHOW VERSION", 16, func(ds *client.SessionDataSet) error {
		s, err := ds.GetStringByIndex(1)
		v = s
		if err == nil && len(ds.GetColumnNames()) > 1 {
			// BuildInfo: the commit the server was built from (and a
			// "-dev" mark for a tree with changes): what tells two
			// SNAPSHOT builds apart.
			build, err = ds.GetStringByIndex(2)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("SHOW VERSION: %w", err)
	}
	a.version, a.build = "IoTDB "+v, build
	return a.version, nil
}

// ServerBuild is SHOW VERSION's BuildInfo column, read with the version.
func (a *Adapter) ServerBuild() string { return a.build }

// Cleanup drops the benchmark's databases and its device template.
func (a *Adapter) Cleanup(ctx context.Context) error {
	if a.tm != nil {
		return a.dropTables(ctx)
	}
	if err := a.pool.exec(ctx, "DROP DATABASE "+a.root+".**"); err != nil && !notFound(err) {
		return err
	}
	if err := a.pool.exec(ctx, "DROP DEVICE TEMPLATE "+a.opts.TemplateName); err != nil && !notFound(err) {
		// A template still set on a path that survived cannot be dropped; the
		// database drop above removed our paths, so anything else is real.
		return err
	}
	return nil
}

// notFound reports IoTDB's "does not exist" errors, which cleanup expects.
func notFound(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "not exist") || strings.Contains(msg, "does not exist") || strings.Contains(msg, "not found") || strings.Contains(msg, "no database") || strings.Contains(msg, "not be found")
}

func (a *Adapter) columnDefs() string {
	var defs []string
	for _, s := range a.schema.Sensors {
		t := s.Type.String()
		defs = append(defs, fmt.Sprintf("%s %s ENCODING=%s COMPRESSOR=%s", s.Name, t, a.opts.Encodings[t], strings.ToUpper(a.opts.Compressor)))
	}
	return strings.Join(defs, ", ")
}

// CreateSchema creates a database per group, then either a template set on
// every database or aligned (or plain) time series for every device, and
// waits until every database takes writes (settle).
func (a *Adapter) CreateSchema(ctx context.Context) error {
	if a.tm != nil {
		if err := a.createTables(ctx); err != nil {
			return err
		}
		return a.settle(ctx)
	}
	if err := a.createSeries(ctx); err != nil {
		return err
	}
	return a.settle(ctx)
}

// createSeries is the tree model's schema.
func (a *Adapter) createSeries(ctx context.Context) error {
	if a.opts.Template {
		if err := a.pool.exec(ctx, fmt.Sprintf("CREATE DEVICE TEMPLATE %s ALIGNED (%s)", a.opts.TemplateName, a.columnDefs())); err != nil && !exists(err) {
			return err
		}
	}
	for _, g := range a.schema.Groups {
		db := a.root + "." + g.Name
		if err := a.pool.exec(ctx, "CREATE DATABASE "+db); err != nil && !exists(err) {
			return err
		}
		if a.opts.Template {
			if err := a.pool.exec(ctx, fmt.Sprintf("SET DEVICE TEMPLATE %s TO %s", a.opts.TemplateName, db)); err != nil && !exists(err) {
				return err
			}
		}
	}
	for i := range a.schema.Devices {
		var stmt string
		switch {
		case a.opts.Template:
			stmt = "CREATE TIMESERIES USING DEVICE TEMPLATE ON " + a.paths[i]
		case a.aligned:
			stmt = fmt.Sprintf("CREATE ALIGNED TIMESERIES %s(%s)", a.paths[i], a.columnDefs())
		default:
			for _, s := range a.schema.Sensors {
				t := s.Type.String()
				d := fmt.Sprintf("%s.%s WITH DATATYPE=%s, ENCODING=%s, COMPRESSOR=%s", a.paths[i], s.Name, t, a.opts.Encodings[t], strings.ToUpper(a.opts.Compressor))
				if err := a.pool.exec(ctx, "CREATE TIMESERIES "+d); err != nil && !exists(err) {
					return err
				}
			}
			continue
		}
		if err := a.pool.exec(ctx, stmt); err != nil && !exists(err) {
			return err
		}
	}
	return nil
}

func exists(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "already")
}

// Flush persists memtables (FLUSH).
func (a *Adapter) Flush(ctx context.Context) error { return a.pool.exec(ctx, "FLUSH") }

// ClearCache drops IoTDB's caches (CLEAR CACHE).
func (a *Adapter) ClearCache(ctx context.Context) error { return a.pool.exec(ctx, "CLEAR CACHE") }

// CountPoints counts the values device d holds, over all its sensors.
func (a *Adapter) CountPoints(ctx context.Context, d *generator.Device) (int64, error) {
	sql := "SELECT count(*) FROM " + a.paths[d.Index]
	if a.tm != nil {
		sql = a.countSQL(d)
	}
	var total int64
	err := a.pool.query(ctx, sql, 16, func(ds *client.SessionDataSet) error {
		cols := ds.GetColumnNames()
		for i := range cols {
			if cols[i] == client.TimestampColumnName {
				continue
			}
			null, err := ds.IsNullByIndex(int32(i + 1))
			if err != nil || null {
				continue
			}
			v, err := ds.GetLongByIndex(int32(i + 1))
			if err != nil {
				return err
			}
			total += v
		}
		return nil
	})
	if err != nil && notFound(err) {
		return 0, nil
	}
	return total, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
