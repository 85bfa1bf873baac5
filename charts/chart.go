// Package charts turns run records and comparisons into pictures: the chart
// data (series, labels, marks) that tests pin, and its drawing as SVG or PNG
// with gonum/plot. Kinds: throughput per one-second window over time,
// latency by percentile (the HdrHistogram spectrum), cold vs warm rounds per
// query class, ratio bars of a comparison coloured by verdict, the
// server's own metrics, and the server processes' CPU and memory over time
// (SERVER_METRICS_INTERVAL).
package charts

import (
	"image/color"
	"math"
	"strconv"
	"strings"
)

// Chart kinds.
const (
	Lines = "lines" // series of points, broken into segments where a phase ends
	Bars  = "bars"  // vertical bars, one slot per series within a category
	HBars = "hbars" // horizontal bars from Reference, one row per category
)

// Chart is one picture's data, independent of how it is drawn.
type Chart struct {
	// Name is the chart's stable file name (without extension).
	Name    string `json:"name"`
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Caption string `json:"caption,omitempty"`
	X       Axis   `json:"x"`
	Y       Axis   `json:"y"`
	// Categories label the bars of a bar chart, in order.
	Categories []string `json:"categories,omitempty"`
	Series     []Series `json:"series"`
	// Marks are vertical lines at X with a label: phase and round boundaries.
	Marks []Mark `json:"marks,omitempty"`
	// Reference is a line across the chart at this value of the bars' axis
	// (1 for a ratio), where the bars start; 0 means none.
	Reference float64 `json:"reference,omitempty"`
}

// Axis is an axis' label and scale.
type Axis struct {
	Label string `json:"label"`
	Log   bool   `json:"log,omitempty"`
	// Ticks replace the automatic ticks (the percentile axis).
	Ticks []Tick `json:"ticks,omitempty"`
}

// Tick is a labelled position on an axis.
type Tick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// Mark is a labelled vertical line.
type Mark struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
}

// Point is one point of a line.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Series is one line or one set of bars.
type Series struct {
	Name string `json:"name"`
	// Run numbers the runs of a side that share its name and colour.
	Run int `json:"run,omitempty"`
	// Colour indexes Palette (a run's or a side's colour, the same in every
	// chart) or, for verdicts, VerdictColours.
	Colour int `json:"colour"`
	// Verdict colours the bars by a comparison's verdict instead.
	Verdict string `json:"verdict,omitempty"`
	// Dash indexes Dashes: the round or phase of a line.
	Dash int `json:"dash,omitempty"`
	// Light draws bars in a lighter shade of the colour (a warm round).
	Light bool `json:"light,omitempty"`
	// Segments are the lines of a line chart.
	Segments [][]Point `json:"segments,omitempty"`
	// Values are the bars of a bar chart, one per category; NaN is none.
	Values Values `json:"values,omitempty"`
	// Labels are written beside the bars, one per category.
	Labels []string `json:"labels,omitempty"`
	// Slot is the bar's place within its category (0 for one slot).
	Slot int `json:"slot,omitempty"`
}

// Values are bar heights; NaN (no bar) is null in JSON.
type Values []float64

// MarshalJSON implements json.Marshaler.
func (v Values) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// Palette are the colours of runs and sides, in order: Okabe and Ito's
// colour-blind safe set, ordered so that neighbours differ in lightness
// too and survive printing in greyscale (lines also differ by dash).
var Palette = []color.NRGBA{
	hex("#0072B2"), // blue, dark
	hex("#E69F00"), // orange, light
	hex("#009E73"), // green
	hex("#CC79A7"), // purple, light
	hex("#000000"),
	hex("#56B4E9"),
	hex("#D55E00"),
}

// Verdicts and their colours: dark, middle and light in greyscale.
const (
	VerdictWorse     = "worse"
	VerdictBetter    = "better"
	VerdictNoChange  = "no significant difference"
	VerdictNotJudged = "not judged"
	// VerdictCannotTell is a gated row the gate left inconclusive.
	VerdictCannotTell = "cannot tell"
)

// VerdictColours colour the bars of a ratio chart.
var VerdictColours = map[string]color.NRGBA{
	VerdictWorse:     hex("#882255"),
	VerdictBetter:    hex("#44AA99"),
	VerdictNoChange:  hex("#DDDDDD"),
	VerdictNotJudged: hex("#BBBBBB"),
	// Sand: apart from the others in hue, and lighter than worse and
	// better in greyscale.
	VerdictCannotTell: hex("#DDCC77"),
}

func hex(s string) color.NRGBA {
	var c color.NRGBA
	c.A = 255
	for i, p := range []*uint8{&c.R, &c.G, &c.B} {
		*p = unhex(s[1+2*i])<<4 | unhex(s[2+2*i])
	}
	return c
}

func unhex(b byte) uint8 {
	switch {
	case b >= '0' && b <= '9':
		return b - '0'
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10
	default:
		return b - 'A' + 10
	}
}

// RGB is the colour a series is drawn in.
func (s Series) RGB() color.NRGBA {
	if s.Verdict != "" {
		return VerdictColours[s.Verdict]
	}
	c := Palette[s.Colour%len(Palette)]
	if s.Light {
		// Half way to white: the same hue, clearly lighter in greyscale.
		c = color.NRGBA{R: c.R/2 + 128, G: c.G/2 + 128, B: c.B/2 + 128, A: 255}
	}
	return c
}

// Slug makes a stable file name part of a label.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}
