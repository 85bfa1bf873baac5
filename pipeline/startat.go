package pipeline

import (
	"fmt"
	"strconv"
	"time"
)

// maxStartAhead bounds --start-at: a run waits for it after opening the
// database (and, unless an instance of a distributed run, cleaning it up).
const maxStartAhead = 24 * time.Hour

// ParseStartAt reads --start-at: an RFC 3339 time or Unix seconds. A time
// already past is refused before anything runs: an instance that starts
// after the others began would measure a different run.
func ParseStartAt(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		secs, perr := strconv.ParseFloat(s, 64)
		if perr != nil {
			return time.Time{}, fmt.Errorf("--start-at=%s is not a time (valid: RFC 3339 such as 2026-12-01T10:00:00Z, or Unix seconds)", s)
		}
		t = time.Unix(0, int64(secs*1e9))
	}
	if ahead := t.Sub(now); ahead > maxStartAhead {
		return time.Time{}, fmt.Errorf("--start-at=%s is %s from now, more likely a mistake than a plan: the run would hold its connection and wait (valid: a time within %s)", s, ahead.Round(time.Minute), maxStartAhead)
	}
	if late := now.Sub(t); late > 0 {
		return time.Time{}, fmt.Errorf("--start-at=%s was %s ago: this instance started after the time all instances were to begin (valid: a time in the future; start the instances sooner or give a later time)", s, late.Round(time.Second))
	}
	return t, nil
}
