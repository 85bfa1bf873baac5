// Package sabotage breaks answers on purpose, for the tests that prove
// CHECK_ANSWERS catches a wrong answer through the bench binary: a binary
// built with the build tag "sabotage" wraps every adapter so that one
// query family loses a row or has a timestamp shifted. Nothing else uses
// it; the bench binary that users run is built without the tag.
package sabotage

import (
	"fmt"
	"strings"

	"github.com/tsbench/tsbench/queries"
)

// Env is the environment variable a sabotage binary reads:
// FAMILY:drop (the last cell of every answer of the family is lost, and
// Query counts one point less) or FAMILY:shift (the first cell's timestamp
// is one unit later). FAMILY is a name such as GROUP_BY or an id such as Q7.
const Env = "TSBENCH_SABOTAGE"

// Plan is one sabotage: which family, and what happens to its answers.
type Plan struct {
	Family queries.Family
	Shift  bool // else drop
}

// Parse reads Env's value; a zero Plan (no family) breaks nothing.
func Parse(spec string) (Plan, error) {
	if spec == "" {
		return Plan{}, nil
	}
	name, kind, _ := strings.Cut(spec, ":")
	var p Plan
	for _, f := range queries.Families {
		if strings.EqualFold(name, f.String()) || strings.EqualFold(name, f.ID()) {
			p.Family = f
		}
	}
	if p.Family == 0 || kind != "drop" && kind != "shift" {
		return Plan{}, fmt.Errorf("%s=%q: want FAMILY:drop or FAMILY:shift, e.g. GROUP_BY:drop", Env, spec)
	}
	p.Shift = kind == "shift"
	return p, nil
}

// Answer breaks an answer of the plan's family.
func (p Plan) Answer(q *queries.Query, a queries.Answer) queries.Answer {
	if q.Family != p.Family || len(a) == 0 {
		return a
	}
	if p.Shift {
		a[0].Time++
		return a
	}
	return a[:len(a)-1]
}

// Points is what Query counts for a query of n points.
func (p Plan) Points(q *queries.Query, n int64) int64 {
	if q.Family != p.Family || p.Shift || n == 0 {
		return n
	}
	return n - 1
}
