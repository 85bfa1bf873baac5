package config

import (
	"fmt"
	"strconv"
	"strings"
)

// LegacyKey is an iot-benchmark key name from an older release. Its value is
// translated to the current key(s) and the mapping announced once.
type LegacyKey struct {
	Old string
	New []string
	// Convert turns the old value into the new key's value; nil keeps it.
	Convert func(v string) (string, error)
	// Note is added to the announcement, e.g. when the old algorithm differed.
	Note string
}

func invertBool(v string) (string, error) {
	b, err := parseBool(v)
	if err != nil {
		return "", err
	}
	return strconv.FormatBool(!b), nil
}

func overflowMode(v string) (string, error) {
	switch strings.ToUpper(v) {
	case "0", OutOfOrderPoisson:
		return OutOfOrderPoisson, nil
	case "1", OutOfOrderBatch:
		return OutOfOrderBatch, nil
	}
	return "", bad("unknown out-of-order mode")
}

// legacyKeys lists the old names of shared keys; a database's own are in
// its KeySet.
func legacyKeys() []LegacyKey {
	return []LegacyKey{
		{Old: "CLIENT_NUMBER", New: []string{"DATA_CLIENT_NUMBER"}},
		{Old: "BATCH_SIZE", New: []string{"BATCH_SIZE_PER_WRITE"}},
		{Old: "CACHE_NUM", New: []string{"BATCH_SIZE_PER_WRITE"}},
		{Old: "IS_OVERFLOW", New: []string{"IS_OUT_OF_ORDER"}},
		{Old: "OVERFLOW_MODE", New: []string{"OUT_OF_ORDER_MODE"}, Convert: overflowMode, Note: "tsbench's algorithms differ from the 2019-2021 ones, see docs/compat.md"},
		{Old: "OVERFLOW_RATIO", New: []string{"OUT_OF_ORDER_RATIO"}},
		{Old: "IS_RANDOM_TIMESTAMP_INTERVAL", New: []string{"IS_REGULAR_FREQUENCY"}, Convert: invertBool, Note: "inverted"},
		{Old: "QUERY_LOWER_LIMIT", New: []string{"QUERY_LOWER_VALUE"}},
		{Old: "TIME_UNIT", New: []string{"GROUP_BY_TIME_UNIT"}},
		{Old: "OP_INTERVAL", New: []string{"OP_MIN_INTERVAL"}},
		{Old: "NUMBER_OF_DECIMAL_DIGIT", New: []string{"DOUBLE_LENGTH"}},
		{Old: "QUERY_DIVICE_NUM", New: []string{"QUERY_DEVICE_NUM"}},
		{Old: "USE_CLUSTER", New: []string{"BENCHMARK_CLUSTER"}},
		{Old: "FIRST_INDEX", New: []string{"BENCHMARK_INDEX"}},
		{Old: "SENSOR_TS_ALIGNMENT", New: []string{"IS_SENSOR_TS_ALIGNMENT"}},
		{Old: "DATA_TYPE", New: []string{"INSERT_DATATYPE_PROPORTION"}, Convert: func(v string) (string, error) {
			w := make([]string, NumDataTypes)
			for i := range w {
				w[i] = "0"
			}
			for i, n := range strings.Split(dataTypeNames, ":") {
				if strings.EqualFold(n, v) {
					w[i] = "1"
					return strings.Join(w, ":"), nil
				}
			}
			return "", bad("unknown data type")
		}},
	}
}

// IgnoredKey is a key iot-benchmark knows that has no effect in tsbench.
// When Allowed is non-empty, any other value is an error: silently running a
// different benchmark than the user asked for is worse than refusing.
type IgnoredKey struct {
	Name    string
	Allowed string
	Reason  string
}

