package queries

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
)

//go:embed suites/*.suite
var suiteFiles embed.FS

// Variant is a named query: a family plus parameter overrides, and
// perhaps requests of its own.
type Variant struct {
	Name      string
	Family    Family
	Overrides []Override
	// Requests are the variant's own requests (a custom query), by the
	// language of the database that reads them ("iotdb", "sqlite",
	// "elasticsearch"…): templates whose placeholders (Placeholders) the
	// family's parameters fill. A database runs its language's request in
	// place of the family's query; nil: the family's query.
	Requests map[string]string
}

// Override changes one query parameter of a variant. Scale multiplies the
// configuration's value (xN); otherwise Value replaces it.
type Override struct {
	Key   string // devices, sensors, interval, groupby, aggregate, lower, limit, step
	Scale float64
	Value string
}

var overrideKeys = map[string]string{
	"devices": "QUERY_DEVICE_NUM", "sensors": "QUERY_SENSOR_NUM", "interval": "QUERY_INTERVAL", "groupby": "GROUP_BY_TIME_UNIT",
	"aggregate": "QUERY_AGGREGATE_FUN", "lower": "QUERY_LOWER_VALUE", "limit": "RESULT_ROW_LIMIT", "step": "STEP_SIZE",
}

// Suite is an ordered list of variants.
type Suite struct {
	Name     string
	Variants []Variant
}

// BuiltinSuites lists the suites embedded in the binary.
func BuiltinSuites() []string {
	entries, _ := suiteFiles.ReadDir("suites")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".suite"))
	}
	return out
}

// LoadSuite reads a built-in suite by name or a suite file by path.
func LoadSuite(ref string) (*Suite, error) {
	data, err := suiteFiles.ReadFile("suites/" + ref + ".suite")
	name, dir := ref, ""
	if err != nil {
		if data, err = os.ReadFile(ref); err != nil {
			return nil, &config.Error{Key: "QUERY_SUITE", Value: ref, Msg: "is neither a built-in suite nor a readable file", Valid: strings.Join(BuiltinSuites(), ", ") + " or a path"}
		}
		dir = filepath.Dir(ref) // a request's @file is beside the suite
	}
	s, err := parseSuite(name, data, dir)
	if err != nil {
		return nil, &config.Error{Key: "QUERY_SUITE", Value: ref, Msg: err.Error()}
	}
	return s, nil
}

// ParseSuite reads the suite format: one variant per line, "name family
// [key=value ...]", # comments; below a variant, indented lines
// "language: request" give it requests of its own (a request "@path"
// reads a file, relative to dir).
func ParseSuite(name string, data []byte) (*Suite, error) {
	return parseSuite(name, data, "")
}

func parseSuite(name string, data []byte, dir string) (*Suite, error) {
	s := &Suite{Name: name}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20) // a request line may be a long search body
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		if raw != "" && (raw[0] == ' ' || raw[0] == '\t') && strings.TrimSpace(raw) != "" && !strings.HasPrefix(strings.TrimSpace(raw), "#") {
			if err := s.addRequest(n, strings.TrimSpace(raw), dir); err != nil {
				return nil, err
			}
			continue
		}
		line := raw
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: %q needs a name and a family (%s)", n, strings.TrimSpace(line), familyIDs())
		}
		v := Variant{Name: f[0]}
		if seen[v.Name] {
			return nil, fmt.Errorf("line %d: variant %s is defined twice", n, v.Name)
		}
		seen[v.Name] = true
		fam, ok := familyByID(f[1])
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not a query family (valid: %s)", n, f[1], familyIDs())
		}
		v.Family = fam
		for _, kv := range f[2:] {
			k, val, ok := strings.Cut(kv, "=")
			if _, known := overrideKeys[k]; !ok || !known {
				return nil, fmt.Errorf("line %d: %q is not key=value with a key of devices, sensors, interval, groupby, aggregate, lower, limit, step", n, kv)
			}
			o := Override{Key: k, Value: val}
			if rest, ok := strings.CutPrefix(val, "x"); ok {
				x, err := strconv.ParseFloat(rest, 64)
				if err != nil || x <= 0 || math.IsInf(x, 0) {
					return nil, fmt.Errorf("line %d: %s: scale %q is not a positive number", n, kv, rest)
				}
				o.Scale = x
			}
			v.Overrides = append(v.Overrides, o)
		}
		s.Variants = append(s.Variants, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the suite: %w", err)
	}
	if len(s.Variants) == 0 {
		return nil, fmt.Errorf("the suite has no variants")
	}
	return s, nil
}

// addRequest reads an indented "language: request" line into the last
// variant.
func (s *Suite) addRequest(n int, line, dir string) error {
	if len(s.Variants) == 0 {
		return fmt.Errorf("line %d: an indented line is a request of the variant above it, and there is none", n)
	}
	v := &s.Variants[len(s.Variants)-1]
	lang, req, ok := strings.Cut(line, ":")
	lang = strings.TrimSpace(lang)
	req = strings.TrimSpace(req)
	if !ok || !validLanguage(lang) || req == "" {
		return fmt.Errorf("line %d: %q is not \"language: request\" (a language such as iotdb, iotdb-table, sqlite, elasticsearch)", n, firstWords(line))
	}
	if _, dup := v.Requests[lang]; dup {
		return fmt.Errorf("line %d: variant %s has two %s requests", n, v.Name, lang)
	}
	if path, ok := strings.CutPrefix(req, "@"); ok {
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("line %d: variant %s's %s request: %w", n, v.Name, lang, err)
		}
		if req = strings.TrimSpace(string(b)); req == "" {
			return fmt.Errorf("line %d: variant %s's %s request: %s is empty", n, v.Name, lang, path)
		}
	}
	if _, err := Fill(req, nil); err != nil {
		return fmt.Errorf("line %d: variant %s's %s request: %w", n, v.Name, lang, err)
	}
	if v.Requests == nil {
		v.Requests = map[string]string{}
	}
	v.Requests[lang] = req
	return nil
}

