package runner

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"sync"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// answerCheck is CHECK_ANSWERS in one query phase: which queries are
// checked, and the model they are checked against.
type answerCheck struct {
	ans   adapters.Answerer
	gen   *generator.Generator
	ratio float64
	seed  uint64
	wrong *wrongLog
}

// ErrWrongAnswer marks a query whose answer differs from the model's.
var ErrWrongAnswer = errors.New("wrong answer")

// picker chooses a client's checked queries in a phase: drawn from
// QUERY_SEED, the client, the round and the variant, so two runs of one
// workload check the same queries whatever their timing.
func (ac *answerCheck) picker(client, round int, variant string) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%d\x00%s", client, round, variant)
	return rand.New(rand.NewPCG(ac.seed, h.Sum64()))
}

// picks says whether the next query is checked.
func (ac *answerCheck) picks(r *rand.Rand) bool {
	return ac.ratio >= 1 || r.Float64() < ac.ratio
}

// verify compares an answer with the model's: nil when they agree, else
// ErrWrongAnswer with the reason.
func (ac *answerCheck) verify(q *queries.Query, got queries.Answer, client int) error {
	want := queries.Expected(ac.gen, q)
	if queries.Matches(got, want) {
		return nil
	}
	got.Sort()
	m := queries.Mismatch(q, got, want)
	if m == "" {
		// Matches and Mismatch disagree only on repeated cells.
		m = fmt.Sprintf("%s: %d cells, some repeated, expected %d", q.Family, len(got), len(want))
	}
	ac.wrong.show(m, q, client)
	return fmt.Errorf("%w: %s", ErrWrongAnswer, m)
}

// shownWrong is how many wrong answers a run prints in full, with their
// query; the record counts all of them.
const shownWrong = 5

// wrongLog prints the first wrong answers of a run as they happen.
type wrongLog struct {
	mu sync.Mutex
	n  int
	w  io.Writer
}

func (l *wrongLog) show(reason string, q *queries.Query, client int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	switch {
	case l.n <= shownWrong:
		fmt.Fprintf(l.w, "wrong answer (client %d): %s\n  query: %s\n", client, reason, queries.Describe(q))
	case l.n == shownWrong+1:
		fmt.Fprintf(l.w, "more wrong answers: the Failures table lists their reasons, the record counts them all (answers_wrong)\n")
	}
}

// ingestStored reports whether the ingest stored the whole workload, which
// the model of the answers assumes. When it did not (failed writes, a
// TEST_MAX_TIME cut) the query rounds' answers are not checked, and the
// run says why in its notes and record.
func (w *walker) ingestStored() bool {
	if w.res.AnswersNotChecked != "" {
		return false
	}
	for _, ph := range w.res.Phases {
		if ph.Name != "ingest" {
			continue
		}
		reason := ph.Cut
		if reason == "" {
			var ops, pts int64
			all := ph.Operations
			if ph.Warmup != nil {
				all = append(append(all[:0:0], all...), ph.Warmup.Operations...)
			}
			for _, s := range all {
				ops += s.FailOps
				pts += s.FailPoints
			}
			if ops > 0 {
				reason = fmt.Sprintf("%d write operations of the ingest failed (%d points)", ops, pts)
			}
		}
		if reason != "" {
			w.res.AnswersNotChecked = fmt.Sprintf("CHECK_ANSWERS checked no answer: %s, so the database does not hold the workload the model describes", reason)
			w.res.Notes = append(w.res.Notes, w.res.AnswersNotChecked)
			fmt.Fprintln(w.opts.Log, w.res.AnswersNotChecked)
			return false
		}
	}
	return true
}
