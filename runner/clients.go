package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/pace"
	"github.com/tsbench/tsbench/queries"
)

// The client loop: a phase's bound clients, their schedule and pacing, the
// writes and queries they send and what they record.

// sharedDevices is IS_CLIENT_BIND=false: every client takes the next
// device batch from one queue over all written devices.
type sharedDevices struct {
	next    atomic.Int64
	devices []int
	streams []batches
	locks   []sync.Mutex
}

// work is what one phase runs: a schedule of operation indices (Write or a
// query family), the query parameters, and the report name of each index.
type work struct {
	name     string
	round    int
	variant  string
	schedule schedule
	queries  *queries.Generator
	names    [config.NumOperations]string
	docs     bool // the database counts rows as documents (Driver.Documents)
	// warm: WARMUP_TIME or WARMUP_OPERATIONS applies to this phase.
	warm bool
	// check is CHECK_ANSWERS in a query round; nil when not checked.
	check *answerCheck
	// own is the query round's variant when it sends a request of its own
	// (UseRequests); nil: the family's query.
	own *PlannedVariant
}

// schedule is the operation index of each of a client's n iterations:
// ops for a mix (a byte each), or one index for a phase of one operation,
// which then takes no memory however long it is.
type schedule struct {
	n   int64
	ops []uint8
	one int
}

func (s schedule) at(i int64) int {
	if s.ops == nil {
		return s.one
	}
	return int(s.ops[i])
}

// mixedWork is iot-benchmark's single phase: LOOP operations per client in
// OPERATION_PROPORTION's mix.
func mixedWork(p *Plan) work {
	var w work
	kinds, total, only := 0, int64(0), 0
	for i, n := range p.Counts {
		if n > 0 {
			kinds, total, only = kinds+1, total+n, i
		}
	}
	if kinds == 1 {
		// One operation (a write-only run): nothing to interleave.
		w = work{name: "main", schedule: schedule{n: total, one: only}, queries: p.Queries}
	} else {
		ops := p.MainSchedule()
		w = work{name: "main", schedule: schedule{n: int64(len(ops)), ops: ops}, queries: p.Queries}
	}
	for i, n := range p.Counts {
		if n > 0 {
			w.names[i] = OperationName(i)
		}
	}
	return w
}

// client is one data client's state.
type client struct {
	id       int
	sent     []string  // the first of a variant's own requests this client sent
	start    time.Time // the phase's start, from which a schedule counts
	p        *Plan
	w        *work
	a        adapters.Adapter
	rec      *metrics.Recorder
	ops      [config.NumOperations]*metrics.Op
	queries  *queries.Client
	batches  []*generator.Batch // DEVICE_NUM_PER_WRITE of them, reused
	filled   []*generator.Batch // the batches of the request in flight
	multi    adapters.MultiWriter
	streams  []batches // bound mode: the client's written devices
	shared   *sharedDevices
	share    int           // unbound mode: batches per write operation
	done     *atomic.Int64 // operations finished, all clients
	points   *atomic.Int64 // points written, all clients
	pacing   *rand.Rand
	recent   int64
	response *adapters.ResponseClock // in the contexts of the client's operations
	docs     bool                    // the database counts rows as documents (Driver.Documents)
	// warm is the phase's warm-up, nil without one: while it lasts the
	// client records into warmOps; rec and ops are made when it ends.
	warm    *warmState
	warmRec *metrics.Recorder
	warmOps [config.NumOperations]*metrics.Op
	check   *answerCheck // CHECK_ANSWERS; nil when not checked
	pick    *rand.Rand   // which queries check picks
}

// phaseName names a phase in messages: "ingest", "query GROUP_BY round 2".
func phaseName(w *work) string {
	if w.variant != "" {
		return fmt.Sprintf("%s %s round %d", w.name, w.variant, w.round)
	}
	return w.name
}

