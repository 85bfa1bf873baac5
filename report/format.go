package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Format is an output format of the commands that print runs and
// comparisons.
type Format string

// The formats. HTML is package htmlreport's page, written by bench compare
// and bench report.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	CSV      Format = "csv"
	JSON     Format = "json"
	HTML     Format = "html"
)

// MachineReadable reports whether programs read the output: then what is
// said for people goes to standard error, so the output stays parseable.
func (f Format) MachineReadable() bool { return f == CSV || f == JSON }

// describe is what a format's name does not say, for help texts.
var describe = map[Format]string{HTML: "one self-contained page with charts"}

// Formats are the formats one command writes, and who it is in a refusal.
type Formats struct {
	Writer string
	List   []Format
}

// TableFormats are the formats of every table-printing command.
var TableFormats = Formats{Writer: "tsbench", List: []Format{Text, Markdown, CSV, JSON}}

// With adds formats to a list, for a command that writes more.
func (fs Formats) With(writer string, more ...Format) Formats {
	return Formats{Writer: writer, List: append(append([]Format(nil), fs.List...), more...)}
}

// Parse checks a --format value.
func (fs Formats) Parse(s string) (Format, error) {
	var names []string
	for _, f := range fs.List {
		if string(f) == s {
			return f, nil
		}
		names = append(names, string(f))
	}
	return "", fmt.Errorf("--format=%s is not a format %s writes (valid: %s)", s, fs.Writer, strings.Join(names, ", "))
}

// Help lists the formats for a flag's help: "text, markdown, csv or json".
func (fs Formats) Help() string {
	var names []string
	for _, f := range fs.List {
		n := string(f)
		if d := describe[f]; d != "" {
			n += " (" + d + ")"
		}
		names = append(names, n)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Wrap breaks text into lines of at most width columns at spaces, for help
// texts that reuse a sentence of the reports.
func Wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}