// IgnoredKeys are the keys every database ignores and then each database's
// own (KeySet.Ignored), in the order docs/config.md lists them, with the
// database a key belongs to ("" for every database).
func IgnoredKeys(cat Catalog) (keys []IgnoredKey, owner []string) {
	for _, ik := range ignoredKeys() {
		keys, owner = append(keys, ik), append(owner, "")
	}
	if cat == nil {
		return keys, owner
	}
	for _, ks := range cat.KeySets() {
		for _, ik := range ks.Ignored {
			keys, owner = append(keys, ik), append(owner, ks.Owner)
		}
	}
	return keys, owner
}

func ignoredKeys() []IgnoredKey {
	var ks []IgnoredKey
	add := func(reason, allowed string, names ...string) {
		for _, n := range names {
			ks = append(ks, IgnoredKey{Name: n, Allowed: allowed, Reason: reason})
		}
	}
	add("double writes are not supported; run tsbench once per database and use compare", "false", "IS_DOUBLE_WRITE", "IS_COMPARISON", "IS_POINT_COMPARISON")
	add("wall-clock timestamps would make runs unrepeatable", "false", "IS_RECORD_CURRENT_REALLY_TIME")
	add("the schema is created from one connection", "", "SCHEMA_CLIENT_NUMBER")
	add("no adapter of tsbench logs in with a token (Elasticsearch's API key is ES_API_KEY)", "", "TOKEN")
	add("only the second database of double writes used it", "", "ANOTHER_DB_SWITCH", "ANOTHER_HOST", "ANOTHER_PORT", "ANOTHER_USERNAME", "ANOTHER_PASSWORD", "ANOTHER_DB_NAME", "ANOTHER_TOKEN", "VERIFICATION_STEP_SIZE")
	add("tsbench always measures, with exact HdrHistogram percentiles", "", "USE_MEASUREMENT", "RESULT_PRECISION")
	add("values are computed at each real timestamp, not from a buffer", "", "WORKLOAD_BUFFER_SIZE")
	add("results are saved as run records under RESULTS_DIR", "", "CSV_OUTPUT", "TEST_DATA_PERSISTENCE", "RECORD_SPLIT", "RECORD_SPLIT_MAX_LINE", "TEST_DATA_STORE_IP", "TEST_DATA_STORE_PORT", "TEST_DATA_STORE_DB", "TEST_DATA_STORE_USER", "TEST_DATA_STORE_PW", "TEST_DATA_WRITE_TIME_OUT", "TEST_DATA_MAX_CONNECTION", "MYSQL_REAL_INSERT_RATE", "REMARK")
	add("progress is printed every LOG_PRINT_INTERVAL seconds; the result tables at the end", "", "IS_QUIET_MODE", "RESULT_PRINT_INTERVAL")
	add("bench generate writes one file a device (FILE_PATH replays it)", "", "BIG_BATCH_SIZE")
	add("the data-set copy and anomaly modes are not supported", "", "IS_COPY_MODE", "IS_ADD_ANOMALY", "ANOMALY_RATE", "ANOMALY_TIMES")
	add("Q12 (set operations) is not supported", "", "QUERY_SET_OP_TYPE", "QUERY_SET_OP_NUM")
	add("only TS-aligned batches are written", "", "TS_ALIGNMENT_RATIO")
	add("the OBJECT type is not supported", "", "OBJECT_LENGTH", "OBJECT_QUERY_FULL_CONTENT")
	add("it belongs to an adapter tsbench does not have", "", "REST_PORT", "REST_AUTHORIZATION", "HTTP_CLIENT_POOL_SIZE", "KAFKA_LOCATION", "ZOOKEEPER_LOCATION", "TOPIC_NAME", "COMPRESSION", "TIMESCALEDB_REPLICATION_FACTOR", "TDENGINE_WAL_LEVEL", "TDENGINE_REPLICA", "INFLUXDB_ORG", "CNOSDB_SHARD_NUMBER", "DOLPHINDB_DEVICE_HASH_BUCKETS", "KEY_STORE_PATH", "KEY_STORE_PWD", "SSL_PROTOCOL")
	add("it no longer has an effect in iot-benchmark either", "", "MONITOR_INTERVAL", "NET_DEVICE", "INTERVAL", "ENABLE_DOUBLE_INSERT", "CLIENT_MAX_WRT_RATE", "USE_OPS", "CSV_MAX_LINE", "CSV_FILE_SPLIT",
		"QUERY_CHOICE", "WRITE_RATIO", "SIMPLE_QUERY_RATIO", "MAX_QUERY_RATIO", "MIN_QUERY_RATIO", "AVG_QUERY_RATIO", "COUNT_QUERY_RATIO", "SUM_QUERY_RATIO", "RANDOM_INSERT_RATIO", "UPDATE_RATIO",
		"IS_USE_MYSQL", "MYSQL_URL", "LIMIT_CLAUSE_MODE", "QUERY_LIMIT_N", "QUERY_LIMIT_OFFSET", "QUERY_SLIMIT_N", "QUERY_SLIMIT_OFFSET", "MUL_DEV_BATCH", "TAG_NAME_PREFIX", "DEVICE_TAGS",
		"VERSION", "INSERT_MODE", "DB_URL", "INFLUX_URL", "OPENTSDB_URL", "CTSDB_URL", "INFLUX_DB_NAME")
	return ks
}

