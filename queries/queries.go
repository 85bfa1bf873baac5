// Package queries holds the query families Q1..Q12 and makes their
// DB-neutral parameters deterministically per client from QUERY_SEED, with
// the reference answer of every query computed from the generator's model.
// Adapters translate a Query into their language; they never invent
// parameters.
//
// Points: a query's result size is counted in value cells returned, excluding
// time and device columns: rows × sensors for raw-data queries, one per
// (device, sensor) for aggregates, one per (window, device, sensor) for
// group-by queries, one per (device, sensor) for the latest point. Only cells
// that hold a value count; a device with no data in range adds nothing.
package queries

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
)

// Family is a query family, numbered as iot-benchmark's Q1..Q12.
type Family int

// The query families. Their order is OPERATION_PROPORTION's.
const (
	PrecisePoint   Family = iota + 1 // Q1: values at one timestamp
	TimeRange                        // Q2: raw values in a time range
	ValueRange                       // Q3: Q2 with a value filter
	AggRange                         // Q4: aggregate over a time range
	AggValue                         // Q5: aggregate with a value filter, whole series
	AggRangeValue                    // Q6: aggregate over a time range with a value filter
	GroupBy                          // Q7: aggregate per time window
	LatestPoint                      // Q8: newest point
	RangeDesc                        // Q9: Q2 newest first
	ValueRangeDesc                   // Q10: Q3 newest first
	GroupByDesc                      // Q11: Q7 newest window first
	SetOperation                     // Q12: not supported
)

// Families lists the families tsbench runs, in order.
var Families = []Family{PrecisePoint, TimeRange, ValueRange, AggRange, AggValue, AggRangeValue, GroupBy, LatestPoint, RangeDesc, ValueRangeDesc, GroupByDesc}

// NumFamilies is the number of families, Q1..Q12 (Q12 included though
// tsbench does not run it), so that OPERATION_PROPORTION has NumFamilies+1
// weights.
const NumFamilies = int(SetOperation)

// traits say what a family's queries ask: the one table adapters and the
// reference answers read instead of testing family numbers.
type traits struct {
	name        string // iot-benchmark's report name
	timeRange   bool   // restricts time to [Start, End]
	valueFilter bool   // keeps only values > ValueBound
	aggregate   bool   // returns aggregates
	window      bool   // aggregates per time window
	desc        bool   // newest first
}

var familyTraits = [NumFamilies + 1]traits{
	PrecisePoint:   {name: "PRECISE_POINT"},
	TimeRange:      {name: "TIME_RANGE", timeRange: true},
	ValueRange:     {name: "VALUE_RANGE", timeRange: true, valueFilter: true},
	AggRange:       {name: "AGG_RANGE", timeRange: true, aggregate: true},
	AggValue:       {name: "AGG_VALUE", valueFilter: true, aggregate: true},
	AggRangeValue:  {name: "AGG_RANGE_VALUE", timeRange: true, valueFilter: true, aggregate: true},
	GroupBy:        {name: "GROUP_BY", timeRange: true, aggregate: true, window: true},
	LatestPoint:    {name: "LATEST_POINT"},
	RangeDesc:      {name: "RANGE_QUERY_DESC", timeRange: true, desc: true},
	ValueRangeDesc: {name: "VALUE_RANGE_QUERY_DESC", timeRange: true, valueFilter: true, desc: true},
	GroupByDesc:    {name: "GROUP_BY_DESC", timeRange: true, aggregate: true, window: true, desc: true},
	SetOperation:   {name: "SET_OPERATION"},
}

func (f Family) traits() traits {
	if f < 1 || int(f) > NumFamilies {
		return traits{}
	}
	return familyTraits[f]
}

