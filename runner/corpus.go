package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/corpus"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/pace"
)

// TrackKey is the record's pseudo key of TRACK_PATH's documents
// (corpus.Track.Identity): runs compare only with runs of the same ones.
const TrackKey = "TRACK"

// loadTrack reads TRACK_PATH's track before the plan binds its clients:
// the track's bulk-size and clients are the run's where the configuration
// does not give BATCH_SIZE_PER_WRITE and DATA_CLIENT_NUMBER.
func loadTrack(c *config.Config) (*corpus.Track, []string, error) {
	if c.TrackPath == "" {
		if c.TrackChallenge != "" || c.TrackIndexBody != "" {
			key, v := "TRACK_CHALLENGE", c.TrackChallenge
			if v == "" {
				key, v = "TRACK_INDEX_BODY", c.TrackIndexBody
			}
			return nil, nil, &config.Error{Key: key, Value: v, Msg: "applies to TRACK_PATH's documents, and TRACK_PATH is empty", Valid: "empty, or a TRACK_PATH"}
		}
		return nil, nil, nil
	}
	refuse := func(msg, valid string) error {
		return &config.Error{Key: "TRACK_PATH", Value: c.TrackPath, Msg: msg, Valid: valid}
	}
	switch {
	case c.FilePath != "":
		return nil, nil, refuse("and FILE_PATH both name the data to write", "one of them")
	case c.HasQueries() || c.QuerySuite != "":
		return nil, nil, refuse("writes a track's documents, and the query families read the generated rows, which this run does not write", "OPERATION_PROPORTION with INGESTION's weight only, no QUERY_SUITE")
	case !c.HasWrites():
		return nil, nil, refuse("names documents to write, and OPERATION_PROPORTION gives INGESTION no weight (or LOOP is 0)", "INGESTION's weight above 0 and LOOP ≥ 1 (the documents, not LOOP, decide how much is written)")
	case c.Distributed():
		return nil, nil, refuse(fmt.Sprintf("would be sent whole by each of %d instances (BENCHMARK_INSTANCES)", c.BenchmarkInstances), "one instance")
	case c.WarmupOperations > 0:
		return nil, nil, &config.Error{Key: "WARMUP_OPERATIONS", Value: fmt.Sprint(c.WarmupOperations), Msg: "counts a client's operations, and a track's clients send their share of the documents, however many bulks that is", Valid: "0, or WARMUP_TIME (Rally's warmup-time-period)"}
	}
	var t *corpus.Track
	var err error
	if corpus.IsTrack(c.TrackPath) {
		if c.TrackIndexBody != "" {
			return nil, nil, &config.Error{Key: "TRACK_INDEX_BODY", Value: c.TrackIndexBody, Msg: "is the body of a documents file's index; a track names its indices' bodies itself", Valid: "empty"}
		}
		t, err = corpus.Load(c.TrackPath, c.TrackChallenge)
	} else {
		if c.TrackChallenge != "" {
			return nil, nil, &config.Error{Key: "TRACK_CHALLENGE", Value: c.TrackChallenge, Msg: "chooses a track's challenge, and TRACK_PATH is a file of documents", Valid: "empty"}
		}
		t, err = corpus.FromDocuments(c.TrackPath, strings.ToLower(c.DBName), c.TrackIndexBody)
	}
	var body *corpus.BodyError
	if errors.As(err, &body) {
		return nil, nil, &config.Error{Key: "TRACK_INDEX_BODY", Value: c.TrackIndexBody, Msg: body.Error(), Valid: "a JSON file of the index's body: settings and mappings, as PUT /index takes it"}
	}
	if err != nil {
		return nil, nil, refuse(err.Error(), "a Rally track (its folder or track.json) or a file of documents, a JSON document a line")
	}
	var notes []string
	for _, a := range []struct {
		key  string
		n    int
		what string
	}{{"BATCH_SIZE_PER_WRITE", t.Bulk.BulkSize, "bulk-size"}, {"DATA_CLIENT_NUMBER", t.Bulk.Clients, "clients"}} {
		if a.n == 0 {
			continue
		}
		took, err := c.Adopt(a.key, strconv.Itoa(a.n))
		if err != nil {
			return nil, nil, refuse(fmt.Sprintf("the bulk task's %s: %v", a.what, err), "a track whose bulk task's values tsbench accepts")
		}
		if took {
			notes = append(notes, fmt.Sprintf("%s=%d is the track's bulk task's %s", a.key, a.n, a.what))
		} else if c.Value(a.key) != strconv.Itoa(a.n) {
			notes = append(notes, fmt.Sprintf("the track's bulk task asks for %s %d; %s=%s, given, is used", a.what, a.n, a.key, c.Value(a.key)))
		}
	}
	if len(t.Skipped) > 0 {
		notes = append(notes, "the track's operations that a run does not do: "+strings.Join(t.Skipped, ", "))
	}
	return t, notes, nil
}

