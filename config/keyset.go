package config

import (
	"fmt"
	"sort"
	"strings"
)

// KeySet is the keys one database owns: they are read, validated, dumped
// and fingerprinted only when DB_SWITCH names that database, and they parse
// into the database's own options type, so the shared Config never holds a
// database's settings. A driver declares its KeySet with NewKeySet.
type KeySet struct {
	// Owner names the database in messages and docs, e.g. "IoTDB".
	Owner string
	// Group is the heading of these keys in the dump and docs/config.md.
	Group string
	Keys  []Key
	// Defaults replace the defaults of shared keys for this database, e.g.
	// the port it listens on: {"PORT": "6667"}.
	Defaults map[string]string
	// Legacy are old names of this database's keys; Ignored are keys of
	// this database that iot-benchmark knows and tsbench does not use.
	Legacy  []LegacyKey
	Ignored []IgnoredKey

	newOptions func() any
	// resolve fills options that depend on shared keys (a pool size of 0
	// meaning DATA_CLIENT_NUMBER) and returns the effective text of every
	// key it changed, for the dump and the record.
	resolve func(opts any, c *Config) map[string]string
}

// NewKeySet declares a database's keys, which parse into a fresh *T.
// resolve may be nil.
func NewKeySet[T any](owner, group string, keys []Key, resolve func(o *T, c *Config) map[string]string) *KeySet {
	ks := &KeySet{Owner: owner, Group: group, newOptions: func() any { return new(T) }}
	for _, k := range keys {
		k.Group = group
		ks.Keys = append(ks.Keys, k)
	}
	if resolve != nil {
		ks.resolve = func(o any, c *Config) map[string]string { return resolve(o.(*T), c) }
	}
	return ks
}

// Catalog tells the loader which keys each database owns. The registry of
// drivers implements it; config never names a database itself.
type Catalog interface {
	// KeySetOf returns the key set of the database a DB_SWITCH value names,
	// nil when that database has no keys of its own, or an error (a *Error
	// for DB_SWITCH) when no database has that name.
	KeySetOf(dbSwitch string) (*KeySet, error)
	// KeySets returns every database's key set, to recognise keys of other
	// databases in a file and for docs/config.md.
	KeySets() []*KeySet
}

// Namer is a Catalog that names every DB_SWITCH value it accepts: the docs
// list them as the key's valid values, so the list is never a copy.
type Namer interface {
	Names() []string
}

// Checker is a Catalog that also checks a configuration against what the
// chosen database supports, so that those errors come with all the others
// instead of after them.
type Checker interface {
	Check(c *Config) Errors
}

// OptionsOf returns the options the chosen database's keys parsed into, or
// false when the configuration holds no options of type T (it was loaded
// without that database's key set).
func OptionsOf[T any](c *Config) (*T, bool) {
	o, ok := c.options.(*T)
	return o, ok
}

// DefaultOptions parses every key's default into a fresh *T: the options
// of a configuration loaded without the database's key set (tests of
// shared code that open an adapter directly). A default that does not
// parse is a programming error, caught by the key set's tests.
func DefaultOptions[T any](ks *KeySet) (*T, error) {
	o := new(T)
	for _, k := range ks.Keys {
		if err := k.parse(o, k.Default); err != nil {
			return nil, fmt.Errorf("default of %s (%q): %w", k.Name, k.Default, err)
		}
	}
	return o, nil
}

// OptionsOrDefaults is what a driver reads its options with: the options
// the configuration was loaded with, or, for one loaded without the
// database's key set (tests of shared code that open an adapter directly),
// every key's default. A default that does not parse is a programming
// error: the key set's tests load the defaults.
func OptionsOrDefaults[T any](c *Config, ks *KeySet) *T {
	if o, ok := OptionsOf[T](c); ok {
		return o
	}
	o, err := DefaultOptions[T](ks)
	if err != nil {
		panic(err)
	}
	return o
}

// Keys returns the table this configuration was loaded with: the shared
// keys and the chosen database's own, in dump order.
func (c *Config) Keys() []Key { return c.keys }

// Database returns the chosen database's key set, nil when it has none.
func (c *Config) Database() *KeySet { return c.driver }

// WorkloadKeys lists, sorted, the keys of this configuration that change the
// workload (Key.Workload): what the fingerprint is computed from.
func (c *Config) WorkloadKeys() []string {
	var out []string
	for _, k := range c.keys {
		if k.Workload && !k.Secret && !IsSecretName(k.Name) {
			out = append(out, k.Name)
		}
	}
	sort.Strings(out)
	return out
}

// DataKeys are the workload keys that decide the points a run leaves in
// its database: the data mode's, where they go (DB_NAME, the instances),
// and of the data amount's those of time and batches, not how many
// operations run (LOOP, OPERATION_PROPORTION: the rows a device stand for
// them) nor how fast. A query-only run checks its answers against data
// written with the same values (runner.Plan.DataFingerprint).
func (c *Config) DataKeys() []string {
	amount := map[string]bool{"DATA_CLIENT_NUMBER": true, "IS_CLIENT_BIND": true, "BATCH_SIZE_PER_WRITE": true, "DEVICE_NUM_PER_WRITE": true,
		"START_TIME": true, "POINT_STEP": true, "TIMESTAMP_PRECISION": true, "IS_REGULAR_FREQUENCY": true}
	data := map[string]bool{}
	for _, k := range c.keys {
		data[k.Name] = k.Group == GroupDataMode || k.Group == GroupConnection || k.Group == GroupOther || k.Group == GroupDataAmount && amount[k.Name]
	}
	var out []string
	for _, k := range c.WorkloadKeys() {
		if data[k] {
			out = append(out, k)
		}
	}
	return out
}

// otherOwners maps every key name of the catalog's other databases to
// their owners, for the "belongs to another database" warning.
func otherOwners(cat Catalog, chosen *KeySet) map[string][]string {
	out := map[string][]string{}
	if cat == nil {
		return out
	}
	for _, ks := range cat.KeySets() {
		if ks == nil || chosen != nil && ks.Owner == chosen.Owner {
			continue
		}
		add := func(name string) {
			for _, o := range out[name] {
				if o == ks.Owner {
					return
				}
			}
			out[name] = append(out[name], ks.Owner)
		}
		for _, k := range ks.Keys {
			add(k.Name)
		}
		for _, lk := range ks.Legacy {
			add(lk.Old)
		}
		for _, ik := range ks.Ignored {
			add(ik.Name)
		}
	}
	return out
}

// otherDatabaseWarnings says, one line per database, which keys of the file
// belong to another database than DB_SWITCH's and so have no effect.
func otherDatabaseWarnings(names map[string][]string, found []string, dbSwitch string) []string {
	byOwner := map[string][]string{}
	for _, n := range found {
		owner := strings.Join(names[n], " and ")
		byOwner[owner] = append(byOwner[owner], n)
	}
	var out []string
	for owner, keys := range byOwner {
		sort.Strings(keys)
		verb := "is a key"
		if len(keys) > 1 {
			verb = "are keys"
		}
		out = append(out, fmt.Sprintf("%s %s of %s; no effect with DB_SWITCH=%s", strings.Join(keys, ", "), verb, owner, dbSwitch))
	}
	sort.Strings(out)
	return out
}
