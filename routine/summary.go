package routine

import (
	"fmt"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

// Summary is what a routine's records add up to, for its closing lines.
type Summary struct {
	Runs int
	// Measured is the runs' measured phases (warm-ups included); Lifecycle
	// their flush, stop, drop-caches, start, reconnect and clear-cache
	// steps; Setup the other steps (cleanup, schema, verify).
	Measured, Lifecycle, Setup time.Duration
	Queries                    int64 // query operations, every run
	Checked, Wrong             int64 // answers checked, and found wrong
	Check                      time.Duration
	NotChecked                 []string // "LABEL: why", per run whose answers went unchecked
}

// Summarize adds up the routine's records.
func Summarize(recs []*record.Record) Summary {
	s := Summary{Runs: len(recs)}
	sec := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	var us int64
	for _, r := range recs {
		if r.AnswersNotChecked != "" {
			s.NotChecked = append(s.NotChecked, r.Label+": "+r.AnswersNotChecked)
		}
		for _, p := range r.Phases {
			s.Measured += sec(p.Seconds)
			if p.Warmup != nil {
				s.Measured += sec(p.Warmup.Seconds)
			}
			for _, op := range p.AllOperations() {
				if op.Operation != config.Ingestion {
					s.Queries += op.OKOps + op.FailOps
				}
				s.Checked += op.AnswersChecked
				s.Wrong += op.AnswersWrong
				us += op.CheckMicros
			}
		}
		for _, st := range r.Steps {
			if st.Phase != "" {
				s.Lifecycle += sec(st.Seconds)
			} else {
				s.Setup += sec(st.Seconds)
			}
		}
	}
	s.Check = time.Duration(us) * time.Microsecond
	return s
}

// AnswersLine says what the answer checks found and cost; unchecked is why
// the routine did not check them, if it did not (Answers.Unchecked).
func (s Summary) AnswersLine(unchecked string) string {
	if unchecked != "" {
		return "Answers: not checked: " + unchecked
	}
	us := s.Check.Microseconds()
	line := fmt.Sprintf("Answers: %d of %d queries checked in %d runs, %d wrong; the checks took the clients %.1f s (%.2f ms a query, after each latency)",
		s.Checked, s.Queries, s.Runs, s.Wrong, float64(us)/1e6, float64(us)/1e3/float64(max(s.Checked, 1)))
	for _, n := range s.NotChecked {
		line += "\n  not checked in " + n
	}
	return line
}