// UseTrack refuses a track for a database that does not store documents.
func (p *Plan) UseTrack(drv *adapters.Driver) error {
	if p.Track == nil || drv.Documents {
		return nil
	}
	return &config.Error{Key: "TRACK_PATH", Value: p.Config.TrackPath, Msg: fmt.Sprintf("names documents, and %s stores rows, not documents", drv.Name), Valid: "empty, or DB_SWITCH=Elasticsearch (or OpenSearch)"}
}

// PrepareTrack makes the track's files ready to read (decompressed and
// counted, corpus.Track.Prepare) and takes their identity for the record;
// say is told what takes time.
func (p *Plan) PrepareTrack(ctx context.Context, say func(string)) error {
	if p.Track == nil {
		return nil
	}
	if err := p.Track.Prepare(ctx, say); err != nil {
		return &config.Error{Key: "TRACK_PATH", Value: p.Config.TrackPath, Msg: err.Error(), Valid: "documents files as the track declares them"}
	}
	id, err := p.Track.Identity()
	if err != nil {
		return &config.Error{Key: "TRACK_PATH", Value: p.Config.TrackPath, Msg: err.Error()}
	}
	p.TrackID = id
	return nil
}

// trackSize is the size line of a track's run: its documents and bytes
// once PrepareTrack has read them, else what the track declares.
func (p *Plan) trackSize() string {
	var docs, size int64
	for _, f := range p.Track.Files {
		if f.Path != "" {
			docs, size = docs+f.Ingest, size+f.End
		} else {
			docs, size = docs+f.Documents, size+f.Bytes
		}
	}
	return fmt.Sprintf("Size: this run writes %d documents (%s) of TRACK_PATH's %d files into %s; a document is a point in the matrices", docs, bytesText(float64(size)), len(p.Track.Files), strings.Join(p.Track.IndexNames(), ", "))
}

// describeTrack is the dry run's account of a track.
func (p *Plan) describeTrack(w io.Writer) {
	t := p.Track
	fmt.Fprintf(w, "Documents: TRACK_PATH=%s, bulk task %s: %d files into %s, %d documents a bulk, %d clients", p.Config.TrackPath, t.Bulk.Task, len(t.Files), strings.Join(t.IndexNames(), ", "), p.Config.BatchSize, p.Config.DataClients)
	if t.Bulk.Percentage < 100 {
		fmt.Fprintf(w, ", %g%% of the documents", t.Bulk.Percentage)
	}
	for _, pl := range t.Pipeline {
		fmt.Fprintf(w, "; pipeline %s put", pl.ID)
	}
	fmt.Fprintln(w)
	for _, f := range t.Files {
		n := "counted before the run"
		if f.Documents > 0 {
			n = fmt.Sprintf("%d documents", f.Documents)
		}
		fmt.Fprintf(w, "  %s → %s (%s)\n", f.Source, f.Index, n)
	}
}

