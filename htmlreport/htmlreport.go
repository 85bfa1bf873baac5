// Package htmlreport writes a run report or a comparison as one
// self-contained HTML file: the run facts, the charts as inline SVG and the
// matrices as tables. No script, font, style sheet or image is fetched from
// anywhere, so the file opens offline and can be attached or published as
// it is. The PNG files of the same charts are written by WritePNGs.
package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tsbench/tsbench/charts"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/history"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
)

//go:embed page.html
var pageText string

var page = template.Must(template.New("page").Parse(pageText))

// Figure is a drawn chart in the page.
type Figure struct {
	Name, Title, Caption string
	SVG                  template.HTML
	// Width and Height are the chart's size in CSS pixels.
	Width, Height int
}

// Facts is a table of what was measured: one column per run or side.
type Facts struct {
	Header []string
	Rows   [][]string
}

type pageData struct {
	Title     string
	Generated string
	// Verdict is a comparison's: the gate's status and the summary a
	// reviewer reads first (report.Summary), above everything else.
	Verdict *verdictBox
	Lead    []string
	Facts   Facts
	Figures []Figure
	Notes   []string
	// Styles are the charts' shared styles, one CSS class each.
	Styles template.CSS
	Tables []report.Table
}

// Runs writes the report of one or more runs.
func Runs(w io.Writer, tool string, runs []*record.Record) error {
	d := pageData{Title: "tsbench report", Generated: generated(tool)}
	if len(runs) == 1 {
		d.Title = "tsbench report: " + name(runs[0])
	}
	d.Facts = runFacts(runs)
	for _, r := range runs {
		if r.Error != "" {
			d.Lead = append(d.Lead, fmt.Sprintf("Run %s is %s: %s", r.ID, r.Status, r.Error))
		}
		for _, wn := range r.Warnings {
			d.Lead = append(d.Lead, fmt.Sprintf("Run %s: %s", r.ID, wn))
		}
	}
	for _, r := range runs {
		for _, t := range report.RunTables(r) {
			if len(runs) > 1 {
				t.Title = name(r) + ": " + t.Title
			}
			d.Tables = append(d.Tables, t)
		}
	}
	return write(w, d, charts.ForRuns(runs))
}

// Comparison writes a comparison: its tables (the layout the user chose)
// and its charts.
func Comparison(w io.Writer, tool string, cmp *compare.Comparison, tables []report.Table) error {
	var labels []string
	for _, s := range cmp.Contenders {
		labels = append(labels, s.Label)
	}
	// The summary stands once, in the verdict box, not again over a table.
	v := verdictOf(cmp)
	said := append([]string{v.Headline}, v.Lines...)
	tables = slices.Clone(tables)
	for i := range tables {
		tables[i].Lead = slices.DeleteFunc(slices.Clone(tables[i].Lead), func(l string) bool { return slices.Contains(said, l) })
	}
	d := pageData{
		// Baseline first, as every table of the page puts it.
		Title:     fmt.Sprintf("tsbench comparison: %s vs %s", cmp.Baseline.Label, strings.Join(labels, ", ")),
		Generated: generated(tool),
		Lead:      cmp.Warnings,
		Facts:     sideFacts(append([]compare.Side{cmp.Baseline}, cmp.Contenders...)),
		Tables:    tables,
		Verdict:   v,
	}
	return write(w, d, charts.ForComparison(cmp))
}

// verdictBox is the verdict at the top of a comparison's page.
type verdictBox struct {
	Status   string // passed, regression, inconclusive; "" without a gate
	Headline string
	Lines    []string
}

func verdictOf(cmp *compare.Comparison) *verdictBox {
	lines := report.Summary(cmp)
	v := &verdictBox{Headline: lines[0], Lines: lines[1:]}
	if cmp.Verdict != nil {
		v.Status = cmp.Verdict.Status
	}
	return v
}

// History writes a history: its tables and a trend chart for each series
// that changed level.
func History(w io.Writer, tool string, h *history.History, title string, tables []report.Table) error {
	d := pageData{Title: "tsbench history: " + title, Generated: generated(tool), Tables: tables}
	return write(w, d, charts.ForHistory(h))
}

