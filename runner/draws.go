package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/queries"
	"github.com/tsbench/tsbench/record"
)

// QueryDraw is one query a run of the plan sends: the phase that sends it
// (the mixed phase "main", or the query rounds' "query", every round the
// same queries), the variant, the client, the client's step in the phase,
// and the query (with a suite's own request, filled).
type QueryDraw struct {
	Phase   string
	Variant string
	Rounds  int // how many rounds send it: QUERY_ROUNDS, 1 in the mixed phase
	Client  int
	Step    int64
	Query   queries.Query
}

// Draws walks the queries a run of the plan sends, client by client, in
// each client's order, drawn as the clients draw them (a stream a client
// and family, the mixed phase's schedule from each client's offset), for
// bench generate --queries; yield returning false stops the walk. With
// IS_RECENT_QUERY the queries depend on what a client has written when it
// asks, which only the run knows: refused.
func (p *Plan) Draws(yield func(QueryDraw) bool) error {
	c := p.Config
	if c.RecentQuery {
		return &config.Error{Key: "IS_RECENT_QUERY", Value: "true", Msg: "draws each query's time range from what its client has written when it asks, which only a run knows", Valid: "false, for the queries as files"}
	}
	if !c.Rounds() {
		w := mixedWork(p)
		n := w.schedule.n
		for k := 0; k < c.DataClients; k++ {
			qc := p.Queries.Client(k)
			var off int64
			if n > 0 {
				off = int64(k) * n / int64(c.DataClients) % n
			}
			for i := int64(0); i < n; i++ {
				op := w.schedule.at((i + off) % n)
				if op == Write {
					continue
				}
				q := qc.Next(queries.FamilyByIndex(op))
				if !yield(QueryDraw{Phase: "main", Variant: OperationName(op), Rounds: 1, Client: k, Step: i, Query: q}) {
					return nil
				}
			}
		}
		return nil
	}
	for vi := range p.Variants {
		v := &p.Variants[vi]
		for k := 0; k < c.DataClients; k++ {
			qc := v.Queries.Client(k)
			for i := int64(0); i < c.QueryLoop; i++ {
				q := qc.Next(v.Family)
				if v.Request != "" {
					// As the run's client fills a variant's own request.
					q.Variant = v.Name
					var err error
					if q.Request, err = p.fill(v, &q); err != nil {
						return err
					}
				}
				if !yield(QueryDraw{Phase: "query", Variant: v.Name, Rounds: c.QueryRounds, Client: k, Step: i, Query: q}) {
					return nil
				}
			}
		}
	}
	return nil
}

// DrawJSON is a query as WriteDraws writes it (bench generate --queries), a JSON line.
type DrawJSON struct {
	Phase      string   `json:"phase"`
	Variant    string   `json:"variant"`
	Rounds     int      `json:"rounds"`
	Client     int      `json:"client"`
	Step       int64    `json:"step"`
	Family     string   `json:"family"`
	Devices    []string `json:"devices"`
	Sensors    []string `json:"sensors"`
	Start      int64    `json:"start"`
	End        int64    `json:"end"`
	ValueBound float64  `json:"value_bound"`
	Aggregate  string   `json:"aggregate,omitempty"`
	GroupBy    int64    `json:"group_by,omitempty"`
	Limit      int64    `json:"limit"`
	Request    string   `json:"request,omitempty"`
}

// WriteDraws writes the plan's queries (Draws) to path, a JSON line each,
// through a temporary file, so that a failure leaves no partial file.
func (p *Plan) WriteDraws(path string) error {
	tmp, err := record.CreateTemp(filepath.Dir(path), filepath.Base(path)+".part-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var werr error
	err = p.Draws(func(d QueryDraw) bool {
		q := &d.Query
		out := DrawJSON{Phase: d.Phase, Variant: d.Variant, Rounds: d.Rounds, Client: d.Client, Step: d.Step, Family: q.Family.ID(),
			Start: q.Start, End: q.End, ValueBound: q.ValueBound, Aggregate: q.Aggregate, GroupBy: q.GroupBy, Limit: q.Limit, Request: q.Request}
		for _, dv := range q.Devices {
			out.Devices = append(out.Devices, dv.Name)
		}
		for _, s := range q.Sensors {
			out.Sensors = append(out.Sensors, s.Name)
		}
		werr = enc.Encode(out)
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