func runPhase(ctx context.Context, p *Plan, a adapters.Adapter, w work, opts Options) Phase {
	c := p.Config
	name := phaseName(&w)
	start := time.Now()
	// TEST_MAX_TIME stops clients from starting new operations; the
	// operation in flight finishes (or times out) on its own context.
	limit := ctx
	if c.TestMaxTimeMS > 0 {
		var cancel context.CancelFunc
		limit, cancel = context.WithTimeout(ctx, time.Duration(c.TestMaxTimeMS)*time.Millisecond)
		defer cancel()
	}
	// A track's clients send documents (ingestDocs): no rows to make.
	rows := p.Track == nil
	var shared *sharedDevices
	if !c.ClientBind && rows {
		shared = &sharedDevices{}
		for _, d := range p.Schema.Canonical {
			if p.Schema.Devices[d].Written {
				shared.devices = append(shared.devices, d)
				shared.streams = append(shared.streams, p.stream(d))
			}
		}
		shared.locks = make([]sync.Mutex, len(shared.devices))
	}
	var done, points atomic.Int64
	var ws *warmState
	if w.warm {
		ws = &warmState{time: c.WarmupTimeS > 0, ops: c.WarmupOperations}
		if ws.time {
			ws.end.Store(start.Add(time.Duration(c.WarmupTimeS) * time.Second).UnixNano())
		}
		ws.pending.Store(int64(c.DataClients))
	}
	clients := make([]*client, c.DataClients)
	for k := range clients {
		cl := &client{id: k, start: start, p: p, w: &w, a: a, queries: w.queries.Client(k),
			shared: shared, done: &done, points: &points, recent: -1, docs: w.docs,
			pacing: rand.New(rand.NewPCG(uint64(c.DataSeed), uint64(k))), warm: ws, check: w.check}
		if w.check != nil {
			cl.pick = w.check.picker(k, w.round, w.variant)
		}
		for i := 0; rows && i < max(c.DevicesPerWrite, 1); i++ {
			cl.batches = append(cl.batches, p.Generator.NewBatch())
		}
		cl.multi, _ = a.(adapters.MultiWriter)
		for _, d := range p.Clients[k] {
			if rows && p.Schema.Devices[d].Written {
				cl.streams = append(cl.streams, p.stream(d))
				cl.share++
			}
		}
		if ws == nil {
			cl.measure(start)
		} else {
			cl.warmRec = metrics.NewRecorder(start)
			for i, n := range w.names {
				if n != "" {
					cl.warmOps[i] = cl.warmRec.Op(n)
				}
			}
		}
		clients[k] = cl
	}
	total, unit := int64(c.DataClients)*w.schedule.n, "client steps"
	if p.Track != nil {
		total, unit = p.Track.Documents(), "documents"
	}
	if opts.Announce && !opts.Terminal {
		fmt.Fprintf(opts.Progress, "%s...\n", name)
	}
	prog := startProgress(opts, name, unit, total, &done, &points, start, time.Duration(c.LogPrintInterval)*time.Second, time.Duration(c.TestMaxTimeMS)*time.Millisecond)
	// A panic in a client (an adapter's bug) would end the process from
	// its goroutine with Go's status 2, read as bad usage: it stops the
	// other clients' new operations and is raised again here, on the
	// caller's goroutine, where the command reports a bug.
	limit, stopAll := context.WithCancel(limit)
	defer stopAll()
	var crash atomic.Pointer[ClientPanic]
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					crash.CompareAndSwap(nil, &ClientPanic{Client: cl.id, Value: v, Stack: debug.Stack()})
					stopAll()
				}
			}()
			cl.run(ctx, limit)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	prog.stop()
	if cp := crash.Load(); cp != nil {
		panic(cp)
	}
	var parts, warmParts [][]*metrics.Snapshot
	for _, cl := range clients {
		if cl.rec != nil {
			parts = append(parts, cl.rec.Snapshots())
		}
		if cl.warmRec != nil {
			warmParts = append(warmParts, cl.warmRec.Snapshots())
		}
	}
	ph := Phase{Name: w.name, Round: w.round, Variant: w.variant, Clients: c.DataClients, Started: start, Elapsed: elapsed, Operations: orderOps(&w, metrics.Merge(parts...)),
		Requests: clients[0].sent}
	if ws != nil {
		// The phase is measured from the end of its warm-up; a warm-up
		// that outlasted the phase leaves a measured part of no time.
		warmed := elapsed
		if e := ws.end.Load(); e != 0 {
			warmed = min(time.Unix(0, e).Sub(start), elapsed)
		}
		ph.Started, ph.Elapsed = start.Add(warmed), elapsed-warmed
		ph.Warmup = &Warmup{Elapsed: warmed, Operations: orderOps(&w, metrics.Merge(warmParts...))}
	}
	if limit.Err() != nil && ctx.Err() == nil && done.Load() < total {
		var ops int64
		for _, s := range ph.Operations {
			ops += s.OKOps + s.FailOps
		}
		ph.Cut = fmt.Sprintf("TEST_MAX_TIME=%d ms ended the %s phase after %d of its %d %s (%d operations in the Result Matrix)", c.TestMaxTimeMS, name, done.Load(), total, unit, ops)
	}
	return ph
}

