package export

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// CSVHeader is the long format's header: a row per run, phase, operation
// and metric.
var CSVHeader = []string{"run_id", "label", "started_at", "db", "version", "server", "fingerprint", "status", "phase", "round", "operation", "metric", "unit", "value"}

// WriteCSV writes the runs in the long format; values are written exactly
// (the shortest decimal that reads back as the same float).
func WriteCSV(w io.Writer, runs []Run) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range Rows(runs) {
		rec := []string{r.Run.ID, r.Run.Label, r.Run.StartedAt.UTC().Format(time.RFC3339Nano), r.Run.DB, r.Run.Version, r.Run.Server, r.Run.Fingerprint, r.Run.Status,
			r.Key.Phase, strconv.Itoa(r.Key.Round), r.Key.Op, r.Key.Metric, r.Unit, strconv.FormatFloat(r.Value, 'g', -1, 64)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