// applyLegacy rewrites old key names and old value forms in raw (upper-case
// key -> value) in place. It returns one announcement per mapping and the
// problems found in old values.
func applyLegacy(raw map[string]string, origin map[string]int, legacy []LegacyKey) (notes, warnings []string, errs Errors) {
	for _, lk := range legacy {
		v, ok := raw[lk.Old]
		if !ok {
			continue
		}
		delete(raw, lk.Old)
		nv := v
		if lk.Convert != nil {
			var err error
			if nv, err = lk.Convert(v); err != nil {
				errs = append(errs, &Error{Key: lk.Old, Value: v, Msg: err.Error() + " in this old key"})
				continue
			}
		}
		var used []string
		for _, n := range lk.New {
			if cur, set := raw[n]; set && origin[lk.Old] <= origin[n] {
				warnings = append(warnings, fmt.Sprintf("%s=%s and its old name %s=%s are both set; using %s=%s", n, cur, lk.Old, v, n, cur))
				continue
			} else if set {
				// The old name came from a later source (--set over the
				// file): the later source wins, whatever the name.
				warnings = append(warnings, fmt.Sprintf("%s=%s and its old name %s=%s are both set; using %s=%s, which comes later (%s)", n, cur, lk.Old, v, n, nv, sourceName(origin[lk.Old])))
			}
			raw[n] = nv
			used = append(used, n+"="+nv)
		}
		if len(used) > 0 {
			msg := fmt.Sprintf("%s is an old name; using it as %s", lk.Old, strings.Join(used, " and "))
			if lk.Note != "" {
				msg += " (" + lk.Note + ")"
			}
			notes = append(notes, msg)
		}
	}
	// Old value forms of current keys.
	if v, ok := raw["OUT_OF_ORDER_MODE"]; ok && (v == "0" || v == "1") {
		nv, _ := overflowMode(v)
		raw["OUT_OF_ORDER_MODE"] = nv
		notes = append(notes, fmt.Sprintf("OUT_OF_ORDER_MODE=%s is an old value; using it as OUT_OF_ORDER_MODE=%s", v, nv))
	}
	padList := func(key string, n int, olds ...int) {
		v, ok := raw[key]
		if !ok {
			return
		}
		fields := len(strings.Split(v, ":"))
		if fields >= n {
			return
		}
		if len(olds) > 0 && !containsInt(olds, fields) {
			return // a malformed list; validation reports it
		}
		nv := v + strings.Repeat(":0", n-fields)
		raw[key] = nv
		notes = append(notes, fmt.Sprintf("%s has %d fields, an old form; using it as %s=%s", key, fields, key, nv))
	}
	padList("INSERT_DATATYPE_PROPORTION", NumDataTypes, 6, 10)
	padList("OPERATION_PROPORTION", NumOperations)
	return notes, warnings, errs
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func sourceName(origin int) string {
	switch origin {
	case fromSet:
		return "--set"
	case fromEnv:
		return "the environment"
	}
	return "the file"
}