// ClientPanic is a panic in a client's goroutine, raised again by Run on
// its caller's goroutine.
type ClientPanic struct {
	Client int
	Value  any
	Stack  []byte // the client's, where it panicked
}

func (p *ClientPanic) String() string { return fmt.Sprintf("client %d: %v", p.Client, p.Value) }

// orderOps lists the phase's operations in OPERATION_PROPORTION order,
// including kinds that never completed.
func orderOps(w *work, merged []*metrics.Snapshot) []*metrics.Snapshot {
	by := map[string]*metrics.Snapshot{}
	for _, s := range merged {
		by[s.Operation] = s
	}
	var out []*metrics.Snapshot
	for _, name := range w.names {
		if name == "" {
			continue
		}
		s, ok := by[name]
		if !ok {
			s = &metrics.Snapshot{Operation: name}
		}
		out = append(out, s)
	}
	return out
}

func (cl *client) run(ctx, limit context.Context) {
	if cl.p.Track != nil {
		// loadTrack refuses queries: the phase is the documents' ingest.
		cl.ingestDocs(ctx, limit)
		return
	}
	c := cl.p.Config
	ctx, cl.response = adapters.WithResponseClock(ctx)
	sched := cl.w.schedule
	// Each client starts at its own offset in the schedule, so clients
	// spread over the mix instead of all running the same family at once.
	var off int64
	if sched.n > 0 {
		off = int64(cl.id) * sched.n / int64(c.DataClients) % sched.n
	}
	// TARGET_THROUGHPUT: operation i of this client is due at a fixed time,
	// the clients' schedules interleaved evenly; an operation that is due
	// while the previous one still runs starts at once, and its wait counts.
	var interval time.Duration
	var first time.Time
	if c.TargetThroughput > 0 {
		interval = time.Duration(float64(c.DataClients) / c.TargetThroughput * float64(time.Second))
		first = cl.start.Add(interval * time.Duration(cl.id) / time.Duration(c.DataClients))
	}
	for i := int64(0); i < sched.n; i++ {
		if limit.Err() != nil {
			return
		}
		var due time.Time // zero: no schedule
		if interval > 0 {
			due = first.Add(interval * time.Duration(i))
			if err := pace.Until(limit, due); err != nil {
				return
			}
		}
		t0 := time.Now()
		op := sched.at((i + off) % sched.n)
		if op == Write {
			cl.write(ctx, limit, due)
		} else {
			cl.query(ctx, queries.FamilyByIndex(op), due)
		}
		cl.done.Add(1)
		if cl.warm != nil && !cl.warm.time && i+1 == cl.warm.ops {
			cl.warm.clientDone()
		}
		if c.OpMinIntervalMS > 0 {
			min := time.Duration(c.OpMinIntervalMS) * time.Millisecond
			if c.OpMinIntervalRand {
				min = time.Duration(cl.pacing.Float64() * float64(min))
			}
			if err := pace.For(limit, min-time.Since(t0)); err != nil {
				return
			}
		}
	}
}

