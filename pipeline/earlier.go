package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/runner"
)

// targetKeys name where a run's data lives, as its record's configuration
// keeps them: the server and database, or SQLite's file.
func targetKeys() []string { return []string{"HOST", "PORT", "DB_NAME", "SQLITE_PATH"} }

// sameTarget says whether a record's run used the database this
// configuration names.
func sameTarget(db string, c *config.Config, rec *record.Record) bool {
	if rec.Target.DB != db {
		return false
	}
	for _, k := range targetKeys() {
		if rec.Config[k] != c.Value(k) {
			return false
		}
	}
	return true
}

// EarlierData finds what a query-only run with CHECK_ANSWERS checks: the
// run of the results folder that last wrote to this run's target, which
// must have written, whole and alone (IS_DELETE_DATA=true), the data of
// this plan's data fingerprint. It returns the line that says which run
// that was, or why the check cannot be made (a *config.Error on
// CHECK_ANSWERS). Writes that no record of this folder describes (another
// tool, another results folder) are not seen.
func EarlierData(db string, c *config.Config, plan *runner.Plan) (string, error) {
	refuse := func(msg string) error {
		return &config.Error{Key: "CHECK_ANSWERS", Value: "true", Msg: "of a run that writes nothing checks the data an earlier run wrote, and " + msg,
			Valid: "false, or a query-only run after a complete run in the same RESULTS_DIR that wrote this workload's data to the same target with IS_DELETE_DATA=true"}
	}
	cat, err := catalog.Open(c.ResultsDir)
	if err != nil {
		return "", err
	}
	entries := slices.Clone(cat.Entries)
	slices.SortFunc(entries, func(a, b *catalog.Entry) int { return b.StartedAt.Compare(a.StartedAt) })
	where := make([]string, 0, 4)
	for _, k := range targetKeys() {
		if v := c.Value(k); v != "" {
			where = append(where, k+"="+v)
		}
	}
	target := fmt.Sprintf("%s (%s)", db, strings.Join(where, ", "))
	for _, e := range entries {
		if e.DB != db {
			continue
		}
		rec, err := cat.Load(e)
		if err != nil || !sameTarget(db, c, rec) || !wrote(rec) {
			continue // a query-only run leaves the data as it found it
		}
		run := fmt.Sprintf("run %s", rec.ID)
		if rec.Label != "" {
			run += " (" + rec.Label + ")"
		}
		switch {
		case rec.Status != record.StatusComplete:
			return "", refuse(fmt.Sprintf("the last run in %s that wrote to %s, %s, is %s: the data may be partial", c.ResultsDir, target, run, rec.Status))
		case rec.Config["IS_DELETE_DATA"] != "true":
			return "", refuse(fmt.Sprintf("the last run in %s that wrote to %s, %s, kept the data before it (IS_DELETE_DATA=false)", c.ResultsDir, target, run))
		case rec.DataFingerprint == "":
			return "", refuse(fmt.Sprintf("the last run in %s that wrote to %s, %s, was made by a tsbench that did not record its data fingerprint", c.ResultsDir, target, run))
		case rec.DataFingerprint != plan.DataFingerprint():
			return "", refuse(fmt.Sprintf("the last run in %s that wrote to %s, %s, wrote other data (data fingerprint %s, this run's %s: the data keys or LOOP × BATCH_SIZE_PER_WRITE rows a device differ)", c.ResultsDir, target, run, rec.DataFingerprint, plan.DataFingerprint()))
		}
		return fmt.Sprintf("CHECK_ANSWERS checks the data %s wrote to %s on %s (data fingerprint %s)", run, target, rec.StartedAt.UTC().Format("2006-01-02 15:04Z"), rec.DataFingerprint), nil
	}
	return "", refuse(fmt.Sprintf("no run in %s wrote to %s", c.ResultsDir, target))
}

// wrote says whether a run wrote points.
func wrote(rec *record.Record) bool {
	for _, ph := range rec.Phases {
		if op := ph.Operation(config.Ingestion); op != nil && op.OKOps > 0 {
			return true
		}
	}
	return false
}
