package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/null"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/record"
)

func registry() adapters.Registry { return adapters.Registry{sqlite.Driver(), null.Driver()} }

func configFile(t *testing.T, lines string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.properties")
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunToRecord: a run goes from its file to its saved record, reported
// before its path is said; a dry run saves nothing.
func TestRunToRecord(t *testing.T) {
	dir := t.TempDir()
	p, err := Load(configFile(t, "DB_SWITCH=Null\nLOOP=24\nDEVICE_NUMBER=2\nDATA_CLIENT_NUMBER=1\nQUERY_ROUNDS=0\nVERIFY=false\nRESULTS_DIR="+dir+"\n"), nil, registry())
	if err != nil {
		t.Fatal(err)
	}
	var human, log bytes.Buffer
	o := Options{Label: "first", Tool: "test", Human: &human, Log: &log, Progress: &log, DryRun: true}
	if rec, err := p.Run(context.Background(), o); rec != nil || err != nil || !strings.Contains(human.String(), "Plan:") {
		t.Fatalf("dry run: %v %v\n%s", rec, err, human.String())
	}
	if _, err := os.Stat(dir); err == nil {
		if recs, _ := (record.Store{Dir: dir}).List(); len(recs) != 0 {
			t.Fatal("a dry run saved a record")
		}
	}
	reported := ""
	o.DryRun = false
	o.Report = func(rec *record.Record) error { reported = rec.ID; return nil }
	rec, err := p.Run(context.Background(), o)
	if err != nil || rec == nil || rec.Label != "first" || reported != rec.ID || rec.Status != record.StatusComplete {
		t.Fatalf("run: %+v %v", rec, err)
	}
	if i, j := strings.Index(human.String(), "Run record: "), strings.Index(human.String(), "tsbench test: measuring Null"); i < j || j < 0 {
		t.Errorf("the record's path before the header:\n%s", human.String())
	}
}

// TestBadInput: what the user gave wrong is a *BadInput, before anything
// runs; the start-at time too.
func TestBadInput(t *testing.T) {
	var bi *BadInput
	if _, err := Load(configFile(t, "LOOP=-1\n"), nil, registry()); !errors.As(err, &bi) {
		t.Errorf("LOOP=-1: %v", err)
	}
	p, err := Load(configFile(t, "DB_SWITCH=Null\nVERIFY=false\nRESULTS_DIR="+t.TempDir()+"\n"), nil, registry())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if _, err := p.Run(context.Background(), Options{StartAt: past, Human: &out, Log: &out}); !errors.As(err, &bi) || !strings.Contains(err.Error(), "ago: this instance started after the time all instances were to begin") {
		t.Errorf("a start-at in the past: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(filepath.Join(file, "x"), true); err == nil || !strings.Contains(err.Error(), "is a file, so nothing can be created under it") {
		t.Errorf("a folder under a file: %v", err)
	}
}