// waited is how long a request sent at start waited behind the time its
// operation was due: -1 without a schedule (a zero due). It is taken when
// the request is sent, not when the schedule wakes the client, so that what
// the client does in between (generating a batch, building a query) is in
// the latency, as Rally and wrk2 measure from the intended start.
func waited(due, start time.Time) time.Duration {
	if due.IsZero() {
		return -1
	}
	return max(start.Sub(due), 0)
}

// recordOp adds one request's outcome: with a schedule (wait ≥ 0) latency
// and service time apart, else the request's time as its latency.
func recordOp(op *metrics.Op, start time.Time, d, wait time.Duration, points int64, err error) {
	if wait < 0 {
		op.Record(start, d, points, err)
		return
	}
	op.RecordWaited(start, d, wait, points, err)
}

// write performs one write operation: one batch for every device the
// client owns (or its share of the shared queue), DEVICE_NUM_PER_WRITE
// devices a request. With a schedule, the first request's latency counts
// from the operation's due time; each next one's from the moment the one
// before it ended.
func (cl *client) write(ctx, limit context.Context, due time.Time) {
	c := cl.p.Config
	n := len(cl.streams)
	if cl.shared != nil {
		n = cl.share
	}
	per := len(cl.batches)
	for k := 0; k < n; k += per {
		if limit.Err() != nil {
			return
		}
		t0 := time.Now()
		cl.filled = cl.filled[:0]
		for j := 0; j < per && k+j < n; j++ {
			if cl.nextBatch(k+j, cl.batches[j]) {
				cl.filled = append(cl.filled, cl.batches[j])
			}
		}
		if len(cl.filled) == 0 {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, time.Duration(c.WriteTimeoutMS)*time.Millisecond)
		cl.response.Reset()
		start := time.Now()
		var err error
		if per == 1 {
			err = cl.a.Write(wctx, cl.filled[0])
		} else {
			// Validate refuses DEVICE_NUM_PER_WRITE > 1 for an adapter
			// without MultiWriter.
			err = cl.multi.WriteDevices(wctx, cl.filled)
		}
		d := cl.response.Since(start)
		if err == nil {
			err = overdue(wctx) // a write that outlived its timeout is a failure, whatever the adapter says
		}
		cancel()
		if err != nil && ctx.Err() != nil {
			return // interrupted by the user, not failed by the database: not recorded
		}
		var pts int64
		for _, b := range cl.filled {
			pts += b.Points()
		}
		var partial *adapters.PartialWriteError
		op := cl.op(Write, start)
		switch {
		case errors.As(err, &partial) && partial.Failed < pts:
			// Some documents of a bulk were stored: they count as written.
			op.RecordPartial(start, d, pts-partial.Failed, partial.Failed, err)
			cl.points.Add(pts - partial.Failed)
		default:
			recordOp(op, start, d, waited(due, start), pts, err)
		}
		if err == nil {
			cl.points.Add(pts)
			if cl.docs || cl.response.Bytes() > 0 {
				var rows int64
				if cl.docs {
					for _, b := range cl.filled {
						rows += int64(b.Len())
					}
				}
				op.AddVolume(rows, cl.response.Bytes())
			}
			for _, b := range cl.filled {
				if last := b.Timestamps[b.Len()-1]; last > cl.recent {
					cl.recent = last
				}
			}
		}
		if c.BatchIntervalMS > 0 {
			if pace.For(limit, time.Duration(c.BatchIntervalMS)*time.Millisecond-time.Since(t0)) != nil {
				return
			}
		}
		if !due.IsZero() {
			// The next request of this operation is due now: its wait is
			// the time its own batch takes to make.
			due = time.Now()
		}
	}
}

