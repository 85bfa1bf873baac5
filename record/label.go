package record

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// MaxLabel is the longest label a run may have, in characters: a label is
// typed, printed in tables and used as a name in reports.
const MaxLabel = 100

// CheckLabel refuses a label that could not name its runs safely and
// unambiguously: one longer than MaxLabel, with a path separator or a
// control character (it would break the list's table or read as a path),
// or one that is a saved run's id or the start of one (it would shadow that
// run). An empty label is no label.
func CheckLabel(label string, saved []Ref) error {
	valid := fmt.Sprintf("up to %d characters, no / or \\ or control character, not a run id or its start", MaxLabel)
	bad := func(why string) error { return fmt.Errorf("--label=%q %s (valid: %s)", label, why, valid) }
	switch {
	case label == "":
		return nil
	case len([]rune(label)) > MaxLabel:
		return bad(fmt.Sprintf("is %d characters long", len([]rune(label))))
	case strings.ContainsAny(label, `/\`):
		return bad("holds a path separator")
	case strings.IndexFunc(label, unicode.IsControl) >= 0:
		return bad("holds a control character")
	}
	for _, r := range saved {
		if strings.HasPrefix(r.ID, label) {
			return bad(fmt.Sprintf("is the start of the id of run %s, so it would shadow that run", r.ID))
		}
	}
	return nil
}

// PoolSpan is how far apart a label's runs may have started before
// compare's pooling of them as one side is said: a weekly job that reuses
// last week's label pools two weeks.
const PoolSpan = 24 * time.Hour

// Days is a duration of hours or days in words.
func Days(d time.Duration) string {
	if h := d.Hours(); h < 48 {
		return fmt.Sprintf("%.0f hours", h)
	}
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}