// write draws the charts into the page and writes it.
func write(w io.Writer, d pageData, set charts.Set) error {
	d.Notes = set.Notes
	var err error
	var styles styleSheet
	if d.Figures, err = figures(set.Charts, &styles); err != nil {
		return err
	}
	d.Styles = styles.css()
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		return fmt.Errorf("write the HTML page: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

func generated(tool string) string {
	return fmt.Sprintf("Written by tsbench %s on %s.", tool, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
}

func name(r *record.Record) string {
	if r.Label != "" {
		return r.Label + " (" + r.ID + ")"
	}
	return r.ID
}

// figures draws the charts, with their repeated inline styles turned into
// classes of one style sheet for the page (styles names them).
func figures(cs []charts.Chart, styles *styleSheet) ([]Figure, error) {
	var out []Figure
	for i := range cs {
		c := &cs[i]
		svg, err := c.SVG()
		if err != nil {
			return nil, err
		}
		svg = styles.classes(svg)
		w, h := c.Size()
		out = append(out, Figure{Name: c.Name, Title: c.Title, Caption: c.Caption,
			// The SVG is the drawing library's output for chart data of ours:
			// no user text reaches it unescaped (gonum/plot escapes text).
			SVG:   template.HTML(svg),
			Width: int(w.Points()*4/3 + 0.5), Height: int(h.Points()*4/3 + 0.5)})
	}
	return out, nil
}

func runFacts(runs []*record.Record) Facts {
	f := Facts{Header: []string{""}}
	add := func(label string, val func(r *record.Record) string) {
		row := []string{label}
		for _, r := range runs {
			row = append(row, val(r))
		}
		f.Rows = append(f.Rows, row)
	}
	for _, r := range runs {
		f.Header = append(f.Header, name(r))
	}
	add("status", func(r *record.Record) string { return r.Status })
	add("database", func(r *record.Record) string { return r.Target.DB })
	add("server", func(r *record.Record) string { return r.Target.Identity() })
	add("address", func(r *record.Record) string { return strings.Join(r.Target.Address, ", ") })
	add("host", func(r *record.Record) string { return host(r.Host) })
	add("tsbench", func(r *record.Record) string { return r.Tool.Version + " (" + r.Tool.GoVersion + ")" })
	add("workload fingerprint", func(r *record.Record) string { return r.Fingerprint })
	add("started (UTC)", func(r *record.Record) string { return r.StartedAt.UTC().Format("2006-01-02 15:04:05") })
	add("duration", func(r *record.Record) string { return r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String() })
	add("verify", func(r *record.Record) string {
		if r.Verify == nil {
			return "not run"
		}
		return r.Verify.Summary()
	})
	return f
}

func host(h record.Host) string {
	s := fmt.Sprintf("%s (%s/%s, %d CPUs", h.Hostname, h.OS, h.Arch, h.CPUs)
	if h.MemoryBytes > 0 {
		s += fmt.Sprintf(", %.1f GiB", float64(h.MemoryBytes)/(1<<30))
	}
	return s + ")"
}

func sideFacts(sides []compare.Side) Facts {
	f := Facts{Header: []string{""}}
	for i, s := range sides {
		role := "contender"
		if i == 0 {
			role = "baseline"
		}
		f.Header = append(f.Header, role+": "+s.Label)
	}
	add := func(label string, val func(r *record.Record) string) {
		row := []string{label}
		for _, s := range sides {
			var vs []string
			for _, r := range s.Runs {
				v := val(r)
				if len(vs) == 0 || vs[len(vs)-1] != v {
					vs = append(vs, v)
				}
			}
			row = append(row, strings.Join(vs, ", "))
		}
		f.Rows = append(f.Rows, row)
	}
	add("runs", func(r *record.Record) string { return r.ID })
	add("status", func(r *record.Record) string { return r.Status })
	add("database", func(r *record.Record) string { return r.Target.DB })
	add("server", func(r *record.Record) string { return r.Target.Identity() })
	add("address", func(r *record.Record) string { return strings.Join(r.Target.Address, ", ") })
	add("host", func(r *record.Record) string { return host(r.Host) })
	add("tsbench", func(r *record.Record) string { return r.Tool.Version })
	add("workload fingerprint", func(r *record.Record) string { return r.Fingerprint })
	return f
}

// WritePNGs writes every chart as DIR/NAME.png (stable names: the chart's
// kind and operation or metric), creating DIR, and returns the paths.
func WritePNGs(dir string, cs []charts.Chart) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the PNG folder: %w", err)
	}
	var paths []string
	for i := range cs {
		b, err := cs[i].PNG()
		if err != nil {
			return paths, err
		}
		p := filepath.Join(dir, cs[i].Name+".png")
		if err := record.WriteFileAtomic(p, b); err != nil {
			return paths, fmt.Errorf("write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// styleSheet gives each distinct inline style of the charts' SVG a class:
// gonum/plot writes the whole style on every element, and a weekly
// comparison repeats a few dozen styles some ten thousand times.
type styleSheet struct {
	names map[string]string
	order []string
}

var inlineStyle = regexp.MustCompile(`style="([^"]*)"`)

func (s *styleSheet) classes(svg []byte) []byte {
	if s.names == nil {
		s.names = map[string]string{}
	}
	return inlineStyle.ReplaceAllFunc(svg, func(m []byte) []byte {
		st := string(inlineStyle.FindSubmatch(m)[1])
		n, ok := s.names[st]
		if !ok {
			n = fmt.Sprintf("s%d", len(s.order))
			s.names[st] = n
			s.order = append(s.order, st)
		}
		return []byte(`class="` + n + `"`)
	})
}

func (s *styleSheet) css() template.CSS {
	var b strings.Builder
	for i, st := range s.order {
		// A browser without the Liberation fonts gets the nearest sans.
		st = strings.ReplaceAll(st, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
		fmt.Fprintf(&b, "svg .s%d{%s}\n", i, st)
	}
	// The styles are gonum/plot's own output (colours, widths, fonts).
	return template.CSS(b.String())
}

// external are the references a self-contained page must not have. Links
// within the page (href="#...") and SVG's namespace names, which nothing
// fetches, are allowed.
var external = []*regexp.Regexp{
	regexp.MustCompile(`(?i)<script`),
	regexp.MustCompile(`(?i)<link`),
	regexp.MustCompile(`(?i)<img`),
	regexp.MustCompile(`(?i)<iframe`),
	regexp.MustCompile(`(?i)\ssrc\s*=`),
	regexp.MustCompile(`(?i)\s(xlink:)?href\s*=\s*"[^#]`),
	regexp.MustCompile(`(?i)url\(\s*['"]?[^#'"\s]`),
	regexp.MustCompile(`(?i)@import`),
	regexp.MustCompile(`(?i)https?://(?:[^w]|w[^w]|ww[^w]|www[^.]|www\.[^w]|www\.w[^3])`),
}

// External returns the first reference of a page to anything outside it
// (a script, a style sheet, an image, a URL), or "" for a self-contained
// page: what the tests check of every page this package writes.
func External(page []byte) string {
	for _, re := range external {
		if m := re.Find(page); m != nil {
			return string(m)
		}
	}
	return ""
}

// WriteComparison writes a comparison in a format of bench compare: the
// HTML page, or report's tables in the layout.
func WriteComparison(w io.Writer, f report.Format, l report.Layout, tool string, cmp *compare.Comparison) error {
	if f == report.HTML {
		return Comparison(w, tool, cmp, l.Tables(cmp))
	}
	return report.WriteComparison(w, f, l, cmp)
}

// WriteHistory writes a history in a format of bench history: its JSON,
// the HTML page, or report's tables.
func WriteHistory(w io.Writer, f report.Format, tool string, h *history.History, title string) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, h)
	case report.HTML:
		return History(w, tool, h, title, report.HistoryTables(h, title))
	}
	return report.WriteTables(w, f, report.HistoryTables(h, title))
}
