package config

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Values returns the effective value of every key, secrets masked: what the
// run record stores and what the workload fingerprint is computed from.
func (c *Config) Values() map[string]string {
	out := make(map[string]string, len(c.values))
	for _, k := range Keys() {
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

// WriteDump prints the effective configuration grouped like iot-benchmark's
// "Main Configurations" block. Secrets are masked. IoTDB keys are shown only
// when the target is IoTDB, where they matter.
func (c *Config) WriteDump(w io.Writer) {
	fmt.Fprintf(w, "%s Main Configurations %s\n", strings.Repeat("-", 22), strings.Repeat("-", 22))
	vals := c.Values()
	byGroup := map[string][]Key{}
	for _, k := range Keys() {
		byGroup[k.Group] = append(byGroup[k.Group], k)
	}
	for _, g := range GroupOrder {
		if g == GroupIoTDB && !strings.HasPrefix(strings.ToLower(c.DBSwitch), "iotdb") {
			continue
		}
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
