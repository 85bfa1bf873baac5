package iotdb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/config"
)

// Options are IoTDB's own keys, parsed by the config loader when DB_SWITCH
// names IoTDB. Field comments name the key.
type Options struct {
	Compressor    string            // COMPRESSOR
	Encodings     map[string]string // ENCODING_<TYPE>
	Vector        bool              // VECTOR
	Template      bool              // TEMPLATE
	TemplateName  string            // TEMPLATE_NAME
	ThriftCompr   bool              // ENABLE_THRIFT_COMPRESSION
	RPCCompr      bool              // ENABLE_IOTDB_RPC_COMPRESSION
	SessionPool   int               // IOTDB_SESSION_POOL_SIZE (0 resolved to DATA_CLIENT_NUMBER)
	UseSSL        bool              // USE_SSL
	TrustStore    string            // TRUST_STORE_PATH
	AlignByDevice bool              // ALIGN_BY_DEVICE
	// MetricsPorts are the DataNodes' Prometheus ports (IOTDB_METRICS_PORT),
	// one for every HOST entry or one per entry; 0 asks none.
	MetricsPorts          []int
	ConfigNodeMetricsPort int     // IOTDB_CONFIGNODE_METRICS_PORT
	MetricsRaw            bool    // IOTDB_METRICS_RAW
	MetricsIntervalS      float64 // IOTDB_METRICS_INTERVAL
}

// encodingTypes are the IoTDB data types that have an ENCODING_<TYPE> key.
var encodingTypes = []string{"BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE", "TEXT", "STRING", "BLOB", "TIMESTAMP", "DATE"}

var encodingDefaults = map[string]string{"BOOLEAN": "RLE", "INT32": "TS_2DIFF", "INT64": "TS_2DIFF", "FLOAT": "GORILLA", "DOUBLE": "GORILLA", "TEXT": "DICTIONARY", "STRING": "PLAIN", "BLOB": "PLAIN", "TIMESTAMP": "TS_2DIFF", "DATE": "TS_2DIFF"}

