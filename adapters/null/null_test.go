package null

import (
	"testing"

	"github.com/tsbench/tsbench/adapters/adaptertest"
)

// TestConformance runs what applies of the suite: Null declares no
// answers, counts or reconnects, so it shows that it declares exactly what
// it implements, accepts every write and query, and fails on a done context.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Target{Driver: Driver()})
}
