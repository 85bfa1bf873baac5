package queries

import (
	"testing"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/configtest"
)

// BenchmarkCheck is what CHECK_ANSWERS costs tsbench per checked query,
// after the latency is taken: computing the model's answer and matching
// the database's with it (runner's answerCheck.verify), with the shipped config.properties' query
// shape (2 devices × 3 sensors, 1000 rows a device in a time range, 10
// windows) over 20,000 rows a device. AGG_VALUE reads every row of its
// devices, as the database does.
func BenchmarkCheck(b *testing.B) {
	c := configtest.Load(b, nil, "DEVICE_NUMBER=20", "SENSOR_NUMBER=20", "GROUP_NUMBER=2", "QUERY_DEVICE_NUM=2", "QUERY_SENSOR_NUM=3",
		"QUERY_INTERVAL=5000000", "POINT_STEP=5000", "GROUP_BY_TIME_UNIT=500000", "QUERY_LOWER_VALUE=-5", "QUERY_AGGREGATE_FUN=avg",
		"INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:0:0:0:0:0", "IS_OUT_OF_ORDER=true", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0")
	s, err := generator.NewSchema(c)
	if err != nil {
		b.Fatal(err)
	}
	const rows = 20000
	g := generator.New(s, c, rows)
	qg, err := New(s, ParamsOf(c), rows)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range Families {
		cl := qg.Client(0)
		qs := make([]Query, 16)
		answers := make([]Answer, len(qs))
		for i := range qs {
			qs[i] = cl.Next(f)
			answers[i] = Expected(g, &qs[i])
			// The database's order: newest first, as a descending family sends it.
			for l, r := 0, len(answers[i])-1; l < r; l, r = l+1, r-1 {
				answers[i][l], answers[i][r] = answers[i][r], answers[i][l]
			}
		}
		b.Run(f.String(), func(b *testing.B) {
			got := make(Answer, 0, 8192)
			cells := 0
			for i := 0; b.Loop(); i++ {
				k := i % len(qs)
				got = append(got[:0], answers[k]...)
				if !Matches(got, Expected(g, &qs[k])) {
					b.Fatal("no match")
				}
				cells += len(got)
			}
			b.ReportMetric(float64(cells)/float64(b.N), "cells/op")
		})
	}
}
