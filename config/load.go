package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/go-viper/encoding/javaproperties"
	"github.com/spf13/viper"
)

// EnvPrefix prefixes environment variables that override keys:
// TSBENCH_PASSWORD=secret overrides PASSWORD.
const EnvPrefix = "TSBENCH"

// Source says where the configuration comes from. Later sources win:
// defaults < file < environment < Sets.
type Source struct {
	Path string   // a config.properties file; empty means defaults only
	Data []byte   // file contents to use instead of reading Path (tests, fuzzing)
	Sets []string // KEY=VALUE overrides, e.g. from --set
	// NoEnv ignores TSBENCH_* environment variables (tests).
	NoEnv bool
	// Catalog says which keys each database owns; nil loads the shared
	// keys only (tests of code that needs no database).
	Catalog Catalog
}

// Loaded is a configuration with what the loader had to say about it.
type Loaded struct {
	Config *Config
	// Notes announce old key names and old value forms that were translated.
	Notes []string
	// Warnings are keys that were ignored or overridden.
	Warnings []string
}

// Load reads, translates and validates a configuration. Every problem is
// returned at once as Errors; a file that cannot be read is a plain error.
func Load(src Source) (*Loaded, error) {
	raw, err := readRaw(src)
	if err != nil {
		return nil, err
	}
	l, err := fromRaw(raw, src.Catalog)
	if l != nil {
		l.Warnings = append(raw.warnings, l.Warnings...)
		l.Notes = append(raw.notes, l.Notes...)
	}
	return l, err
}

// Where a value came from; a later source wins over an earlier one.
const (
	fromFile = iota + 1
	fromEnv
	fromSet
)

// rawConfig is every key as given, upper case, with where it came from.
type rawConfig struct {
	values   map[string]string
	origin   map[string]int
	warnings []string // about the file itself (keys given twice)
	notes    []string // values taken from outside the file and TSBENCH_*
}

// JobIndexEnv is the environment variable of a Kubernetes Indexed Job's pod
// index: where no TSBENCH_BENCHMARK_INDEX or --set says otherwise, it is
// BENCHMARK_INDEX, over the file's value (a shared ConfigMap cannot hold
// a different index per pod).
const JobIndexEnv = "JOB_COMPLETION_INDEX"

// utf8BOM is what some Windows editors put at the start of a text file;
// left there, it becomes part of the first key's name.
const utf8BOM = "\ufeff"

// readRaw merges file, environment and --set values into an upper-case
// key -> trimmed value map, using viper for the file and the environment.
func readRaw(src Source) (*rawConfig, error) {
	reg := viper.NewCodecRegistry()
	// A codec per load: the javaproperties codec keeps state between calls.
	if err := reg.RegisterCodec("properties", &javaproperties.Codec{}); err != nil {
		return nil, fmt.Errorf("register properties codec: %w", err)
	}
	v := viper.NewWithOptions(viper.WithCodecRegistry(reg))
	v.SetConfigType("properties")

	data := src.Data
	if data == nil && src.Path != "" {
		b, err := os.ReadFile(src.Path)
		if err != nil {
			return nil, &Error{Msg: fmt.Sprintf("cannot read the config file: %v", unwrapPath(err)), Valid: "a readable .properties file given with -c"}
		}
		data = b
	}
	rc := &rawConfig{values: map[string]string{}, origin: map[string]int{}}
	raw := rc.values
	if bytes.IndexByte(data, 0) >= 0 {
		// A program or an archive given by mistake: its bytes are no
		// use in an error message.
		return nil, &Error{Msg: fmt.Sprintf("%s is not a text file: it holds NUL bytes, as a program or an archive does", displayPath(src.Path)), Valid: "a .properties file of KEY=VALUE lines"}
	}
	if data != nil {
		data = bytes.TrimPrefix(data, []byte(utf8BOM))
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, &Error{Msg: fmt.Sprintf("%s is not a valid .properties file: %v", displayPath(src.Path), rootCause(err))}
		}
		rc.warnings = duplicateKeys(data, displayPath(src.Path))
	}
	for _, k := range v.AllKeys() {
		raw[strings.ToUpper(k)] = strings.TrimSpace(v.GetString(k))
		rc.origin[strings.ToUpper(k)] = fromFile
	}
	if data != nil {
		// A file without one key tsbench knows is empty, or not a
		// config.properties at all (a JSON file given by mistake): running
		// the defaults, 12 × 10⁹ points, is never what was meant.
		known := map[string]bool{}
		for _, n := range knownNames(src.Catalog) {
			known[n] = true
		}
		found := false
		for k := range raw {
			found = found || known[k]
		}
		if !found {
			return nil, &Error{Msg: fmt.Sprintf("%s sets no key tsbench knows: it is empty or not a config.properties file", displayPath(src.Path)), Valid: "a .properties file of KEY=VALUE lines, such as DB_SWITCH=SQLite"}
		}
	}
	if !src.NoEnv {
		// Environment overrides only keys tsbench knows, so that unrelated
		// TSBENCH_* variables cannot inject unknown-key warnings.
		for _, name := range knownNames(src.Catalog) {
			if val, ok := os.LookupEnv(EnvPrefix + "_" + name); ok {
				raw[name] = strings.TrimSpace(val)
				rc.origin[name] = fromEnv
			}
		}
		if val, ok := os.LookupEnv(JobIndexEnv); ok && rc.origin["BENCHMARK_INDEX"] != fromEnv && !setsKey(src.Sets, "BENCHMARK_INDEX") {
			raw["BENCHMARK_INDEX"] = strings.TrimSpace(val)
			rc.origin["BENCHMARK_INDEX"] = fromEnv
			rc.notes = append(rc.notes, fmt.Sprintf("BENCHMARK_INDEX=%s from %s (this pod's index in an Indexed Job)", strings.TrimSpace(val), JobIndexEnv))
		}
	}
	for _, s := range src.Sets {
		key, val, ok := strings.Cut(s, "=")
		key = strings.ToUpper(strings.TrimSpace(key))
		if !ok || key == "" {
			return nil, &Error{Key: "--set", Value: s, Msg: "is not KEY=VALUE", Valid: "--set BATCH_SIZE_PER_WRITE=100"}
		}
		raw[key] = strings.TrimSpace(val)
		rc.origin[key] = fromSet
	}
	return rc, nil
}

