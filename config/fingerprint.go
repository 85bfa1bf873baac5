package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
)

// InstanceKey is the one workload key the instances of a distributed run
// differ in.
const InstanceKey = "BENCHMARK_INDEX"

// Fingerprint hashes the values of the workload keys of a configuration
// (Config.WorkloadKeys: each key says whether it changes the work); values
// are a configuration's (Config.Values) or a run record's.
func Fingerprint(values map[string]string, workload []string) string {
	keys := append([]string(nil), workload...)
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, values[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// InstanceFingerprint is the fingerprint of a workload but for the
// instance index: what the instances of one distributed run share.
func InstanceFingerprint(values map[string]string, workload []string) string {
	return Fingerprint(values, slices.DeleteFunc(slices.Clone(workload), func(k string) bool { return k == InstanceKey }))
}
