package config

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Values returns the effective value of every key, secrets masked: what the
// run record stores and what the workload fingerprint is computed from.
func (c *Config) Values() map[string]string {
	out := make(map[string]string, len(c.values))
	for _, k := range c.keys {
		v := c.values[k.Name]
		if k.Secret || IsSecretName(k.Name) {
			v = Mask
		}
		out[k.Name] = v
	}
	return out
}

// Value returns the effective text of one key ("" if unknown), secrets masked.
func (c *Config) Value(name string) string {
	return c.Values()[strings.ToUpper(name)]
}

// NotEmpty reports whether a key's effective value is not empty: for a
// secret, whether there is one, without showing it.
func (c *Config) NotEmpty(name string) bool {
	return c.values[strings.ToUpper(name)] != ""
}

// WriteDump prints the effective configuration grouped like iot-benchmark's
// "Main Configurations" block. Secrets are masked. The chosen database's own
// keys form their group after GroupOther; other databases' keys are not shown.
func (c *Config) WriteDump(w io.Writer) {
	fmt.Fprintf(w, "%s Main Configurations %s\n", strings.Repeat("-", 22), strings.Repeat("-", 22))
	vals := c.Values()
	byGroup := map[string][]Key{}
	var order []string
	for _, k := range c.keys {
		if _, seen := byGroup[k.Group]; !seen {
			order = append(order, k.Group)
		}
		byGroup[k.Group] = append(byGroup[k.Group], k)
	}
	for _, g := range order {
		if g == GroupQuery && !c.HasQueries() && !c.Rounds() {
			continue
		}
		fmt.Fprintf(w, "########### %s ###########\n", g)
		for _, k := range byGroup[g] {
			fmt.Fprintf(w, "%s=%s\n", k.Name, vals[k.Name])
		}
	}
	fmt.Fprintln(w, strings.Repeat("-", 63))
}

// SortedNames returns key names in a stable order (for fingerprints).
func SortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Adopt gives a shared key the configuration leaves at its default the
// value another source of the workload names (a Rally track's bulk-size
// for BATCH_SIZE_PER_WRITE), parsed and checked as the key's own, so that
// the dump, the record and the fingerprint show what the run used. A key
// the configuration gives keeps its value: Adopt reports false.
func (c *Config) Adopt(name, value string) (bool, error) {
	if c.Given[name] {
		return false, nil
	}
	for _, k := range c.keys {
		if k.Name != name {
			continue
		}
		if c.driver != nil && slices.ContainsFunc(c.driver.Keys, func(k Key) bool { return k.Name == name }) {
			return false, fmt.Errorf("%s is %s's key, not a shared one", name, c.driver.Owner)
		}
		if err := k.parse(c, value); err != nil {
			return false, &Error{Key: name, Value: value, Msg: err.Error(), Valid: k.Valid}
		}
		c.values[name] = value
		return true, nil
	}
	return false, fmt.Errorf("no key %s", name)
}