// setsKey reports whether --set values give key.
func setsKey(sets []string, key string) bool {
	for _, s := range sets {
		if k, _, _ := strings.Cut(s, "="); strings.EqualFold(strings.TrimSpace(k), key) {
			return true
		}
	}
	return false
}

// duplicateKeys finds keys a .properties text sets more than once, which
// the parser resolves silently (the last wins).
func duplicateKeys(data []byte, file string) []string {
	lines := strings.Split(string(data), "\n")
	first := map[string]int{}
	var out []string
	for i := 0; i < len(lines); i++ {
		no := i + 1
		line := strings.TrimLeft(lines[i], " \t\f")
		// A line ending in an odd number of backslashes continues.
		for i+1 < len(lines) && continues(lines[i]) {
			i++
		}
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		end := strings.IndexAny(line, "=: \t\f\r")
		if end < 0 {
			end = len(line)
		}
		key := strings.ToUpper(line[:end])
		if key == "" {
			continue
		}
		if prev, ok := first[key]; ok {
			out = append(out, fmt.Sprintf("%s is set twice in %s (lines %d and %d); line %d wins", key, file, prev, no, no))
		}
		first[key] = no
	}
	return out
}

func displayPath(p string) string {
	if p == "" {
		return "the config"
	}
	return p
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// knownNames lists every key name the loader recognises: shared keys, every
// database's keys, old names and ignored keys.
func knownNames(cat Catalog) []string {
	var names []string
	for _, k := range SharedKeys() {
		names = append(names, k.Name)
	}
	for _, lk := range legacyKeys() {
		names = append(names, lk.Old)
	}
	for _, ik := range ignoredKeys() {
		names = append(names, ik.Name)
	}
	if cat != nil {
		for _, ks := range cat.KeySets() {
			for _, k := range ks.Keys {
				names = append(names, k.Name)
			}
			for _, lk := range ks.Legacy {
				names = append(names, lk.Old)
			}
			for _, ik := range ks.Ignored {
				names = append(names, ik.Name)
			}
		}
	}
	return names
}

// Defaults returns the configuration with every shared key at its default.
func Defaults() *Config {
	l, err := fromRaw(&rawConfig{values: map[string]string{}, origin: map[string]int{}}, nil)
	if err != nil {
		// The defaults are a constant table: failing here is a programming error.
		panic(fmt.Sprintf("config defaults do not validate: %v", err))
	}
	return l.Config
}

// chooseDatabase finds the key set of the database raw's DB_SWITCH names.
func chooseDatabase(raw map[string]string, cat Catalog) (*KeySet, *Error) {
	if cat == nil {
		return nil, nil
	}
	sw, ok := raw["DB_SWITCH"]
	if !ok {
		for _, k := range SharedKeys() {
			if k.Name == "DB_SWITCH" {
				sw = k.Default
			}
		}
	}
	ks, err := cat.KeySetOf(sw)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{Key: "DB_SWITCH", Value: sw, Msg: err.Error()}
	}
	return ks, nil
}

