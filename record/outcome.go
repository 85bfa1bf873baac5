package record

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/metrics"
)

// Failure says why a run that ran to its end failed: more failed
// operations than maxErrorRate percent of all, over every phase, or a
// VERIFY that found devices holding other counts. "" when it did not fail.
// The reason is one line with the operations that failed and their most
// frequent server message, so a CI log shows what went wrong.
func (r *Record) Failure(maxErrorRate float64) string {
	var ok, failed, wrong int64
	perOp := map[string]int64{}
	messages := map[string]int64{}
	var ops []string
	for _, p := range r.Phases {
		for _, op := range p.AllOperations() {
			ok += op.OKOps
			failed += op.FailOps
			wrong += op.AnswersWrong
			if op.FailOps > 0 {
				if _, seen := perOp[op.Operation]; !seen {
					ops = append(ops, op.Operation)
				}
				perOp[op.Operation] += op.FailOps
			}
			for m, n := range op.Errors {
				messages[m] += n
			}
		}
	}
	var reasons []string
	if total := ok + failed; failed > 0 && 100*float64(failed) > maxErrorRate*float64(total) {
		var each []string
		for _, op := range ops {
			each = append(each, fmt.Sprintf("%s %d", op, perOp[op]))
		}
		why := fmt.Sprintf("%d of %d operations failed (%.2f%%, MAX_ERROR_RATE=%g%%: %s)", failed, total, 100*float64(failed)/float64(total), maxErrorRate, strings.Join(each, ", "))
		if wrong > 0 {
			why += fmt.Sprintf("; %d of them wrong answers (CHECK_ANSWERS)", wrong)
		}
		if m := mostFrequent(messages); m != "" {
			why += "; most frequent error: " + m
		}
		reasons = append(reasons, why)
	}
	if r.Verify != nil && !r.Verify.OK() {
		reasons = append(reasons, "VERIFY: "+r.Verify.Summary())
	}
	return strings.Join(reasons, "; ")
}

func mostFrequent(counts map[string]int64) string {
	var keys []string
	for k := range counts {
		// The bucket of messages beyond the kept few says nothing.
		if k != metrics.OtherErrors || len(counts) == 1 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) == 0 {
		return ""
	}
	return fmt.Sprintf("%q (%d times)", keys[0], counts[keys[0]])
}
