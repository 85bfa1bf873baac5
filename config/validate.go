package config

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Validate checks the rules that involve more than one key: iot-benchmark's
// start-up checks where they apply, and the ones it forgets (which make it
// hang or silently skip work). It returns every problem found.
func Validate(c *Config) Errors {
	var errs Errors
	add := func(key, value, msg, valid string) {
		errs = append(errs, &Error{Key: key, Value: value, Msg: msg, Valid: valid})
	}
	itoa := func(n int) string { return fmt.Sprint(n) }

	if c.Groups > c.Devices {
		add("GROUP_NUMBER", itoa(c.Groups), fmt.Sprintf("is larger than DEVICE_NUMBER=%d, so some groups would have no device", c.Devices), fmt.Sprintf("1..%d", c.Devices))
	}
	if c.TableModel() && (c.Tables%c.Groups != 0 || c.Devices%c.Tables != 0) {
		add("IOTDB_TABLE_NUMBER", itoa(c.Tables), fmt.Sprintf("does not fit GROUP_NUMBER=%d and DEVICE_NUMBER=%d: in the table model the table number is a multiple of the group number, and the device number a multiple of the table number", c.Groups, c.Devices),
			"a multiple of GROUP_NUMBER that divides DEVICE_NUMBER")
	}
	if c.TagNumber != len(c.TagCardinality) {
		add("TAG_NUMBER", itoa(c.TagNumber), fmt.Sprintf("must be equal to the number of TAG_VALUE_CARDINALITY items (%d)", len(c.TagCardinality)), fmt.Sprintf("%d, or one cardinality per tag", len(c.TagCardinality)))
	}
	if c.ClientBind && c.DataClients > c.Devices {
		add("DATA_CLIENT_NUMBER", itoa(c.DataClients), fmt.Sprintf("is larger than DEVICE_NUMBER=%d; with IS_CLIENT_BIND=true every client needs a device of its own", c.Devices), fmt.Sprintf("1..%d, or IS_CLIENT_BIND=false", c.Devices))
	}
	if c.RealInsertRate <= 0 {
		add("REAL_INSERT_RATE", fmt.Sprint(c.RealInsertRate), "must be above 0", "> 0 and ≤ 1")
	}
	if len(c.Ports) > 1 && len(c.Ports) != len(c.Hosts) {
		add("PORT", joinInts(c.Ports), fmt.Sprintf("has %d ports for %d hosts", len(c.Ports), len(c.Hosts)), "one port, or one per HOST")
	}
	for _, k := range []struct{ key, val string }{{"DB_NAME", c.DBName}, {"GROUP_NAME_PREFIX", c.GroupPrefix}, {"DEVICE_NAME_PREFIX", c.DevicePrefix}, {"SENSOR_NAME_PREFIX", c.SensorPrefix},
		{"IOTDB_TABLE_NAME_PREFIX", c.TablePrefix}, {"TABLE_TIME_COLUMN", c.TimeColumn}, {"TAG_KEY_PREFIX", c.TagKeyPrefix}, {"TAG_VALUE_PREFIX", c.TagValuePrefix}} {
		if !isIdent(k.val, k.key == "DB_NAME" || k.key == "TABLE_TIME_COLUMN") {
			add(k.key, k.val, "must be letters, digits and underscores (it becomes part of table names and paths)", "for example test, g_, d_, s_")
		}
	}
	if !c.SensorTSAlignment {
		add("IS_SENSOR_TS_ALIGNMENT", "false", "is not supported: tsbench writes every sensor of a row together", "true")
	}
	if c.DevicesPerWrite > 1 && !c.ClientBind {
		add("DEVICE_NUM_PER_WRITE", itoa(c.DevicesPerWrite), "needs IS_CLIENT_BIND=true: a request writes devices of one client", "1, or IS_CLIENT_BIND=true")
	}
	// OBJECT, the last weight, is IoTDB's handle to a file stored outside
	// its series: not a value of a series a benchmark compares.
	if w := c.TypeProportion[NumDataTypes-1]; w > 0 {
		add("INSERT_DATATYPE_PROPORTION", joinFloats(c.TypeProportion), "gives OBJECT a share, a type tsbench does not generate", "weights for BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT, STRING, BLOB, TIMESTAMP and DATE; the last (OBJECT) must be 0")
	}
	sum := 0.0
	for _, r := range c.FunctionRatios {
		sum += r
	}
	if sum <= 0 {
		add("LINE_RATIO", "0", "and SIN_RATIO, SQUARE_RATIO, RANDOM_RATIO, CONSTANT_RATIO are all 0, so no sensor has a value function", "at least one ratio above 0")
	}
	// Timestamps are int64 in TIMESTAMP_PRECISION units: the last row of the
	// workload (and a query window past it) must fit, or they wrap around to
	// negative times that a database stores without complaint.
	rows := float64(c.Loop) * float64(c.BatchSize)
	start := float64(c.StartTime.Unix()) * 1000 * float64(c.Precision())
	if end := start + (rows+1)*float64(c.PointStep) + float64(c.QueryInterval); end >= math.MaxInt64 || start <= math.MinInt64 {
		add("START_TIME", c.StartTime.UTC().Format(time.RFC3339), fmt.Sprintf("with POINT_STEP=%d and TIMESTAMP_PRECISION=%s puts the last of %.0f rows a device past the largest timestamp (%d %s after 1970)", c.PointStep, c.TimestampPrecision, rows, int64(math.MaxInt64), c.TimestampPrecision),
			"an earlier START_TIME, a smaller POINT_STEP or LOOP, or a coarser TIMESTAMP_PRECISION")
	}
	if c.OperationProportion[12] > 0 {
		add("OPERATION_PROPORTION", joinFloats(c.OperationProportion), "gives Q12 (set operations) a share, which tsbench does not support", "the 13th weight 0")
	}
	nonZero := 0
	for _, w := range c.OperationProportion {
		if w > 0 {
			nonZero++
		}
	}
	if c.Loop != 0 && int64(nonZero) > c.Loop {
		add("LOOP", fmt.Sprint(c.Loop), fmt.Sprintf("is smaller than the %d operation kinds OPERATION_PROPORTION asks for, so some would never run", nonZero), fmt.Sprintf("≥ %d", nonZero))
	}
	if c.QueryDevices > c.Devices {
		add("QUERY_DEVICE_NUM", itoa(c.QueryDevices), fmt.Sprintf("is larger than DEVICE_NUMBER=%d", c.Devices), fmt.Sprintf("1..%d", c.Devices))
	}
	if c.QuerySensors > c.Sensors {
		add("QUERY_SENSOR_NUM", itoa(c.QuerySensors), fmt.Sprintf("is larger than SENSOR_NUMBER=%d", c.Sensors), fmt.Sprintf("1..%d", c.Sensors))
	}
	// Checked whatever the mix: a run without aggregate queries today is
	// the same file with them tomorrow.
	valid := strings.Join(Aggregates, ", ")
	switch _, ok := CanonicalAggregate(c.QueryAggregateFun); {
	case ok:
	case strings.EqualFold(c.QueryAggregateFun, "max_by"), strings.EqualFold(c.QueryAggregateFun, "min_by"):
		add("QUERY_AGGREGATE_FUN", c.QueryAggregateFun, "is not supported (it needs two arguments)", valid)
	case c.QueryAggregateFun == "":
		add("QUERY_AGGREGATE_FUN", "", "is empty", valid)
	default:
		add("QUERY_AGGREGATE_FUN", c.QueryAggregateFun, "is not an aggregate tsbench knows", valid)
	}
	if c.TargetThroughput > 0 && c.OpMinIntervalMS != 0 {
		add("TARGET_THROUGHPUT", fmt.Sprint(c.TargetThroughput), fmt.Sprintf("and OP_MIN_INTERVAL=%d both pace the operations", c.OpMinIntervalMS), "one of them: TARGET_THROUGHPUT=0 or OP_MIN_INTERVAL=0")
	}
	if c.BenchmarkIndex > 0 && !c.BenchmarkCluster {
		add("BENCHMARK_INDEX", itoa(c.BenchmarkIndex), "has no effect without BENCHMARK_CLUSTER=true", "0, or set BENCHMARK_CLUSTER=true")
	}
	if c.BenchmarkInstances > 1 && !c.BenchmarkCluster {
		add("BENCHMARK_INSTANCES", itoa(c.BenchmarkInstances), "has no effect without BENCHMARK_CLUSTER=true", "1, or set BENCHMARK_CLUSTER=true")
	}
	if c.BenchmarkCluster && c.BenchmarkIndex >= c.BenchmarkInstances && c.BenchmarkInstances > 1 {
		add("BENCHMARK_INDEX", itoa(c.BenchmarkIndex), fmt.Sprintf("is not an instance of BENCHMARK_INSTANCES=%d", c.BenchmarkInstances), fmt.Sprintf("0..%d", c.BenchmarkInstances-1))
	}
	if c.OutOfOrder && c.OutOfOrderMode == OutOfOrderPoisson && c.Lambda < 500 && float64(c.MaxK) < c.Lambda {
		add("MAX_K", itoa(c.MaxK), fmt.Sprintf("is below LAMBDA=%g, so most delays would be cut off", c.Lambda), fmt.Sprintf("≥ %g", c.Lambda))
	}
	return errs
}

func isIdent(s string, needLetter bool) bool {
	if s == "" {
		return !needLetter
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9':
			if needLetter && i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ":")
}