func fromRaw(rc *rawConfig, cat Catalog) (*Loaded, error) {
	raw := rc.values
	db, dbErr := chooseDatabase(raw, cat)
	legacy := legacyKeys()
	ignoredList := ignoredKeys()
	keys := SharedKeys()
	if db != nil {
		legacy = append(legacy, db.Legacy...)
		ignoredList = append(ignoredList, db.Ignored...)
		shared := len(keys)
		var head []Key
		// The database's group goes after GroupOther, as iot-benchmark
		// prints its IoTDB settings there.
		for i, k := range keys {
			if k.Group == GroupOther && (i+1 == shared || keys[i+1].Group != GroupOther) {
				head = append(append(head, keys[:i+1]...), db.Keys...)
				keys = append(head, keys[i+1:]...)
				break
			}
		}
	}
	notes, warnings, errs := applyLegacy(raw, rc.origin, legacy)
	if dbErr != nil {
		errs = append(errs, dbErr)
	}
	c := &Config{Given: map[string]bool{}, values: map[string]string{}, keys: keys, driver: db}
	var opts any
	if db != nil {
		opts = db.newOptions()
		c.options = opts
	}
	own := map[string]bool{} // the database's keys, which parse into its options
	if db != nil {
		for _, k := range db.Keys {
			own[k.Name] = true
		}
	}
	known := map[string]bool{}
	for _, k := range keys {
		known[k.Name] = true
		def := k.Default
		if d, ok := db.sharedDefault(k.Name); ok {
			def = d
		}
		val, set := raw[k.Name]
		if !set {
			val = def
		} else {
			c.Given[k.Name] = true
		}
		c.values[k.Name] = val
		dst := any(c)
		if own[k.Name] {
			dst = opts
		}
		if err := k.parse(dst, val); err != nil {
			e := &Error{Key: k.Name, Value: val, Msg: err.Error(), Valid: k.Valid}
			if k.Secret {
				e.Value = Mask
			}
			if !set {
				e.Msg += " (built-in default)"
			}
			errs = append(errs, e)
			// The default stands in, so that the rules between keys can
			// still be checked and every error said at once.
			_ = k.parse(dst, def)
		}
	}
	ignored := map[string]IgnoredKey{}
	for _, ik := range ignoredList {
		ignored[ik.Name] = ik
	}
	others := otherOwners(cat, db)
	var unknown, foreign []string
	for name, val := range raw {
		if known[name] {
			continue
		}
		if ik, ok := ignored[name]; ok {
			if ik.Allowed != "" && !strings.EqualFold(val, ik.Allowed) {
				errs = append(errs, &Error{Key: name, Value: maskIfSecret(name, val), Msg: "is not supported: " + ik.Reason, Valid: ik.Allowed})
				continue
			}
			if ik.Allowed == "" {
				warnings = append(warnings, fmt.Sprintf("%s has no effect in tsbench: %s", name, ik.Reason))
			}
			continue
		}
		if _, ok := others[name]; ok {
			foreign = append(foreign, name)
			continue
		}
		if rc.origin[name] == fromSet {
			// The command line is deliberate: a typo there must not run
			// the workload the user meant to change.
			e := &Error{Key: "--set " + name, Value: val, Msg: "is not a key tsbench knows", Valid: "a key of docs/config.md"}
			if near := nearestKey(name, cat); near != "" {
				e.Msg += fmt.Sprintf("; did you mean %s", near)
			}
			errs = append(errs, e)
			continue
		}
		if near := nearestKey(name, cat); near != "" && known[near] {
			// A typo of a key this run reads would run the workload with
			// the key's default instead: refused, as on the command line.
			// Keys of no database (or near another database's key) stay
			// warnings, since one file serves several databases.
			errs = append(errs, &Error{Key: name, Value: maskIfSecret(name, val), Msg: fmt.Sprintf("is not a key tsbench knows; did you mean %s", near), Valid: "a key of docs/config.md"})
			continue
		}
		unknown = append(unknown, name)
	}
	if len(foreign) > 0 {
		warnings = append(warnings, otherDatabaseWarnings(others, foreign, c.values["DB_SWITCH"])...)
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		w := fmt.Sprintf("%s is not a key tsbench knows; ignored", name)
		if near := nearestKey(name, cat); near != "" {
			w += fmt.Sprintf(" (did you mean %s?)", near)
		}
		warnings = append(warnings, w)
	}
	// The rules between keys and the database's own checks.
	checks := func() Errors {
		es := Validate(c)
		if ch, ok := cat.(Checker); ok && dbErr == nil {
			es = append(es, ch.Check(c)...)
		}
		return es
	}
	if len(errs) > 0 {
		// The rules too, except those that involve a key already refused
		// (its default would make them say something false).
		resolve(c)
		for _, e := range checks() {
			if !mentionsAny(e, errs) {
				errs = append(errs, e)
			}
		}
		sortErrors(errs)
		return nil, errs
	}
	resolve(c)
	for _, k := range []string{"IS_DELETE_DATA", "CREATE_SCHEMA"} {
		if !c.HasWrites() && c.Given[k] && strings.EqualFold(raw[k], "true") {
			notes = append(notes, fmt.Sprintf("%s=true is not done: this run writes nothing (LOOP=%d, ingestion weight %g), so it leaves the data already there to its queries", k, c.Loop, c.OperationProportion[0]))
		}
	}
	if c.Given["CHECK_ANSWERS_RATIO"] && !c.CheckAnswers {
		warnings = append(warnings, fmt.Sprintf("CHECK_ANSWERS_RATIO=%s does nothing without CHECK_ANSWERS=true, which this run does not set (bench routine sets it unless the configuration says otherwise)", raw["CHECK_ANSWERS_RATIO"]))
	}
	if db != nil && db.resolve != nil {
		for k, v := range db.resolve(opts, c) {
			c.values[k] = v
		}
	}
	if errs := checks(); len(errs) > 0 {
		sortErrors(errs)
		return nil, errs
	}
	sort.Strings(warnings)
	return &Loaded{Config: c, Notes: notes, Warnings: warnings}, nil
}