// nextBatch fills b with the k-th batch of this write operation.
func (cl *client) nextBatch(k int, b *generator.Batch) bool {
	if cl.shared == nil {
		return cl.streams[k].Next(b)
	}
	sh := cl.shared
	if len(sh.devices) == 0 {
		return false
	}
	x := int(sh.next.Add(1)-1) % len(sh.devices)
	sh.locks[x].Lock()
	defer sh.locks[x].Unlock()
	return sh.streams[x].Next(b)
}

func (cl *client) query(ctx context.Context, f queries.Family, due time.Time) {
	c := cl.p.Config
	if c.RecentQuery && cl.recent >= 0 {
		cl.queries.SetRecent(cl.recent)
	}
	q := cl.queries.Next(f)
	if v := cl.w.own; v != nil {
		q.Variant = v.Name // its errors name the variant, not the family
		var err error
		if q.Request, err = cl.p.fill(v, &q); err != nil {
			// UseRequests filled the first query: not expected.
			start := time.Now()
			recordOp(cl.op(int(f), start), start, 0, waited(due, start), 0, err)
			return
		}
		if cl.id == 0 && len(cl.sent) < sentRequests {
			cl.sent = append(cl.sent, q.Request)
		}
	}
	checked := cl.check != nil && cl.check.picks(cl.pick)
	qctx, cancel := context.WithTimeout(ctx, time.Duration(c.ReadTimeoutMS)*time.Millisecond)
	cl.response.Reset()
	start := time.Now()
	var n int64
	var err error
	var answer queries.Answer
	if checked {
		// The same request and decoding as Query, keeping the cells.
		answer, err = cl.check.ans.Answer(qctx, &q)
		n = int64(len(answer))
	} else {
		n, err = cl.a.Query(qctx, &q)
	}
	d := cl.response.Since(start)
	if err == nil {
		err = overdue(qctx) // never count a timed-out query as a success (iot-benchmark does)
	}
	cancel()
	if err != nil && ctx.Err() != nil {
		return // interrupted by the user, not failed by the database: not recorded
	}
	if err != nil {
		n = 0
	}
	op := cl.op(int(f), start)
	if checked && err == nil {
		// After the clock: the model's answer and the comparison are
		// tsbench's work, not the database's.
		t := time.Now()
		err = cl.check.verify(&q, answer, cl.id)
		op.CountAnswer(err != nil, time.Since(t))
	}
	recordOp(op, start, d, waited(due, start), n, err)
}

// measure makes the recorder of the phase's measured operations, whose
// one-second windows count from start.
func (cl *client) measure(start time.Time) {
	cl.rec = metrics.NewRecorder(start)
	for i, n := range cl.w.names {
		if n != "" {
			cl.ops[i] = cl.rec.Op(n)
		}
	}
}

// op is where an operation of kind i that started at t is recorded: the
// warm-up's, or the phase's own.
func (cl *client) op(i int, t time.Time) *metrics.Op {
	if cl.warm != nil {
		end := cl.warm.end.Load()
		if end == 0 || t.UnixNano() < end {
			return cl.warmOps[i]
		}
		if cl.rec == nil {
			cl.measure(time.Unix(0, end))
		}
	}
	return cl.ops[i]
}

// warmState is a phase's warm-up, shared by its clients: it ends at a
// fixed time (WARMUP_TIME), or when the last client has done its warm-up
// operations (WARMUP_OPERATIONS), so that the measured part has one start
// and its one-second windows line up.
type warmState struct {
	time    bool
	ops     int64
	end     atomic.Int64 // Unix nanoseconds; 0 while the warm-up lasts
	pending atomic.Int64 // clients still in their warm-up operations
}

func (ws *warmState) clientDone() {
	if ws.pending.Add(-1) == 0 {
		ws.end.Store(time.Now().UnixNano())
	}
}
