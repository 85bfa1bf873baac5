package routine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tsbench/tsbench/provision"
)

// unreadIoTDB are the files of an IoTDB distribution that scripts/iotdb
// does not read: it starts both JVMs itself, with options of its own (the
// loopback guard, the heap of IOTDB_DN_HEAP, IOTDB_DN_JVM_OPTS), so that
// every side runs alike.
var unreadIoTDB = []string{"conf/datanode-env.sh", "conf/confignode-env.sh"}

// Unread says, for each IoTDB side built or unpacked from files of its own,
// which of the files the routine's server script does not read differ from
// the first such side's: a JVM option or heap a PR changes there would go
// unmeasured while the report calls the sides different builds.
func Unread(sides []Resolved) []string {
	var first *Resolved
	var out []string
	for i := range sides {
		s := &sides[i]
		if s.Server == nil || s.Server.Kind != provision.IoTDB || s.Server.Dist == "" {
			continue
		}
		if first == nil {
			first = s
			continue
		}
		for _, f := range unreadIoTDB {
			a, errA := os.ReadFile(filepath.Join(first.Server.Dist, f))
			b, errB := os.ReadFile(filepath.Join(s.Server.Dist, f))
			if (errA == nil) != (errB == nil) || !bytes.Equal(a, b) {
				out = append(out, fmt.Sprintf("warning: side %s's %s differs from side %s's, and the routine does not read it: its IoTDB script starts the JVMs with options of its own (IOTDB_DN_HEAP, IOTDB_DN_JVM_OPTS, the same for every side), so a JVM option or heap changed there is not measured", s.Name, f, first.Name))
			}
		}
	}
	return out
}
