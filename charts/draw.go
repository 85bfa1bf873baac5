package charts

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Dashes tell a chart's rounds or phases apart without colour: solid,
// dashed, dotted, dash-dot.
var Dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(7), vg.Points(2), vg.Points(1.5), vg.Points(2)},
}

// Size is the chart's drawing size in points (1/72 inch): what an SVG
// declares and a browser shows at 4/3 pixels a point. The legend adds its
// height below the plot.
func (c *Chart) Size() (w, h vg.Length) {
	w, h = 7*vg.Inch, 3*vg.Inch
	switch c.Kind {
	case HBars:
		// The title, the axis and its label take about an inch and a half
		// whatever the rows: with one or two rows less than that left no
		// room for the bars (the server metrics' chart of a footprint).
		h = max(2.2*vg.Inch, vg.Inch+vg.Length(len(c.Categories))*0.24*vg.Inch)
		// Long row names take their room from the bars: widen the chart
		// by what they need beyond a typical operation's name.
		longest := 0
		for _, cat := range c.Categories {
			longest = max(longest, len(cat))
		}
		w += max(0, vg.Length(longest)*vg.Points(5.5)-vg.Points(190))
	case Bars:
		slots := 0
		for _, s := range c.Series {
			slots = max(slots, s.Slot+1)
		}
		w = max(w, min(16*vg.Inch, 1.2*vg.Inch+vg.Length(len(c.Categories)*slots)*0.11*vg.Inch))
		h = 3.4 * vg.Inch
	}
	if _, leg, err := c.plot(); err == nil {
		h += legendHeight(leg)
	}
	return w, h
}

// SVG draws the chart as an SVG element for an HTML page (no XML prolog).
func (c *Chart) SVG() ([]byte, error) {
	b, err := c.draw("svg")
	if err != nil {
		return nil, err
	}
	// The prolog and the generator's comment are for a file of its own;
	// inside a page they are noise.
	return prolog.ReplaceAll(b, nil), nil
}