// ingestDocs is a client's ingest of a track: its part of every documents
// file, a bulk of BATCH_SIZE_PER_WRITE documents at a time, until the part
// is sent or the phase is cut; points are documents. Pacing is as for
// generated rows: TARGET_THROUGHPUT's schedule, OP_MIN_INTERVAL,
// INTERVAL_BETWEEN_WRITE_BATCH.
func (cl *client) ingestDocs(ctx, limit context.Context) {
	c := cl.p.Config
	ctx, cl.response = adapters.WithResponseClock(ctx)
	dw := cl.a.(adapters.DocumentWriter) // UseTrack and Run refuse others
	part := cl.p.Track.Part(cl.id, c.DataClients)
	defer part.Close()
	var interval time.Duration
	var first time.Time
	if c.TargetThroughput > 0 {
		interval = time.Duration(float64(c.DataClients) / c.TargetThroughput * float64(time.Second))
		first = cl.start.Add(interval * time.Duration(cl.id) / time.Duration(c.DataClients))
	}
	var docs corpus.Docs
	for i := int64(0); limit.Err() == nil; i++ {
		var due time.Time
		if interval > 0 {
			due = first.Add(interval * time.Duration(i))
			if pace.Until(limit, due) != nil {
				return
			}
		}
		t0 := time.Now()
		if !part.Next(&docs, c.BatchSize) {
			if err := part.Err(); err != nil {
				cl.p.dataErr.set(err)
			}
			return
		}
		wctx, cancel := context.WithTimeout(ctx, time.Duration(c.WriteTimeoutMS)*time.Millisecond)
		cl.response.Reset()
		start := time.Now()
		err := dw.WriteDocuments(wctx, docs.Index, docs.Docs)
		d := cl.response.Since(start)
		if err == nil {
			err = overdue(wctx)
		}
		cancel()
		if err != nil && ctx.Err() != nil {
			return
		}
		n := int64(len(docs.Docs))
		op := cl.op(Write, start)
		var partial *adapters.PartialWriteError
		stored := int64(0)
		switch {
		case errors.As(err, &partial) && partial.Failed < n:
			op.RecordPartial(start, d, n-partial.Failed, partial.Failed, err)
			stored = n - partial.Failed
		default:
			recordOp(op, start, d, waited(due, start), n, err)
			if err == nil {
				stored = n
				op.AddVolume(n, cl.response.Bytes())
			}
		}
		cl.points.Add(stored)
		cl.done.Add(n)
		if c.BatchIntervalMS > 0 {
			if pace.For(limit, time.Duration(c.BatchIntervalMS)*time.Millisecond-time.Since(t0)) != nil {
				return
			}
		}
		if c.OpMinIntervalMS > 0 {
			min := time.Duration(c.OpMinIntervalMS) * time.Millisecond
			if c.OpMinIntervalRand {
				min = time.Duration(cl.pacing.Float64() * float64(min))
			}
			if pace.For(limit, min-time.Since(t0)) != nil {
				return
			}
		}
	}
}

// VerifyTrack counts each index's documents against the documents of the
// track's files that go to it: VERIFY's check of a track's run, and bench
// verify's.
func VerifyTrack(ctx context.Context, p *Plan, dc adapters.DocumentWriter) []DeviceCount {
	timeout := time.Duration(p.Config.ReadTimeoutMS) * time.Millisecond
	want := map[string]int64{}
	for _, f := range p.Track.Files {
		want[f.Index] += f.Ingest
	}
	var out []DeviceCount
	for _, name := range p.Track.IndexNames() {
		qctx, cancel := context.WithTimeout(ctx, timeout)
		n, err := dc.CountDocuments(qctx, name)
		cancel()
		out = append(out, DeviceCount{Device: &generator.Device{Name: name}, Expected: want[name], Found: n, Err: err, Documents: true})
	}
	return out
}
