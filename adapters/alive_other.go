//go:build !unix

package adapters

// alive cannot ask the system here: a marker of this machine turns stale
// only by age.
func alive(int) bool { return true }
