package history

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/changepoint"
	"github.com/tsbench/tsbench/compare"
)

// FromEntries reads the runs of a results folder's entries: the values of
// the metrics named, and with server their server values too.
func FromEntries(entries []*catalog.Entry, metrics []string, server bool) ([]Run, error) {
	var runs []Run
	for _, e := range entries {
		vals, order, err := e.ValuesOf(metrics)
		if err != nil {
			return nil, err
		}
		var sv []compare.ServerValue
		if server {
			if sv, err = e.ServerValues(); err != nil {
				return nil, err
			}
		}
		runs = append(runs, Run{ID: e.ID, Label: e.Label, StartedAt: e.StartedAt, Values: vals, Order: order, Server: sv})
	}
	return runs, nil
}

// Request is what bench history asks of the runs beyond Build's metrics:
// the server figures to follow (--server) and the file that orders the
// labels (--order).
type Request struct {
	Metrics   []string
	Server    []string
	OrderFile string
	Options   changepoint.Options
}

// Make is BuildFor as the request asks it, with the warnings to say. Its
// errors are the request's: a server figure no run has (it would follow
// nothing), an order that places no label, a metric compare does not know.
func (q Request) Make(runs []Run) (h *History, warnings []string, err error) {
	var figures []string
	for _, r := range runs {
		for _, v := range r.Server {
			if !slices.Contains(figures, v.Figure) {
				figures = append(figures, v.Figure)
			}
		}
	}
	for _, name := range q.Server {
		if name != "*" && !slices.Contains(figures, name) {
			return nil, nil, fmt.Errorf("--server %q: these runs have no server figure of that name (valid: \"*\", %s)", name, strings.Join(figures, ", "))
		}
	}
	var order []string
	if q.OrderFile != "" {
		if order, err = ReadOrder(q.OrderFile); err != nil {
			return nil, nil, err
		}
	}
	h, err = BuildFor(runs, q.Metrics, Want{Server: q.Server, Order: order}, q.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("--metric: %w", err)
	}
	if n := len(h.Unplaced); n > 0 {
		if len(h.Labels) == 0 {
			return nil, nil, fmt.Errorf("--order %s places none of the %d labels (%s)", q.OrderFile, n, firstFew(h.Unplaced))
		}
		warnings = append(warnings, fmt.Sprintf("warning: --order %s does not place %d labels; their runs are left out: %s", q.OrderFile, n, firstFew(h.Unplaced)))
	}
	return h, warnings, nil
}

// ReadOrder reads --order's list: a label or commit a line, blank lines
// and lines starting with # skipped.
func ReadOrder(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--order: %w", err)
	}
	out := []string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--order %s lists no label or commit", file)
	}
	return out, nil
}

// firstFew names up to five of a list, and how many more.
func firstFew(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
}
