package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// demoOptions stand in for a database's options: config must load any
// driver's keys without knowing the database.
type demoOptions struct {
	Mode  string
	Pool  int
	Token string
	Shape bool
}

type demoCatalog struct{ sets map[string]*KeySet }

func (c demoCatalog) KeySetOf(sw string) (*KeySet, error) {
	for name, ks := range c.sets {
		if strings.EqualFold(name, sw) {
			return ks, nil
		}
	}
	if strings.EqualFold(sw, "SQLite") || strings.EqualFold(sw, "Plain") {
		return nil, nil
	}
	return nil, &Error{Key: "DB_SWITCH", Value: sw, Msg: "is not a database this build supports", Valid: "Demo, Other, Plain"}
}

func (c demoCatalog) KeySets() []*KeySet { return []*KeySet{c.sets["Demo"], c.sets["Other"]} }

func demo() demoCatalog {
	type O = demoOptions
	d := NewKeySet("Demo", "Demo Settings", []Key{
		Enum("DEMO_MODE", "fast", []string{"fast", "safe"}, "Mode.", func(o *O) *string { return &o.Mode }),
		Int("DEMO_POOL", "0", 0, 100, "0 (= DATA_CLIENT_NUMBER) or 1..100", "Pool.", func(o *O) *int { return &o.Pool }),
		String("DEMO_TOKEN", "", "Secret.", func(o *O) *string { return &o.Token }).AsSecret(),
		Bool("DEMO_SHAPE", "false", "Changes answers.", func(o *O) *bool { return &o.Shape }).AsWorkload(),
	}, func(o *O, c *Config) map[string]string {
		if o.Pool == 0 {
			o.Pool = c.DataClients
			return map[string]string{"DEMO_POOL": fmt.Sprint(o.Pool)}
		}
		return nil
	})
	d.Defaults = map[string]string{"PORT": "7777"}
	d.Legacy = []LegacyKey{{Old: "DEMO_OLD_MODE", New: []string{"DEMO_MODE"}}}
	d.Ignored = []IgnoredKey{{Name: "DEMO_DIALECT", Allowed: "one", Reason: "only one dialect"}}
	o := NewKeySet[O]("Other", "Other Settings", []Key{
		String("OTHER_PATH", "", "A path.", func(o *O) *string { return &o.Mode }),
	}, nil)
	return demoCatalog{map[string]*KeySet{"Demo": d, "Other": o}}
}

func loadWith(t *testing.T, cat Catalog, lines ...string) (*Loaded, error) {
	t.Helper()
	return Load(Source{Data: []byte(strings.Join(lines, "\n")), NoEnv: true, Catalog: cat})
}

func TestDatabaseKeys(t *testing.T) {
	l, err := loadWith(t, demo(), "DB_SWITCH=demo", "DATA_CLIENT_NUMBER=3", "DEVICE_NUMBER=3", "DEMO_OLD_MODE=SAFE", "DEMO_TOKEN=s3cret", "OTHER_PATH=/x", "DEMO_DIALECT=one")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	o, ok := OptionsOf[demoOptions](c)
	if !ok {
		t.Fatal("no Demo options after loading DB_SWITCH=demo")
	}
	if want := (demoOptions{Mode: "safe", Pool: 3, Token: "s3cret"}); *o != want {
		t.Fatalf("options %+v, want %+v", *o, want)
	}
	if c.Database().Owner != "Demo" {
		t.Fatalf("database %v", c.Database())
	}
	if got := c.Value("PORT"); got != "7777" || !reflect.DeepEqual(c.Ports, []int{7777}) {
		t.Fatalf("PORT %q %v: the database's default port must apply", got, c.Ports)
	}
	if v := c.Values(); v["DEMO_POOL"] != "3" || v["DEMO_TOKEN"] != Mask || v["DEMO_MODE"] != "SAFE" {
		t.Fatalf("values %v", v)
	}
	if strings.Join(l.Notes, "\n") != "DEMO_OLD_MODE is an old name; using it as DEMO_MODE=SAFE" {
		t.Fatalf("notes %q", l.Notes)
	}
	if strings.Join(l.Warnings, "\n") != "OTHER_PATH is a key of Other; no effect with DB_SWITCH=demo" {
		t.Fatalf("warnings %q", l.Warnings)
	}
	var dump strings.Builder
	c.WriteDump(&dump)
	if !strings.Contains(dump.String(), "########### Demo Settings ###########\nDEMO_MODE=SAFE\nDEMO_POOL=3\nDEMO_TOKEN=******") || strings.Contains(dump.String(), "OTHER_PATH") {
		t.Fatalf("dump:\n%s", dump.String())
	}
	// The database's group follows Other Param, as iot-benchmark's IoTDB group does.
	if i, j := strings.Index(dump.String(), "Other Param"), strings.Index(dump.String(), "Demo Settings"); i < 0 || j < i {
		t.Fatalf("group order:\n%s", dump.String())
	}
	work := strings.Join(c.WorkloadKeys(), ",")
	if !strings.Contains(work, "DEMO_SHAPE") || strings.Contains(work, "DEMO_MODE") || strings.Contains(work, "DEMO_TOKEN") || strings.Contains(work, "HOST") || !strings.Contains(work, "DEVICE_NUMBER") {
		t.Fatalf("workload keys %s", work)
	}
}

func TestDatabaseKeyErrors(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"DB_SWITCH=demo", "DEMO_MODE=slow"}, "DEMO_MODE=slow: unknown value (valid: fast, safe)"},
		{[]string{"DB_SWITCH=demo", "DEMO_POOL=101"}, "DEMO_POOL=101: out of range: the largest allowed is 100 (valid: 0 (= DATA_CLIENT_NUMBER) or 1..100)"},
		{[]string{"DB_SWITCH=demo", "DEMO_DIALECT=two"}, "DEMO_DIALECT=two: is not supported: only one dialect (valid: one)"},
		{[]string{"DB_SWITCH=nosuch", "LOOP=x"}, "DB_SWITCH=nosuch: is not a database this build supports (valid: Demo, Other, Plain)\nLOOP=x: not a whole number (valid: 0..100000000)"},
	} {
		_, err := loadWith(t, demo(), c.lines...)
		var es Errors
		if !errors.As(err, &es) || err.Error() != c.want {
			t.Errorf("%v: error %v, want %s", c.lines, err, c.want)
		}
	}
	// Without that database chosen, its keys are not checked at all.
	l, err := loadWith(t, demo(), "DB_SWITCH=Plain", "DEMO_MODE=slow", "DEMO_POOLL=1")
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(l.Warnings, "\n"); w != "DEMO_MODE is a key of Demo; no effect with DB_SWITCH=Plain\nDEMO_POOLL is not a key tsbench knows; ignored (did you mean DEMO_POOL?)" {
		t.Fatalf("warnings %q", w)
	}
	if _, ok := OptionsOf[demoOptions](l.Config); ok {
		t.Fatal("options of a database that was not chosen")
	}
}

func TestDefaultOptions(t *testing.T) {
	o, err := DefaultOptions[demoOptions](demo().sets["Demo"])
	if err != nil || o.Mode != "fast" || o.Pool != 0 {
		t.Fatalf("%+v %v", o, err)
	}
	bad := NewKeySet[demoOptions]("Bad", "Bad", []Key{Int("B", "x", 0, 1, "0..1", "", func(o *demoOptions) *int { return &o.Pool })}, nil)
	if _, err := DefaultOptions[demoOptions](bad); err == nil {
		t.Fatal("a default that does not parse must be an error")
	}
}