// validLanguage: lower-case letters, digits and dashes, a letter first.
func validLanguage(l string) bool {
	if l == "" || l[0] < 'a' || l[0] > 'z' {
		return false
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// firstWords is the start of a line, for an error.
func firstWords(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Placeholders are the names a request's {placeholders} may use, each
// filled from the query's parameters as its database writes them
// (docs/weekly-regression.md lists what each database puts there).
var Placeholders = []string{"start", "end", "value", "window", "aggregate", "limit", "device", "devices", "sensor", "sensors", "table", "index"}

// Fill replaces each {name} of a request with values[name]; other braces
// (a JSON body's) stay as they are. With values nil it only checks the
// names. A {word} that is not a placeholder, or one values lacks, is an
// error naming it.
func Fill(request string, values map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(request); i++ {
		c := request[i]
		switch {
		case c == '{':
			end := strings.IndexByte(request[i:], '}')
			name := ""
			if end > 0 {
				name = request[i+1 : i+end]
			}
			if !isPlaceholder(name) {
				if isWord(name) {
					return "", fmt.Errorf("{%s} is not a placeholder (valid: %s)", name, strings.Join(Placeholders, ", "))
				}
				// A brace of the request's own language (a JSON body):
				// kept as it is.
				b.WriteByte(c)
				continue
			}
			if values != nil {
				v, ok := values[name]
				if !ok {
					return "", fmt.Errorf("{%s} has no value for this database", name)
				}
				b.WriteString(v)
			}
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// isWord: letters, digits and underscores, what a placeholder's name
// looks like.
func isWord(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func isPlaceholder(name string) bool {
	for _, p := range Placeholders {
		if p == name {
			return true
		}
	}
	return false
}

// familyIDs names the families a suite may use, runs of numbers as ranges:
// "Q1..Q11".
func familyIDs() string {
	var parts []string
	for i := 0; i < len(Families); {
		j := i
		for j+1 < len(Families) && Families[j+1] == Families[j]+1 {
			j++
		}
		part := Families[i].ID()
		if j > i {
			part += ".." + Families[j].ID()
		}
		parts = append(parts, part)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func familyByID(id string) (Family, bool) {
	for _, f := range Families {
		if strings.EqualFold(f.ID(), id) || strings.EqualFold(f.String(), id) {
			return f, true
		}
	}
	return 0, false
}

// FamilyVariants is the default suite: one variant per family with weight.
func FamilyVariants(p Params) []Variant {
	var out []Variant
	for _, f := range p.Families {
		out = append(out, Variant{Name: f.String(), Family: f})
	}
	return out
}

// Apply returns the parameters of the variant: p with the variant's family
// alone and its overrides, and notes for values capped at what the schema
// has. suite names the suite in errors (QUERY_SUITE's value).
func (v Variant) Apply(p Params, s *generator.Schema, suite string) (Params, []string, error) {
	cc := p
	cc.Families = []Family{v.Family}
	var notes []string
	capAt := func(key string, want, limit int, why string) int {
		if want > limit {
			notes = append(notes, fmt.Sprintf("variant %s: %s=%d capped at %d (%s)", v.Name, key, want, limit, why))
			return limit
		}
		return max(want, 1)
	}
	for _, o := range v.Overrides {
		key := overrideKeys[o.Key]
		bad := func(err error) error {
			return &config.Error{Key: "QUERY_SUITE", Value: suite, Msg: fmt.Sprintf("variant %s: %s=%s: %v", v.Name, o.Key, o.Value, err)}
		}
		num := func(cur float64) (float64, error) {
			if o.Scale > 0 {
				return cur * o.Scale, nil
			}
			return strconv.ParseFloat(o.Value, 64)
		}
		switch o.Key {
		case "devices":
			n, err := num(float64(cc.Devices))
			if err != nil {
				return Params{}, nil, bad(err)
			}
			cc.Devices = capAt(key, int(n), largestGroup(s), "the written devices of the largest group")
		case "sensors":
			n, err := num(float64(cc.Sensors))
			if err != nil {
				return Params{}, nil, bad(err)
			}
			limit, why := len(s.Sensors), "SENSOR_NUMBER"
			if needsNumeric(v.Family, aggOf(cc.Aggregate)) {
				limit, why = numericSensors(s), "numeric sensors"
			}
			cc.Sensors = capAt(key, int(n), limit, why)
		case "interval", "groupby", "limit", "step":
			var cur *int64
			switch o.Key {
			case "interval":
				cur = &cc.Interval
			case "groupby":
				cur = &cc.GroupBy
			case "limit":
				cur = &cc.Limit
			default:
				cur = &cc.Step
			}
			n, err := num(float64(*cur))
			if err != nil {
				return Params{}, nil, bad(err)
			}
			*cur = int64(n)
		case "aggregate":
			if _, ok := CanonicalAggregate(o.Value); !ok {
				return Params{}, nil, bad(fmt.Errorf("not one of %s", strings.Join(Aggregates, ", ")))
			}
			cc.Aggregate = o.Value
		case "lower":
			f, err := strconv.ParseFloat(o.Value, 64)
			if err != nil {
				return Params{}, nil, bad(err)
			}
			cc.LowerValue = f
		}
	}
	return cc, notes, nil
}

func aggOf(agg string) string {
	a, _ := CanonicalAggregate(agg)
	return a
}

func numericSensors(s *generator.Schema) int {
	n := 0
	for _, sn := range s.Sensors {
		if sn.Type.Numeric() {
			n++
		}
	}
	return n
}
