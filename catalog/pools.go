package catalog

import (
	"fmt"
	"time"

	"github.com/tsbench/tsbench/record"
)

// Joins says what a run labelled label joins, when it is not what a
// user means by one side: runs of another workload (fp; "" unknown yet),
// or runs that started more than record.PoolSpan before now.
func Joins(entries []*Entry, label, fp string, now time.Time) []string {
	var out []string
	n, first := 0, now
	other, differs := "", false
	for _, e := range entries {
		if e.Label != label {
			continue
		}
		n++
		if e.StartedAt.Before(first) {
			first = e.StartedAt
		}
		if fp != "" && e.Fingerprint != fp && !differs {
			other, differs = e.Fingerprint, true
		}
	}
	if n == 0 {
		return nil
	}
	if age := now.Sub(first); age > record.PoolSpan {
		out = append(out, fmt.Sprintf("label %s already has %d runs, the first started %s (%s ago): this run joins them, and compare and history pool them as one side; a label of its own (with the date or the commit) keeps them apart", label, n, first.UTC().Format("2006-01-02 15:04Z"), record.Days(age)))
	}
	if differs {
		out = append(out, fmt.Sprintf("label %s has runs of another workload (fingerprint %s, this run's %s): compare refuses to pool them unless --force", label, other, fp))
	}
	return out
}
