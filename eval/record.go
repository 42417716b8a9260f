package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Metric names of BEIR collections, and the reciprocal rank both kinds of
// set report.
const (
	NDCG10    = "ndcg@10"
	Recall10  = "recall@10"
	Recall100 = "recall@100"
	MRR       = "mrr"
)

// NoMatchRate is the name a summary and a comparison give the share of
// queries for which the no-match signal fired.
const NoMatchRate = "no_match"

// metricOrder is the order metrics are printed in; others follow by name.
var metricOrder = []string{NDCG10, Recall10, Recall100, Answer1, Answer5, Answer10, Chapter5, MRR, NoMatchRate}

// Record is one query's outcome in one mode: a line of a per-query file.
// Two runs' records pair up by collection, id and mode.
type Record struct {
	// Collection names the query set: "scifact-dev", "books-dev".
	Collection string `json:"collection"`
	ID         string `json:"id"`
	// Kind is the book question's kind, or "beir" for a BEIR query.
	Kind string `json:"kind"`
	Mode string `json:"mode"`
	// Rank is the 1-based rank of the first answer (a relevant document, a
	// passage holding an evidence quote); 0 when none was found or the
	// question has none.
	Rank int `json:"rank"`
	// Metrics are the query's scores by name; empty for a negative
	// question, whose only score is NoMatch.
	Metrics map[string]float64 `json:"metrics"`
	// NoMatch is the engine's verdict that the library holds nothing that
	// answers the query; nil where the mode has no such signal (bm25).
	NoMatch *bool `json:"no_match"`
}

// KindBEIR is the kind of every BEIR query: all of them have an answer.
const KindBEIR = "beir"

// Answerable is the kind a summary and a comparison give the pooled
// answerable questions of a set that also holds negatives.
const Answerable = "answerable"

// WriteRecords writes records as JSON Lines.
func WriteRecords(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range recs {
		if r.Metrics == nil {
			r.Metrics = map[string]float64{}
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadRecords reads a per-query file, or every *.jsonl file in a folder.
func ReadRecords(p string) ([]Record, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	files := []string{p}
	if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(p, "*.jsonl")); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no .jsonl files", p)
		}
		sort.Strings(files)
	}
	var out []Record
	for _, f := range files {
		err := readJSONL(f, func(line []byte) error {
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				return err
			}
			if r.Collection == "" || r.ID == "" || r.Mode == "" {
				return fmt.Errorf("not a per-query record (collection, id and mode are required)")
			}
			out = append(out, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Summary is the mean of each metric over a group of records.
type Summary struct {
	Collection string `json:"collection"`
	Kind       string `json:"kind"`
	Mode       string `json:"mode"`
	Queries    int    `json:"queries"`
	// Metrics are the means by name.
	Metrics map[string]float64 `json:"metrics"`
	// NoMatch is the share of queries for which the no-match signal fired:
	// right for negatives, false for the rest; nil when the mode has none.
	NoMatch *float64 `json:"no_match"`
}

// Summarize averages records by collection, mode and kind: collections,
// their modes and kinds in the order they first appear. A collection
// holding negatives and answerable questions of more than one kind also
// gets an Answerable row per mode, pooling the answerable ones.
func Summarize(recs []Record) []Summary {
	type key struct{ collection, mode, kind string }
	type acc struct {
		n, withVerdict, fired int
		sums                  map[string]float64
	}
	groups := make(map[key]*acc)
	add := func(k key, r Record) {
		a := groups[k]
		if a == nil {
			a = &acc{sums: make(map[string]float64)}
			groups[k] = a
		}
		a.n++
		for m, v := range r.Metrics {
			a.sums[m] += v
		}
		if r.NoMatch != nil {
			a.withVerdict++
			if *r.NoMatch {
				a.fired++
			}
		}
	}
	var collections []string
	modes := make(map[string][]string)
	kinds := make(map[string][]string)
	for _, r := range recs {
		if _, ok := modes[r.Collection]; !ok {
			collections = append(collections, r.Collection)
		}
		if !slices.Contains(modes[r.Collection], r.Mode) {
			modes[r.Collection] = append(modes[r.Collection], r.Mode)
		}
		if !slices.Contains(kinds[r.Collection], r.Kind) {
			kinds[r.Collection] = append(kinds[r.Collection], r.Kind)
		}
		add(key{r.Collection, r.Mode, r.Kind}, r)
	}
	for _, r := range recs {
		if pooled(kinds[r.Collection]) && r.Kind != Negative {
			add(key{r.Collection, r.Mode, Answerable}, r)
		}
	}
	var out []Summary
	for _, c := range collections {
		ks := kinds[c]
		if pooled(ks) {
			ks = append(slices.Clone(ks), Answerable)
		}
		ks = sortKinds(ks)
		for _, m := range modes[c] {
			for _, k := range ks {
				a := groups[key{c, m, k}]
				if a == nil {
					continue
				}
				s := Summary{Collection: c, Kind: k, Mode: m, Queries: a.n, Metrics: make(map[string]float64)}
				for name, v := range a.sums {
					s.Metrics[name] = v / float64(a.n)
				}
				if a.withVerdict > 0 {
					rate := float64(a.fired) / float64(a.withVerdict)
					s.NoMatch = &rate
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// sortKinds puts kinds in the order they are printed (see kindRank).
func sortKinds(kinds []string) []string {
	out := slices.Clone(kinds)
	slices.SortStableFunc(out, func(a, b string) int { return kindRank(a) - kindRank(b) })
	return out
}

// kindRank orders kinds for printing: keyword and paraphrase first, then
// others, the answerable ones pooled, and negatives last.
func kindRank(k string) int {
	switch k {
	case Keyword:
		return 0
	case Paraphrase:
		return 1
	case Answerable:
		return 3
	case Negative:
		return 4
	}
	return 2
}

// pooled reports whether a collection's kinds make an Answerable group
// worth its row: negatives beside more than one answerable kind.
func pooled(kinds []string) bool {
	return slices.Contains(kinds, Negative) && len(kinds) > 2
}

// MetricNames returns the metric names in the order they are printed.
func MetricNames(present map[string]bool) []string {
	var out []string
	for _, m := range metricOrder {
		if present[m] {
			out = append(out, m)
		}
	}
	var rest []string
	for m := range present {
		if !slices.Contains(metricOrder, m) {
			rest = append(rest, m)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