// sharedDefault is the database's own default of a shared key, if any.
func (ks *KeySet) sharedDefault(name string) (string, bool) {
	if ks == nil {
		return "", false
	}
	v, ok := ks.Defaults[name]
	return v, ok
}

func sortErrors(errs Errors) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Key < errs[j].Key })
}

// resolve turns special values into their meaning so later code needs no
// special cases.
func resolve(c *Config) {
	if c.OpMinIntervalMS == -1 {
		c.OpMinIntervalMS = c.PointStep / c.Precision()
		c.values["OP_MIN_INTERVAL"] = fmt.Sprint(c.OpMinIntervalMS)
	}
	if len(c.Ports) == 1 && len(c.Hosts) > 1 {
		for len(c.Ports) < len(c.Hosts) {
			c.Ports = append(c.Ports, c.Ports[0])
		}
	}
	if !c.HasWrites() {
		// Nothing is written: cleaning would only destroy the data the
		// queries are meant to read.
		c.DeleteData = false
		c.CreateSchema = false
		c.RecentQuery = false
		for _, k := range []string{"IS_DELETE_DATA", "CREATE_SCHEMA", "IS_RECENT_QUERY"} {
			c.values[k] = "false"
		}
	}
	if c.QueryRounds < 0 {
		c.QueryRounds = 0
		if c.QuerySuite != "" || c.HasRestart() || c.FlushCommand != "" {
			c.QueryRounds = 2
		}
		c.values["QUERY_ROUNDS"] = fmt.Sprint(c.QueryRounds)
	}
	if c.QueryLoop == 0 {
		c.QueryLoop = c.Loop
		c.values["QUERY_LOOP"] = fmt.Sprint(c.QueryLoop)
	}
}

// Mask replaces secrets in every output.
const Mask = "******"

// IsSecretName reports whether a key holds a secret, including keys tsbench
// does not read itself (ANOTHER_PASSWORD, KEY_STORE_PWD, ...).
func IsSecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"PASSWORD", "PWD", "TOKEN", "AUTHORIZATION", "SECRET", "_PW"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func maskIfSecret(name, val string) string {
	if IsSecretName(name) {
		return Mask
	}
	return val
}

// nearestKey suggests the known key closest to an unknown one.
func nearestKey(name string, cat Catalog) string {
	// One edit in a short name, two in a longer one: FOO is not a typo of
	// LOOP, LOOPS is.
	best, bestD := "", min(3, len(name)/3+1)
	for _, k := range knownNames(cat) {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func continues(line string) bool {
	line = strings.TrimRight(line, "\r")
	return (len(line)-len(strings.TrimRight(line, "\\")))%2 == 1
}

// mentionsAny reports whether e names a key one of errs refused.
func mentionsAny(e *Error, errs Errors) bool {
	for _, r := range errs {
		name := strings.TrimPrefix(r.Key, "--set ")
		if name != "" && (e.Key == name || strings.Contains(e.Msg, name) || strings.Contains(e.Valid, name)) {
			return true
		}
	}
	return false
}