var prolog = regexp.MustCompile(`(?s)\A<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)

// PNG draws the chart as a PNG image.
func (c *Chart) PNG() ([]byte, error) { return c.draw("png") }

func (c *Chart) draw(format string) ([]byte, error) {
	p, leg, err := c.plot()
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	w, h := c.Size()
	cv, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	dc := draw.New(cv)
	// The legend goes below the plot, never over the data.
	lh := legendHeight(leg)
	p.Draw(draw.Crop(dc, 0, 0, lh, 0))
	if lh > 0 {
		leg.Draw(draw.Crop(dc, vg.Points(60), 0, vg.Points(4), -(h - lh)))
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return buf.Bytes(), nil
}

// sans sets a text style's font to Liberation Sans, which gonum/plot
// embeds: screen text reads better without serifs.
func sans(s *text.Style) {
	s.Font.Typeface = "Liberation"
	s.Font.Variant = "Sans"
}

// legendHeight is the room a legend takes below the plot.
func legendHeight(l *plot.Legend) vg.Length {
	var c draw.Canvas
	r := l.Rectangle(c)
	if r.Size().Y == 0 {
		return 0
	}
	return r.Size().Y + vg.Points(10)
}

func (c *Chart) plot() (*plot.Plot, *plot.Legend, error) {
	p := plot.New()
	leg := plot.NewLegend()
	sans(&leg.TextStyle)
	leg.TextStyle.Font.Size = vg.Points(9)
	leg.Top, leg.Left = true, true
	p.Title.Text = c.Title
	p.X.Label.Text = c.X.Label
	p.Y.Label.Text = c.Y.Label
	for _, s := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		sans(s)
	}
	grid := plotter.NewGrid()
	switch c.Kind {
	case HBars:
		grid.Horizontal.Color = nil // one line per category says nothing
	case Bars:
		grid.Vertical.Color = nil
	}
	p.Add(grid)
	// A log axis is drawn as a linear axis of log10 values with ticks at
	// the values' places: gonum/plot's LogScale centres an axis label on
	// the arithmetic middle of the range, which on a log axis sits near
	// the top and pushes the plot down.
	if c.X.Log {
		p.X.Tick.Marker = logged{logTicks{}}
	}
	if c.Y.Log {
		p.Y.Tick.Marker = logged{logTicks{}}
	}
	if c.Reference == 1 && c.X.Log {
		p.X.Tick.Marker = logged{ratioTicks{}}
	}
	if len(c.X.Ticks) > 0 {
		var ts plot.ConstantTicks
		for _, t := range c.X.Ticks {
			ts = append(ts, plot.Tick{Value: t.Value, Label: t.Label})
		}
		p.X.Tick.Marker = ts
	}
	var err error
	switch c.Kind {
	case Lines:
		err = c.lines(p, &leg)
	case Bars:
		err = c.bars(p, &leg, false)
	case HBars:
		err = c.bars(p, &leg, true)
	default:
		err = fmt.Errorf("unknown chart kind %q", c.Kind)
	}
	return p, &leg, err
}

func (c *Chart) lines(p *plot.Plot, leg *plot.Legend) error {
	named := map[string]bool{}
	for _, m := range c.Marks {
		p.Add(&vline{x: m.X, label: m.Label, style: draw.LineStyle{Color: color.Gray{Y: 110}, Width: vg.Points(0.7), Dashes: Dashes[2]}})
	}
	for _, s := range c.Series {
		style := draw.LineStyle{Color: s.RGB(), Width: vg.Points(1.3), Dashes: Dashes[s.Dash%len(Dashes)]}
		var first plot.Thumbnailer
		for _, seg := range s.Segments {
			xys := make(plotter.XYs, len(seg))
			for i, pt := range seg {
				xys[i].X, xys[i].Y = pt.X, pt.Y
			}
			if c.Y.Log {
				// A zero has no place on a log axis; the histogram's floor is 1 µs.
				for i := range xys {
					xys[i].Y = math.Log10(max(xys[i].Y, 0.001))
				}
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return err
			}
			l.LineStyle = style
			p.Add(l)
			if first == nil {
				first = l
			}
			if len(seg) <= 2 {
				// A phase of one window is a point, which a line alone does not show.
				sc, err := plotter.NewScatter(xys)
				if err != nil {
					return err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
				p.Add(sc)
			}
		}
		if first != nil && !named[s.Name] {
			// Runs of one side share its name, colour and legend entry.
			named[s.Name] = true
			leg.Add(s.Name, first)
		}
	}
	if !c.Y.Log {
		p.Y.Min = 0 // throughput starts at zero, so a stall is seen as one
		p.Y.Tick.Marker = siTicks{}
	}
	if len(c.X.Ticks) == 0 && !c.X.Log {
		p.X.Tick.Marker = siTicks{} // "25", not gonum/plot's "25.00"
	}
	return nil
}

func (c *Chart) bars(p *plot.Plot, leg *plot.Legend, horizontal bool) error {
	n := len(c.Categories)
	slots := 0
	for _, s := range c.Series {
		slots = max(slots, s.Slot+1)
	}
	width := 0.8 / float64(max(slots, 1))
	base := c.Reference
	logAxis := c.Y.Log || c.X.Log
	// A bar is drawn for a finite value, and on a log axis for a positive
	// one: a ratio of 0 (a figure that fell to nothing) or an infinite one
	// has no place there, and its infinite coordinates once kept the
	// rasterizer busy for good. Such a bar is left out, as a missing value.
	drawable := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && (!logAxis || v > 0) }
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, v := range s.Values {
			if drawable(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if base > 0 {
		lo, hi = min(lo, base), max(hi, base)
	}
	if lo > hi { // nothing to draw
		lo, hi = 1, 1
	}
	tr := func(v float64) float64 { return v }
	if logAxis {
		// Drawn in log10 space (see plot); room around the bars: a ninth
		// of a decade each side.
		tr = math.Log10
		lo, hi = math.Log10(lo)-0.114, math.Log10(hi)+0.114
		if base > 0 {
			base = math.Log10(base)
		} else {
			base = lo
		}
	} else {
		lo = min(lo, 0)
	}
	var labels plotter.XYLabels
	for _, s := range c.Series {
		vals := make([]float64, len(s.Values))
		for i, v := range s.Values {
			vals[i] = math.NaN()
			if drawable(v) {
				vals[i] = tr(v)
			}
		}
		b := &barSet{values: vals, base: base, slot: s.Slot, width: width, slots: slots, horizontal: horizontal, colour: s.RGB()}
		p.Add(b)
		leg.Add(s.Name, b)
		for i, l := range s.Labels {
			if l == "" || math.IsNaN(vals[i]) {
				continue
			}
			v := max(vals[i], base)
			if horizontal {
				labels.XYs = append(labels.XYs, plotter.XY{X: v, Y: float64(n - 1 - i)})
			} else {
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: v})
			}
			labels.Labels = append(labels.Labels, l)
		}
	}
	if len(labels.Labels) > 0 {
		ls, err := plotter.NewLabels(labels)
		if err != nil {
			return err
		}
		for i := range ls.TextStyle {
			sans(&ls.TextStyle[i])
			ls.TextStyle[i].Font.Size = vg.Points(8)
			ls.TextStyle[i].XAlign = draw.XLeft
			ls.TextStyle[i].YAlign = draw.YCenter
		}
		ls.Offset = vg.Point{X: vg.Points(3)}
		p.Add(ls)
	}
	// Category names, first at the top of a horizontal chart.
	names := append([]string(nil), c.Categories...)
	if horizontal {
		for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
			names[i], names[j] = names[j], names[i]
		}
		p.NominalY(names...)
		p.X.Min, p.X.Max = lo, hi+0.45*(hi-lo) // room for the labels
		if c.Reference > 0 {
			p.Add(&vline{x: base, style: draw.LineStyle{Color: color.Black, Width: vg.Points(1)}})
		}
	} else {
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		p.Y.Min, p.Y.Max = lo, hi
	}
	return nil
}

// barSet draws one series of bars from base to each value: gonum/plot's
// BarChart starts bars at zero, and a log axis has no zero.
type barSet struct {
	values      []float64
	base        float64
	slot, slots int
	width       float64 // in category units
	horizontal  bool
	colour      color.Color
}

func (b *barSet) pos(i int) float64 {
	if b.horizontal {
		i = len(b.values) - 1 - i
	}
	return float64(i) - 0.4 + b.width*(float64(b.slot)+0.5)
}

// Plot implements plot.Plotter.
func (b *barSet) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, v := range b.values {
		if math.IsNaN(v) {
			continue
		}
		c0, c1 := b.pos(i)-b.width/2, b.pos(i)+b.width/2
		var pts []vg.Point
		if b.horizontal {
			x0, x1 := trX(b.base), trX(v)
			pts = []vg.Point{{X: x0, Y: trY(c0)}, {X: x0, Y: trY(c1)}, {X: x1, Y: trY(c1)}, {X: x1, Y: trY(c0)}}
		} else {
			y0, y1 := trY(b.base), trY(v)
			pts = []vg.Point{{X: trX(c0), Y: y0}, {X: trX(c0), Y: y1}, {X: trX(c1), Y: y1}, {X: trX(c1), Y: y0}}
		}
		c.FillPolygon(b.colour, c.ClipPolygonXY(pts))
		// An outline keeps a light bar visible on white, also in greyscale.
		c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.5)}, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// DataRange implements plot.DataRanger.
func (b *barSet) DataRange() (xmin, xmax, ymin, ymax float64) {
	cmin, cmax := -0.5, float64(len(b.values))-0.5
	vmin, vmax := math.Inf(1), math.Inf(-1)
	for _, v := range b.values {
		if !math.IsNaN(v) {
			vmin, vmax = min(vmin, v), max(vmax, v)
		}
	}
	if b.horizontal {
		return vmin, vmax, cmin, cmax
	}
	return cmin, cmax, vmin, vmax
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (b *barSet) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.colour, c.ClipPolygonXY(pts))
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.5)}, c.ClipLinesXY(append(pts, pts[0]))...)
}

// vline is a vertical line across the chart at x, with a label at its top.
type vline struct {
	x     float64
	label string
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (v *vline) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	x := trX(v.x)
	if !c.ContainsX(x) {
		return
	}
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
	if v.label != "" {
		st := text.Style{Color: color.Gray{Y: 70}, Font: font.From(plot.DefaultFont, vg.Points(7)), Rotation: math.Pi / 2,
			XAlign: draw.XRight, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		sans(&st)
		c.FillText(st, vg.Point{X: x + vg.Points(1), Y: c.Max.Y - vg.Points(2)}, v.label)
	}
}

// DataRange implements plot.DataRanger: only x matters.
func (v *vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}

// logTicks label a log axis at 1, 2 and 5 of every decade (at 1 alone when
// it spans more than three decades), since gonum/plot's LogTicks label
// powers of ten only and leave a one-decade axis with a single number.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	steps := []float64{1, 2, 5}
	if math.Log10(hi/lo) > 3 {
		steps = []float64{1}
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			for _, st := range steps {
				if float64(m) == st {
					t.Label = strconv.FormatFloat(v, 'g', -1, 64)
				}
			}
			ts = append(ts, t)
		}
	}
	// A thin band (the medians of one class within a few per cent) holds
	// one labelled tick or none: every tick is labelled then, and when
	// that is still fewer than two, a linear scale's ticks, which within
	// a fraction of a decade read as well.
	labelled := 0
	for _, t := range ts {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		for i := range ts {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', -1, 64)
		}
		if len(ts) < 2 {
			return plot.DefaultTicks{}.Ticks(lo, hi)
		}
	}
	return ts
}

// logged places a value axis' ticks on an axis of log10 values.
type logged struct{ values plot.Ticker }

// Ticks implements plot.Ticker.
func (l logged) Ticks(lo, hi float64) []plot.Tick {
	ts := l.values.Ticks(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// ratioTicks label a ratio axis at values a reader compares with 1: finer
// steps on an axis of less than a decade.
type ratioTicks struct{}

// Ticks implements plot.Ticker.
func (ratioTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	vs := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}
	if hi/lo < 10 { // the padded axis of ratios within about 0.6x..1.7x
		vs = []float64{0.5, 0.67, 0.8, 1, 1.25, 1.5, 2}
	}
	for _, v := range vs {
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64) + "×"})
		}
	}
	return ts
}

// siTicks are gonum/plot's default ticks labelled with SI prefixes
// (2.5M rather than 2500000), which fit beside the axis.
type siTicks struct{}

// Ticks implements plot.Ticker.
func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = si(ts[i].Value)
		}
	}
	return ts
}

func si(v float64) string {
	for _, u := range []struct {
		f float64
		p string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 4, 64) + u.p
		}
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
