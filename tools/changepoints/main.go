// Command changepoints is the Go side of tools/otava-diff: it writes the
// corpus of synthetic series with known change points, finds the change
// points of a corpus with package changepoint, turns bench history's JSON
// of real records into a corpus and the change points bench found in it,
// and scores two sets of findings against each other and against the
// known changes.
//
//	go run ./tools/changepoints corpus > corpus.json
//	go run ./tools/changepoints find < corpus.json > tsbench.json
//	go run ./tools/changepoints history tsbench.json NAME=history.json[:OP:METRICS:LABEL]... > corpus.json
//	go run ./tools/changepoints score corpus.json tsbench.json otava.json
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/changepoint"
)

// Series is one series of the corpus and where it changes.
type Series struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
	Known  []int     `json:"known"` // the first index of each new level
	Kind   string    `json:"kind"`
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "corpus":
		err = json.NewEncoder(os.Stdout).Encode(corpus())
	case "find":
		err = find()
	case "history":
		if len(os.Args) < 4 {
			usage()
		}
		err = history(os.Args[2], os.Args[3:])
	case "score":
		if len(os.Args) != 5 {
			usage()
		}
		err = score(os.Args[2], os.Args[3], os.Args[4])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "changepoints:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: changepoints corpus | find < corpus.json | history found.json NAME=history.json[:OP:METRICS:LABEL]... | score corpus.json a.json b.json")
	os.Exit(2)
}

// corpus is the synthetic series: steps up and down, several changes, noise
// levels, a change of variance alone, outliers, and series without change;
// drawn from fixed seeds, so the corpus is the same on every machine.
func corpus() []Series {
	var out []Series
	seed := uint64(0)
	add := func(kind string, sd float64, segs []int, means []float64, outliers int) {
		seed++
		rng := rand.New(rand.NewPCG(seed, 2026))
		s := Series{Name: fmt.Sprintf("%s-%d", kind, seed), Kind: kind}
		for i, n := range segs {
			if i > 0 {
				s.Known = append(s.Known, len(s.Values))
			}
			for range n {
				s.Values = append(s.Values, means[i]*(1+sd*rng.NormFloat64()))
			}
		}
		for range outliers {
			i := rng.IntN(len(s.Values))
			s.Values[i] *= 1.5
		}
		out = append(out, s)
	}
	for _, sd := range []float64{0.01, 0.02, 0.05} {
		for range 3 {
			add("step-up-10%", sd, []int{30, 30}, []float64{100, 110}, 0)
			add("step-down-20%", sd, []int{40, 20}, []float64{100, 80}, 0)
			add("three-changes", sd, []int{25, 25, 25, 25}, []float64{100, 115, 100, 90}, 0)
			add("long-history", sd, []int{60, 50, 70}, []float64{100, 93, 100}, 0)
			add("no-change", sd, []int{80}, []float64{100}, 0)
			add("outliers-no-change", sd, []int{80}, []float64{100}, 3)
			add("outliers-step-up-10%", sd, []int{40, 40}, []float64{100, 110}, 2)
		}
	}
	// The same level, twice the spread: no change of mean to find.
	for range 3 {
		seed++
		rng := rand.New(rand.NewPCG(seed, 2026))
		s := Series{Name: fmt.Sprintf("variance-only-%d", seed), Kind: "variance-only"}
		for i := range 80 {
			sd := 0.01
			if i >= 40 {
				sd = 0.04
			}
			s.Values = append(s.Values, 100*(1+sd*rng.NormFloat64()))
		}
		out = append(out, s)
	}
	return out
}

// find writes the change points package changepoint finds, at Otava's
// defaults, series by series.
func find() error {
	var cs []Series
	if err := json.NewDecoder(os.Stdin).Decode(&cs); err != nil {
		return err
	}
	found := map[string][]int{}
	for _, s := range cs {
		ch, err := changepoint.Find(s.Values, changepoint.Defaults)
		if err != nil {
			return err
		}
		found[s.Name] = []int{}
		for _, c := range ch {
			found[s.Name] = append(found[s.Name], c.Index)
		}
	}
	return json.NewEncoder(os.Stdout).Encode(found)
}

// historyJSON is what bench history --format json writes, the parts read here.
type historyJSON struct {
	Series []struct {
		Key struct {
			Metric string `json:"metric"`
			Phase  string `json:"phase"`
			Op     string `json:"operation"`
		} `json:"key"`
		Points []struct {
			Label string  `json:"label"`
			Value float64 `json:"value"`
		} `json:"points"`
		Changes []struct {
			Index int `json:"index"`
		} `json:"changes"`
	} `json:"series"`
}