// Keys is IoTDB's key set: iot-benchmark's IoTDB schema and session keys,
// its old names and the IoTDB keys tsbench accepts but does not use.
func Keys() *config.KeySet {
	type O = Options
	keys := []config.Key{
		config.String("COMPRESSOR", "LZ4", "IoTDB compressor of every series.", func(o *O) *string { return &o.Compressor }),
		config.Bool("VECTOR", "true", "IoTDB: create and write aligned time series.", func(o *O) *bool { return &o.Vector }),
		config.Bool("TEMPLATE", "false", "IoTDB: use a device template.", func(o *O) *bool { return &o.Template }),
		config.String("TEMPLATE_NAME", "BenchmarkTemplate", "IoTDB: name of the device template.", func(o *O) *string { return &o.TemplateName }),
		config.Bool("ENABLE_THRIFT_COMPRESSION", "false", "IoTDB session: thrift compact protocol.", func(o *O) *bool { return &o.ThriftCompr }),
		config.Bool("ENABLE_IOTDB_RPC_COMPRESSION", "true", "IoTDB tablets sent with encoded columns, as IoTDB's Java session sends them by default (TS_2DIFF times and integers, GORILLA floats, RLE booleans; tablets of 10 rows or more); false sends them plain. Needs IoTDB 2.0.6 or newer.", func(o *O) *bool { return &o.RPCCompr }),
		config.Int("IOTDB_SESSION_POOL_SIZE", "0", 0, 10000, "0 (= DATA_CLIENT_NUMBER) or ≥ 1", "IoTDB session pool size.", func(o *O) *int { return &o.SessionPool }),
		config.Bool("USE_SSL", "false", "IoTDB: connect with TLS (the server needs enable_thrift_ssl=true).", func(o *O) *bool { return &o.UseSSL }),
		config.String("TRUST_STORE_PATH", "", "IoTDB TLS: PEM file of the CA certificates to trust; empty trusts the system's CAs. A Java .jks trust store must be exported first (keytool -exportcert -rfc).", func(o *O) *string { return &o.TrustStore }),
		// iot-benchmark lists it among the query parameters: it changes
		// the shape of every answer, so it is part of the workload.
		config.Bool("ALIGN_BY_DEVICE", "false", "IoTDB: add ALIGN BY DEVICE to the queries.", func(o *O) *bool { return &o.AlignByDevice }).AsWorkload(),
		config.Custom("IOTDB_METRICS_PORT", "9092", "0, or a port (one for every HOST entry, or one per entry)",
			"IoTDB server telemetry: the port of each DataNode's Prometheus reporter (dn_metric_prometheus_reporter_port), on its HOST entry, sampled every SERVER_METRICS_INTERVAL; the DataNodes' TsFile sizes there are the disk footprint. 0 asks none.",
			func(o *O, v string) error {
				o.MetricsPorts = o.MetricsPorts[:0]
				for _, f := range strings.Split(v, ",") {
					n, err := strconv.Atoi(strings.TrimSpace(f))
					if err != nil || n < 0 || n > 65535 {
						return fmt.Errorf("%q is not a port", strings.TrimSpace(f))
					}
					o.MetricsPorts = append(o.MetricsPorts, n)
				}
				return nil
			}),
		config.Int("IOTDB_CONFIGNODE_METRICS_PORT", "9091", 0, 65535, "0, or a port", "IoTDB server telemetry: the port of the ConfigNode's Prometheus reporter (cn_metric_prometheus_reporter_port) on the first HOST entry. 0 asks none.", func(o *O) *int { return &o.ConfigNodeMetricsPort }),
		config.Float("IOTDB_METRICS_INTERVAL", "5", 0, 3600, "0 (every SERVER_METRICS_INTERVAL) or seconds, at most 3600",
			"IoTDB server telemetry: how far apart the nodes' Prometheus endpoints are read, beside a read at every phase's start and end. One read of a DataNode's costs the server 20–60 ms of CPU and tsbench about 3 ms (it lists some 5,000 series): every SERVER_METRICS_INTERVAL would be a few per cent of either.",
			func(o *O) *float64 { return &o.MetricsIntervalS }),
		config.Bool("IOTDB_METRICS_RAW", "false", "IoTDB server telemetry: keep every series the nodes' Prometheus reporters list, beside the curated figures (thousands a node: a large record).", func(o *O) *bool { return &o.MetricsRaw }),
	}
	for _, typ := range encodingTypes {
		keys = append(keys, config.Custom("ENCODING_"+typ, encodingDefaults[typ], "an IoTDB encoding name", "IoTDB encoding of "+typ+" series.",
			func(o *O, v string) error {
				if o.Encodings == nil {
					o.Encodings = map[string]string{}
				}
				o.Encodings[typ] = strings.ToUpper(v)
				return nil
			}))
	}
	ks := config.NewKeySet("IoTDB", "IoTDB Schema and Session", keys, func(o *O, c *config.Config) map[string]string {
		if o.SessionPool == 0 {
			o.SessionPool = c.DataClients
			return map[string]string{"IOTDB_SESSION_POOL_SIZE": fmt.Sprint(o.SessionPool)}
		}
		return nil
	})
	ks.Defaults = map[string]string{"PORT": "6667"}
	ks.Legacy = []config.LegacyKey{
		{Old: "ENCODING", New: []string{"ENCODING_BOOLEAN", "ENCODING_INT32", "ENCODING_INT64", "ENCODING_FLOAT", "ENCODING_DOUBLE", "ENCODING_TEXT"}},
	}
	ignore := func(reason, allowed string, names ...string) {
		for _, n := range names {
			ks.Ignored = append(ks.Ignored, config.IgnoredKey{Name: n, Allowed: allowed, Reason: reason})
		}
	}
	ignore("tsbench writes the tables themselves, not writable views", "false", "IOTDB_TABLE_WRITABLE_VIEW")
	ignore("tsbench's IoTDB adapter does not use it", "", "ENABLE_AUTO_FETCH", "IOTDB_USE_DEBUG", "IOTDB_USE_DEBUG_RATIO")
	ignore("TRUST_STORE_PATH is a PEM file, which has no password", "", "TRUST_STORE_PWD")
	return ks
}

// options returns the IoTDB keys of a configuration; one loaded without
// them (tests of shared code) gets their defaults, with the pool sized to
// the clients as the loader would.
func options(c *config.Config) *Options {
	if o, ok := config.OptionsOf[Options](c); ok {
		return o
	}
	o := config.OptionsOrDefaults[Options](c, Keys())
	o.SessionPool = c.DataClients
	return o
}
