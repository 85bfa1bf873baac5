package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/queries"
)

// sentRequests is how many of a phase's own requests its record keeps, as
// client 1 sent them: enough to see what ran, not every query.
const sentRequests = 3

// UseRequests binds the query suite's own requests (custom queries) to the
// database: each variant that has requests runs the one in drv's language,
// whose every placeholder must have a value (its first query is filled to
// find out). A variant with requests is refused on a database that reads
// none, or when none is in its language: a suite must not measure the
// family's query under a custom query's name.
func (p *Plan) UseRequests(drv *adapters.Driver) error {
	c := p.Config
	for i := range p.Variants {
		v := &p.Variants[i]
		if len(v.Requests) == 0 {
			continue
		}
		langs := make([]string, 0, len(v.Requests))
		for l := range v.Requests {
			langs = append(langs, l)
		}
		sort.Strings(langs)
		if drv.Requests == nil {
			return &config.Error{Key: "QUERY_SUITE", Value: c.QuerySuite,
				Msg:   fmt.Sprintf("variant %s has requests of its own (%s), but DB_SWITCH=%s runs none", v.Name, strings.Join(langs, ", "), c.DBSwitch),
				Valid: "a database that reads them (IoTDB, SQLite, Elasticsearch, OpenSearch), or a suite without requests"}
		}
		lang := drv.Requests.Language(c)
		tmpl, ok := v.Requests[lang]
		if !ok {
			return &config.Error{Key: "QUERY_SUITE", Value: c.QuerySuite,
				Msg: fmt.Sprintf("variant %s has requests for %s, but none for %s, the language of DB_SWITCH=%s", v.Name, strings.Join(langs, ", "), lang, c.DBSwitch)}
		}
		v.Request = tmpl
		p.requests = drv.Requests
		q := v.Queries.Client(0).Next(v.Family)
		if _, err := p.fill(v, &q); err != nil {
			return &config.Error{Key: "QUERY_SUITE", Value: c.QuerySuite, Msg: err.Error()}
		}
	}
	return nil
}

// fill is variant v's own request with its placeholders filled from q.
func (p *Plan) fill(v *PlannedVariant, q *queries.Query) (string, error) {
	out, err := queries.Fill(v.Request, p.requests.Values(p.Config, p.Schema, q))
	if err != nil {
		return "", fmt.Errorf("variant %s's %s request: %w", v.Name, p.requests.Language(p.Config), err)
	}
	return out, nil
}

// DescribeRequests prints, for --dry-run, the first request of each
// variant that runs its own, as the database will receive it.
func (p *Plan) DescribeRequests(w io.Writer) {
	for i := range p.Variants {
		v := &p.Variants[i]
		if v.Request == "" {
			continue
		}
		q := v.Queries.Client(0).Next(v.Family)
		req, err := p.fill(v, &q)
		if err != nil {
			req = err.Error()
		}
		fmt.Fprintf(w, "Request of %s (its own, %s; answers counted, not checked): %s\n", v.Name, p.requests.Language(p.Config), req)
	}
}