// history makes a corpus of the series of bench history's JSON files, the
// series of one file a kind (NAME), and writes the change points bench
// found in them to foundPath. A file named with :OP:METRICS:LABEL knows one
// change: on its series of that operation and metrics (a comma-separated
// list; every phase), at LABEL's point (a slowdown planted from that label on); its other series
// know none, which scores a change the machine made as a false one.
func history(foundPath string, args []string) error {
	var cs []Series
	found := map[string][]int{}
	for _, a := range args {
		name, spec, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q: want NAME=history.json[:OP:METRICS:LABEL]", a)
		}
		parts := strings.Split(spec, ":")
		if len(parts) != 1 && len(parts) != 4 {
			return fmt.Errorf("%q: want NAME=history.json[:OP:METRICS:LABEL]", a)
		}
		var h historyJSON
		if err := read(parts[0], &h); err != nil {
			return err
		}
		for _, s := range h.Series {
			x := Series{Name: fmt.Sprintf("%s %s %s %s", name, s.Key.Phase, s.Key.Op, s.Key.Metric), Kind: name}
			for i, p := range s.Points {
				x.Values = append(x.Values, p.Value)
				if len(parts) == 4 && s.Key.Op == parts[1] && slices.Contains(strings.Split(parts[2], ","), s.Key.Metric) && p.Label == parts[3] {
					x.Known = append(x.Known, i)
				}
			}
			found[x.Name] = []int{}
			for _, c := range s.Changes {
				found[x.Name] = append(found[x.Name], c.Index)
			}
			cs = append(cs, x)
		}
	}
	b, err := json.Marshal(found)
	if err != nil {
		return err
	}
	if err := os.WriteFile(foundPath, b, 0o644); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(cs)
}

func read(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// matched counts the points of want that got has within tolerance, each
// found point used once.
func matched(want, got []int, tol int) int {
	used := make([]bool, len(got))
	n := 0
	for _, w := range want {
		for j, g := range got {
			if !used[j] && int(math.Abs(float64(g-w))) <= tol {
				used[j] = true
				n++
				break
			}
		}
	}
	return n
}

// score prints, per kind of series, the agreement of tsbench with Otava
// (the same change points, each within one index) and each one's precision
// and recall against the known changes (within one index).
func score(corpusPath, aPath, bPath string) error {
	var cs []Series
	var a, b map[string][]int
	for _, r := range []struct {
		p string
		v any
	}{{corpusPath, &cs}, {aPath, &a}, {bPath, &b}} {
		if err := read(r.p, r.v); err != nil {
			return err
		}
	}
	type tally struct {
		series, agree, exact        int
		known, aFound, aTrue, aHits int
		bFound, bTrue, bHits        int
		disagree                    []string
	}
	kinds := map[string]*tally{}
	var order []string
	total := &tally{}
	for _, s := range cs {
		t := kinds[s.Kind]
		if t == nil {
			t = &tally{}
			kinds[s.Kind] = t
			order = append(order, s.Kind)
		}
		ga, gb := a[s.Name], b[s.Name]
		for _, x := range []*tally{t, total} {
			x.series++
			if len(ga) == len(gb) && matched(ga, gb, 0) == len(ga) {
				x.exact++
			}
			if len(ga) == len(gb) && matched(ga, gb, 1) == len(ga) {
				x.agree++
			} else {
				x.disagree = append(x.disagree, fmt.Sprintf("%s: tsbench %v, Otava %v, known %v", s.Name, ga, gb, s.Known))
			}
			x.known += len(s.Known)
			x.aFound += len(ga)
			x.aTrue += matched(ga, s.Known, 1)
			x.aHits += matched(s.Known, ga, 1)
			x.bFound += len(gb)
			x.bTrue += matched(gb, s.Known, 1)
			x.bHits += matched(s.Known, gb, 1)
		}
	}
	sort.Strings(order)
	ratio := func(n, d int) string {
		if d == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", float64(n)/float64(d))
	}
	fmt.Println("| series | count | tsbench = Otava (±1) | exactly | known changes | tsbench precision | tsbench recall | Otava precision | Otava recall |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	row := func(name string, t *tally) {
		fmt.Printf("| %s | %d | %d of %d | %d | %d | %s | %s | %s | %s |\n", name, t.series, t.agree, t.series, t.exact, t.known,
			ratio(t.aTrue, t.aFound), ratio(t.aHits, t.known), ratio(t.bTrue, t.bFound), ratio(t.bHits, t.known))
	}
	for _, k := range order {
		row(k, kinds[k])
	}
	row("all", total)
	for _, d := range total.disagree {
		fmt.Println("\ndisagree:", d)
	}
	if total.agree != total.series {
		return fmt.Errorf("%d of %d series differ from Otava", total.series-total.agree, total.series)
	}
	return nil
}