// String is iot-benchmark's report name, e.g. TIME_RANGE.
func (f Family) String() string {
	if n := f.traits().name; n != "" {
		return n
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// ID is the short name, e.g. Q2.
func (f Family) ID() string { return fmt.Sprintf("Q%d", int(f)) }

// HasTimeRange reports whether the family restricts time to [Start, End].
func (f Family) HasTimeRange() bool { return f.traits().timeRange }

// HasValueFilter reports whether the family keeps only values > ValueBound.
func (f Family) HasValueFilter() bool { return f.traits().valueFilter }

// IsAggregate reports whether the family returns aggregates.
func (f Family) IsAggregate() bool { return f.traits().aggregate }

// IsGroupBy reports whether the family aggregates per time window.
func (f Family) IsGroupBy() bool { return f.traits().window }

// Desc reports whether results come newest first.
func (f Family) Desc() bool { return f.traits().desc }

// FamilyByIndex maps an OPERATION_PROPORTION position (1..12) to its family.
func FamilyByIndex(i int) Family { return Family(i) }

// Aggregates are the canonical aggregate names (config.Aggregates, where
// QUERY_AGGREGATE_FUN is checked). Adapters declare which they support.
var Aggregates = config.Aggregates

// CanonicalAggregate maps a QUERY_AGGREGATE_FUN value to a canonical name
// (config.CanonicalAggregate).
func CanonicalAggregate(s string) (string, bool) { return config.CanonicalAggregate(s) }

// Query is one query's parameters.
type Query struct {
	Family  Family
	Variant string // name in reports; the family's name unless a suite renames it
	Devices []*generator.Device
	Sensors []*generator.Sensor // the same sensors for every device
	// Start and End bound time: Start <= t <= End, except group-by queries,
	// whose windows [Start + k*GroupBy, Start + (k+1)*GroupBy) cover [Start, End).
	// Q1 asks for t = Start.
	Start, End int64
	ValueBound float64 // value filter: value > ValueBound
	Aggregate  string  // canonical aggregate for aggregate families
	GroupBy    int64   // window length, precision units
	Limit      int64   // rows limit for raw queries; -1 = none
	// Request, when not empty, is a suite's own request (Variant.Requests),
	// its placeholders filled: the adapter sends it in place of the
	// family's query and counts the value cells of its answer, which no
	// model checks.
	Request string
}

// Desc reports whether results come newest first.
func (q *Query) Desc() bool { return q.Family.Desc() }

// Aggregate families need numeric sensors unless they count.
func needsNumeric(f Family, agg string) bool {
	if f.HasValueFilter() {
		return true
	}
	return f.IsAggregate() && agg != "count"
}

// Params are the query keys of a configuration, read once: what the
// generator needs, and what a suite's variant changes (Variant.Apply maps
// Params to Params, never a whole Config).
type Params struct {
	Families   []Family // families with weight in OPERATION_PROPORTION, in order
	Devices    int      // QUERY_DEVICE_NUM
	Sensors    int      // QUERY_SENSOR_NUM
	Interval   int64    // QUERY_INTERVAL, precision units
	Step       int64    // STEP_SIZE
	LowerValue float64  // QUERY_LOWER_VALUE
	GroupBy    int64    // GROUP_BY_TIME_UNIT, precision units
	Aggregate  string   // QUERY_AGGREGATE_FUN as given
	Seed       int64    // QUERY_SEED
	Recent     bool     // IS_RECENT_QUERY
	Fixed      bool     // ENABLE_FIXED_QUERY
	Limit      int64    // RESULT_ROW_LIMIT
	// Of the data: the first timestamp and the step between rows.
	Start, PointStep int64
}

// ParamsOf reads the query parameters of a configuration.
func ParamsOf(c *config.Config) Params {
	p := Params{Devices: c.QueryDevices, Sensors: c.QuerySensors, Interval: c.QueryInterval, Step: c.StepSize,
		LowerValue: c.QueryLowerValue, GroupBy: c.GroupByTimeUnit, Aggregate: c.QueryAggregateFun, Seed: c.QuerySeed,
		Recent: c.RecentQuery, Fixed: c.FixedQuery, Limit: c.ResultRowLimit, Start: c.StartUnits(), PointStep: c.PointStep}
	for _, f := range Families {
		if c.OperationProportion[int(f)] > 0 {
			p.Families = append(p.Families, f)
		}
	}
	return p
}

// Generator makes the query parameters of a run. It is immutable and safe
// to share; each client takes its own Client.
type Generator struct {
	schema    *generator.Schema
	cfg       Params
	start     int64
	maxOffset int64 // largest start offset that keeps a window inside the data
	agg       string
	groups    []queryGroup
	numeric   []*generator.Sensor
	all       []*generator.Sensor
}

type queryGroup struct{ devices []*generator.Device } // written devices of a table (tree model: of a group)

// New validates that every family with weight can be built for this schema
// and returns the generator. rowsPerDevice is how many rows each device
// holds (or will hold when the run has written): windows stay inside them.
func New(s *generator.Schema, c Params, rowsPerDevice int64) (*Generator, error) {
	g := &Generator{schema: s, cfg: c, start: c.Start}
	agg, ok := CanonicalAggregate(c.Aggregate)
	used := c.Families
	needAgg := false
	for _, f := range used {
		needAgg = needAgg || f.IsAggregate()
	}
	if !ok && needAgg {
		return nil, &config.Error{Key: "QUERY_AGGREGATE_FUN", Value: c.Aggregate, Msg: "is not an aggregate tsbench knows", Valid: strings.Join(Aggregates, ", ")}
	}
	g.agg = agg
	span := c.PointStep * max(rowsPerDevice-1, 0)
	g.maxOffset = max(span-c.Interval, 0)
	for i := range s.Sensors {
		sn := &s.Sensors[i]
		g.all = append(g.all, sn)
		if sn.Type.Numeric() {
			g.numeric = append(g.numeric, sn)
		}
	}
	// A query's devices share a table: the table model's SQL reads one.
	// In the tree model a group is one table, so it is the same draw.
	for _, gr := range s.Tables {
		var qg queryGroup
		for _, d := range gr.Devices {
			if s.Devices[d].Written {
				qg.devices = append(qg.devices, &s.Devices[d])
			}
		}
		if len(qg.devices) >= c.Devices {
			g.groups = append(g.groups, qg)
		}
	}
	if len(used) == 0 {
		return g, nil
	}
	if len(g.groups) == 0 {
		return nil, &config.Error{Key: "QUERY_DEVICE_NUM", Value: fmt.Sprint(c.Devices), Msg: "is larger than the written devices of every group (of every table, in IoTDB's table model); a query takes all its devices from one",
			Valid: fmt.Sprintf("1..%d", largestGroup(s))}
	}
	for _, f := range used {
		if needsNumeric(f, agg) && len(g.numeric) < c.Sensors {
			return nil, &config.Error{Key: "QUERY_SENSOR_NUM", Value: fmt.Sprint(c.Sensors),
				Msg:   fmt.Sprintf("is larger than the %d numeric sensors that %s (%s) can use; INSERT_DATATYPE_PROPORTION gives too few INT32, INT64, FLOAT or DOUBLE sensors", len(g.numeric), f.ID(), f),
				Valid: fmt.Sprintf("1..%d, or more numeric sensors", len(g.numeric))}
		}
	}
	return g, nil
}

// largestGroup is the most written devices a query can draw from one group
// (one table, in the table model).
func largestGroup(s *generator.Schema) int {
	n := 0
	for _, gr := range s.Tables {
		w := 0
		for _, d := range gr.Devices {
			if s.Devices[d].Written {
				w++
			}
		}
		n = max(n, w)
	}
	return n
}

// Client makes one client's queries. Not safe for concurrent use.
type Client struct {
	g      *Generator
	id     int
	rngs   map[Family]*rand.Rand
	counts map[Family]int64
	recent int64 // newest timestamp this client wrote; -1 = none
}

// Client returns the query stream of client id.
func (g *Generator) Client(id int) *Client {
	return &Client{g: g, id: id, rngs: map[Family]*rand.Rand{}, counts: map[Family]int64{}, recent: -1}
}

// SetRecent tells the client the newest timestamp it has written, for
// IS_RECENT_QUERY.
func (c *Client) SetRecent(ts int64) { c.recent = ts }

// Next returns the next query of family f. The k-th query of a family of a
// client is the same in every run with the same configuration.
func (c *Client) Next(f Family) Query {
	g := c.g
	cfg := g.cfg
	rng, ok := c.rngs[f]
	if !ok || cfg.Fixed {
		rng = rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(c.clientSeedID())<<8|uint64(f)))
		c.rngs[f] = rng
	}
	k := c.counts[f]
	c.counts[f]++
	if cfg.Fixed {
		k = 0
	}
	q := Query{Family: f, Variant: f.String(), ValueBound: cfg.LowerValue, GroupBy: cfg.GroupBy, Limit: cfg.Limit}
	if f.IsAggregate() {
		q.Aggregate = g.agg
	}
	// Devices: QUERY_DEVICE_NUM distinct written devices of one table.
	grp := g.groups[rng.IntN(len(g.groups))]
	for _, i := range rng.Perm(len(grp.devices))[:cfg.Devices] {
		q.Devices = append(q.Devices, grp.devices[i])
	}
	pool := g.all
	if needsNumeric(f, g.agg) {
		pool = g.numeric
	}
	for _, i := range rng.Perm(len(pool))[:cfg.Sensors] {
		q.Sensors = append(q.Sensors, pool[i])
	}
	// Time: the k-th window starts k*STEP_SIZE*POINT_STEP after START_TIME,
	// wrapping so that it stays inside the written rows.
	off := k * cfg.Step * cfg.PointStep
	if g.maxOffset > 0 {
		off %= g.maxOffset + 1
	} else {
		off = 0
	}
	q.Start = g.start + off
	if cfg.Recent && c.recent >= 0 {
		q.Start = max(g.start, c.recent-cfg.Interval)
		if f == PrecisePoint {
			q.Start = c.recent
		}
	}
	q.End = q.Start + cfg.Interval
	if f == PrecisePoint {
		q.End = q.Start
	}
	return q
}

func (c *Client) clientSeedID() int {
	if c.g.cfg.Fixed {
		return 0
	}
	return c.id
}
