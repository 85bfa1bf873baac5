package config

import (
	"fmt"
	"io"
	"strings"
)

// WriteDocs writes docs/config.md from the key tables of the shared keys and
// of every database in cat, so the reference cannot drift from what the
// loader does. The command's tests compare it with the file
// (go test ./cmd/bench -run TestConfigDocs -update rewrites it).
func WriteDocs(w io.Writer, cat Catalog) {
	fmt.Fprintln(w, "# Configuration reference")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "<!-- Generated from the key tables (config/keys.go, config/legacy.go and each adapter's keys) by `go test ./cmd/bench -run TestConfigDocs -update`. Do not edit. -->")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "tsbench reads iot-benchmark's `config.properties`: `KEY=value`, `KEY: value` and `KEY value` lines,")
	fmt.Fprintln(w, "`#` and `!` comments. Keys are matched without regard to case; values are trimmed. Every key is optional and")
	fmt.Fprintln(w, "takes iot-benchmark's default, except `DB_SWITCH`, which defaults to the embedded SQLite.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Later sources win: defaults < the file (`-c`) < environment variables `TSBENCH_<KEY>` (e.g.")
	fmt.Fprintln(w, "`TSBENCH_PASSWORD`) < `--set KEY=VALUE`. Passwords and tokens are never printed or saved.")
	fmt.Fprintln(w, "Every problem of the keys and of the rules between them is reported at once, each on one line naming")
	fmt.Fprintln(w, "the key, the value and what is valid (the database's own checks and the plan's follow once these pass);")
	fmt.Fprintln(w, "the exit status is then 2 and nothing runs. A key in the file one or two letters from a key the run")
	fmt.Fprintln(w, "reads (`LOOPS`) is an error naming that key; any other unknown key in the file is a warning. On the")
	fmt.Fprintln(w, "command line (`--set`) every unknown key is an error. A key given twice in the file is a")
	fmt.Fprintln(w, "warning naming both lines (the last wins), and a file without one known key is an error.")
	for _, g := range GroupOrder {
		fmt.Fprintf(w, "\n## %s\n\n", g)
		fmt.Fprintln(w, "| Key | Default | Valid | Meaning |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, k := range SharedKeys() {
			if k.Group != g {
				continue
			}
			if n, ok := cat.(Namer); ok && k.Name == "DB_SWITCH" {
				k.Valid = strings.Join(n.Names(), ", ")
			}
			writeKeyRow(w, k, nil)
		}
	}
	var sets []*KeySet
	if cat != nil {
		sets = cat.KeySets()
	}
	if len(sets) > 0 {
		fmt.Fprintln(w, "\n## Keys of each database")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "A database's own keys are read only when `DB_SWITCH` names it; in a file for another database they")
		fmt.Fprintln(w, "are accepted with a warning that they have no effect. Keys marked *workload* change the data or the")
		fmt.Fprintln(w, "queries and are part of the workload fingerprint that `compare` checks; the others do not.")
	}
	for _, ks := range sets {
		fmt.Fprintf(w, "\n### %s: %s\n\n", ks.Owner, ks.Group)
		if len(ks.Defaults) > 0 {
			var ds []string
			for _, k := range SortedNames(ks.Defaults) {
				ds = append(ds, fmt.Sprintf("`%s=%s`", k, ks.Defaults[k]))
			}
			fmt.Fprintf(w, "Defaults of shared keys for %s: %s.\n\n", ks.Owner, strings.Join(ds, ", "))
		}
		fmt.Fprintln(w, "| Key | Default | Valid | Meaning |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, k := range ks.Keys {
			writeKeyRow(w, k, ks)
		}
	}
	fmt.Fprintln(w, "\n## Old key names")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Files written for older iot-benchmark releases keep working. Each old name is translated and announced")
	fmt.Fprintln(w, "once (`note: BATCH_SIZE is an old name; using it as BATCH_SIZE_PER_WRITE=10`). When an old and a new")
	fmt.Fprintln(w, "name are both set, the new one wins, with a warning.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Old key | Becomes | Note |")
	fmt.Fprintln(w, "|---|---|---|")
	legacy := legacyKeys()
	for _, ks := range sets {
		legacy = append(legacy, ks.Legacy...)
	}
	for _, lk := range legacy {
		note := lk.Note
		switch lk.Old {
		case "OVERFLOW_MODE":
			note = "0 → POISSON, 1 → BATCH; " + note
		case "DATA_TYPE":
			note = "one type for all sensors: weight 1 on that type"
		}
		fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", lk.Old, strings.Join(lk.New, "`, `"), cell(note))
	}
	fmt.Fprintln(w, "| `OUT_OF_ORDER_MODE=0` / `=1` | `OUT_OF_ORDER_MODE=POISSON` / `BATCH` | the integer form of 2021 |")
	fmt.Fprintln(w, "| `INSERT_DATATYPE_PROPORTION` with 6 or 10 fields | 11 fields | padded with `:0` |")
	fmt.Fprintln(w, "| `OPERATION_PROPORTION` with fewer than 13 fields | 13 fields | padded with `:0` |")
	fmt.Fprintln(w, "\n## Keys iot-benchmark knows that tsbench does not use")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "They are accepted with a warning. Where a value would change what is measured, only the harmless value")
	fmt.Fprintln(w, "is accepted and any other is an error, rather than silently running another benchmark.")
	fmt.Fprintln(w)
	WriteIgnoredKeys(w, cat)
}

// WriteIgnoredKeys writes the table of the keys iot-benchmark knows and
// tsbench ignores (docs/config.md, docs/compat.md): each key, the value it
// accepts, and why it has no effect.
func WriteIgnoredKeys(w io.Writer, cat Catalog) {
	fmt.Fprintln(w, "| Key | Database | Accepted value | Why |")
	fmt.Fprintln(w, "|---|---|---|---|")
	keys, owners := IgnoredKeys(cat)
	for i, ik := range keys {
		allowed := "any (warning)"
		if ik.Allowed != "" {
			allowed = "`" + ik.Allowed + "` only"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", ik.Name, nonEmpty(owners[i], "every"), allowed, cell(ik.Reason))
	}
}

// writeKeyRow writes one key's row; a database's keys say whether they are
// part of the workload.
func writeKeyRow(w io.Writer, k Key, ks *KeySet) {
	def := k.Default
	if d, ok := ks.sharedDefault(k.Name); ok {
		def = d
	}
	if def == "" {
		def = "(empty)"
	}
	doc := k.Doc
	if ks != nil && k.Workload {
		doc += " *Workload.*"
	}
	fmt.Fprintf(w, "| `%s` | `%s` | %s | %s |\n", k.Name, def, cell(k.Valid), cell(doc))
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func nonEmpty(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
