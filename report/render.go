// Package report lays out what records and comparisons hold, as tables in
// text, Markdown, CSV and JSON: iot-benchmark's Result and Latency matrices
// of a run, and compare's Rally and PR layouts and its JSON form.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/tsbench/tsbench/catalog"
)

// Table is a titled grid of cells; the first column is a row label, the
// others are right-aligned numbers.
type Table struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	Notes  []string   `json:"notes,omitempty"`
	// Lead are lines said before the table, for what must be read first
	// (runs of different databases compared).
	Lead []string `json:"lead,omitempty"`
	// LeftColumns is how many leading columns are labels (left-aligned);
	// 0 means 1.
	LeftColumns int `json:"-"`
	// Fold puts the table, in Markdown, under a <details> element whose
	// summary is its title: the PR report's summary is read first, its
	// tables opened on demand.
	Fold bool `json:"-"`
}

// WriteTables renders tables as text, markdown or csv. JSON callers encode
// their own structures with WriteJSON.
func WriteTables(w io.Writer, format Format, tables []Table) error {
	switch format {
	case CSV:
		cw := csv.NewWriter(w)
		cw.WriteAll(OneTable(tables))
		return cw.Error()
	case Markdown:
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(w)
			}
			for _, l := range t.Lead {
				fmt.Fprintf(w, "> %s\n\n", l)
			}
			if t.Fold {
				// A blank line after the summary, or GitHub shows the table as text.
				fmt.Fprintf(w, "<details><summary><b>%s</b></summary>\n\n", html.EscapeString(t.Title))
			} else {
				fmt.Fprintf(w, "**%s**\n\n", t.Title)
			}
			if err := render(w, t, renderer.NewMarkdown()); err != nil {
				return err
			}
			for _, n := range t.Notes {
				fmt.Fprintf(w, "\n%s\n", n)
			}
			if t.Fold {
				fmt.Fprint(w, "\n</details>\n")
			}
		}
		return nil
	default:
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(w)
			}
			for _, l := range t.Lead {
				fmt.Fprintln(w, l)
			}
			fmt.Fprintln(w, t.Title)
			if plainASCII(t) {
				if err := renderASCII(w, t); err != nil {
					return err
				}
			} else if err := render(w, t, renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})); err != nil {
				return err
			}
			for _, n := range t.Notes {
				fmt.Fprintln(w, n)
			}
		}
		return nil
	}
}

// OneTable is tables as one table with one header, as a CSV reader wants
// it: a "table" column holding each row's table title, then the columns of
// every table, each name once (a name two tables share is one column), in
// the order they first appear; a table's row leaves the others' columns
// empty. The prose around the tables is not in it: Prose is.
func OneTable(tables []Table) [][]string {
	header := []string{"table"}
	at := map[string]int{}
	// A name a table has twice is two columns: its k-th is "name#k".
	places := make([][]int, len(tables))
	for i, t := range tables {
		seen := map[string]int{}
		for _, h := range t.Header {
			key := h
			if n := seen[h]; n > 0 {
				key = fmt.Sprintf("%s#%d", h, n+1)
			}
			seen[h]++
			j, ok := at[key]
			if !ok {
				j = len(header)
				at[key] = j
				header = append(header, key)
			}
			places[i] = append(places[i], j)
		}
	}
	out := [][]string{header}
	for i, t := range tables {
		for _, r := range t.Rows {
			row := make([]string, len(header))
			row[0] = t.Title
			for k, c := range r {
				if k < len(places[i]) {
					row[places[i][k]] = c
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// Prose is what the tables say besides their cells, in order: each one's
// lead lines (a comparison's verdict first) and notes. A CSV leaves it out
// for the command to write to stderr.
func Prose(tables []Table) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t.Lead...)
		out = append(out, t.Notes...)
	}
	return out
}

// textColumns are the headers of columns of words, not numbers, which read
// left-aligned wherever they stand.
var textColumns = map[string]bool{"Note": true, "Verdict": true, "Unit": true, "error": true}

// plainASCII says a table's cells are what renderASCII draws as
// tablewriter does: printable ASCII, no space at either end, a cell a
// column in every row, and rows under the header.
func plainASCII(t Table) bool {
	plain := func(c string) bool {
		for i := 0; i < len(c); i++ {
			if c[i] < 0x20 || c[i] > 0x7e {
				return false
			}
		}
		return c == "" || c[0] != ' ' && c[len(c)-1] != ' '
	}
	if len(t.Header) == 0 || len(t.Rows) == 0 {
		return false
	}
	for _, h := range t.Header {
		if h == "" || !plain(h) {
			return false
		}
	}
	for _, r := range t.Rows {
		if len(r) != len(t.Header) {
			return false
		}
		for _, c := range r {
			if !plain(c) {
				return false
			}
		}
	}
	return true
}

// renderASCII draws a plainASCII table as tablewriter's ASCII blueprint
// does, byte for byte (TestRenderASCII), at a tenth of its cost: a list of
// 10,000 runs took tablewriter 0.2 s.
func renderASCII(w io.Writer, t Table) error {
	align := alignments(t)
	width := make([]int, len(t.Header))
	for i, h := range t.Header {
		width[i] = len(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b []byte
	rule := func() {
		for _, n := range width {
			b = append(b, '+')
			for range n + 2 {
				b = append(b, '-')
			}
		}
		b = append(b, '+', '\n')
	}
	line := func(cells []string, head bool) {
		for i, c := range cells {
			b = append(b, '|', ' ')
			pad := width[i] - len(c)
			if !head && align[i] == tw.AlignRight {
				for range pad {
					b = append(b, ' ')
				}
				b = append(b, c...)
			} else {
				b = append(b, c...)
				for range pad {
					b = append(b, ' ')
				}
			}
			b = append(b, ' ')
		}
		b = append(b, '|', '\n')
	}
	rule()
	line(t.Header, true)
	rule()
	for _, r := range t.Rows {
		line(r, false)
	}
	rule()
	_, err := w.Write(b)
	return err
}

// alignments are a table's columns' alignments: labels left, numbers
// right, words left.
func alignments(t Table) []tw.Align {
	align := make([]tw.Align, len(t.Header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	for i := 0; i < max(t.LeftColumns, 1) && i < len(align); i++ {
		align[i] = tw.AlignLeft
	}
	for i, h := range t.Header {
		if textColumns[h] {
			align[i] = tw.AlignLeft
		}
	}
	return align
}

func render(w io.Writer, t Table, r tw.Renderer) error {
	align := alignments(t)
	tbl := tablewriter.NewTable(w,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	tbl.Header(anySlice(t.Header)...)
	if err := tbl.Bulk(t.Rows); err != nil {
		return fmt.Errorf("render %s: %w", t.Title, err)
	}
	return tbl.Render()
}

func anySlice(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// f2 formats a number with two decimals, as iot-benchmark's matrices do.
func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// WriteList writes bench list's table of a results folder's runs (in
// JSON the table itself).
func WriteList(w io.Writer, f Format, c *catalog.Catalog) error {
	t := Table{Title: fmt.Sprintf("Runs in %s", c.Dir), Header: []string{"ID", "Started (UTC)", "Label", "DB", "Version", "Workload", "Status"}}
	for _, r := range c.Entries {
		t.Rows = append(t.Rows, []string{r.ID, r.StartedAt.UTC().Format("2006-01-02 15:04:05"), r.Label, r.DB, r.Version, r.Fingerprint, r.Status})
	}
	if f == JSON {
		return WriteJSON(w, t)
	}
	return WriteTables(w, f, []Table{t})
}
