// Package eval measures retrieval quality. It reads gold sets (BEIR test
// collections, book questions with evidence quotes, a user's own list of
// queries and the books that answer them), judges rankings (nDCG@10,
// recall, MRR; answer@k and chapter@5 by quote and chapter), keeps each
// query's outcome as a Record, and compares two runs query by query with
// a paired randomisation test. BM25 is the plain baseline the engine is
// measured against.
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Doc is one document of a BEIR corpus.
type Doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is one gold query: its text and the relevance of each judged
// document (by id). A query with no relevant document is a negative query:
// the right answer is "nothing in the library".
type Query struct {
	ID       string
	Text     string
	Relevant map[string]int
}

// Collection is a BEIR test collection.
type Collection struct {
	Docs    []Doc
	Queries []Query
}

// LoadBEIR reads a BEIR directory: corpus.jsonl, queries.jsonl (or
// queries.<split>.jsonl) and qrels/<split>.tsv. Only queries with judgements
// are kept.
func LoadBEIR(dir, split string) (*Collection, error) {
	c := &Collection{}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d Doc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		c.Docs = append(c.Docs, d)
		return nil
	}); err != nil {
		return nil, err
	}
	qrels, err := readQrels(filepath.Join(dir, "qrels", split+".tsv"))
	if err != nil {
		return nil, err
	}
	qfile := filepath.Join(dir, "queries."+split+".jsonl")
	if _, err := os.Stat(qfile); err != nil {
		qfile = filepath.Join(dir, "queries.jsonl")
	}
	if err := readJSONL(qfile, func(line []byte) error {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if rel, ok := qrels[q.ID]; ok {
			c.Queries = append(c.Queries, Query{ID: q.ID, Text: q.Text, Relevant: rel})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(c.Queries) == 0 {
		return nil, fmt.Errorf("%s: no judged queries for split %q", dir, split)
	}
	return c, nil
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func readQrels(path string) (map[string]map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make(map[string]map[string]int)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		score, err := strconv.Atoi(fields[len(fields)-1])
		if err != nil {
			if n == 1 {
				continue // header
			}
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		q, d := fields[0], fields[len(fields)-2]
		if out[q] == nil {
			out[q] = make(map[string]int)
		}
		out[q][d] = score
	}
	return out, sc.Err()
}

// GoldEntry is one line of the simple gold-set format, for users' own
// libraries: a query and the books (by slug or file path) that answer it,
// optionally narrowed to a chapter or section. An empty Expected makes a
// negative query.
type GoldEntry struct {
	Query    string     `json:"query"`
	Expected []Expected `json:"expected"`
}

// Expected names a relevant book, and optionally where in it.
type Expected struct {
	Book    string `json:"book,omitempty"`
	Path    string `json:"path,omitempty"`
	Chapter *int   `json:"chapter,omitempty"`
	Section *int   `json:"section,omitempty"`
}

// LoadGold reads a JSON array or JSON Lines of GoldEntry.
func LoadGold(r io.Reader) ([]GoldEntry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "[") {
		var out []GoldEntry
		if err := json.Unmarshal([]byte(trimmed), &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	var out []GoldEntry
	for i, line := range strings.Split(trimmed, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var g GoldEntry
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, g)
	}
	return out, nil
}

// Judge scores one ranking (ids best first, already deduplicated) against
// the relevant ids.
func Judge(ranking []string, relevant map[string]int) (ndcg10, recall10, recall100, rr float64) {
	nrel := 0
	var ideal []int
	for _, g := range relevant {
		if g > 0 {
			nrel++
			ideal = append(ideal, g)
		}
	}
	if nrel == 0 {
		return 0, 0, 0, 0
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	dcg, idcg := 0.0, 0.0
	for i := 0; i < 10; i++ {
		if i < len(ranking) {
			if g := relevant[ranking[i]]; g > 0 {
				dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
			}
		}
		if i < len(ideal) {
			idcg += (math.Pow(2, float64(ideal[i])) - 1) / math.Log2(float64(i+2))
		}
	}
	found10, found100 := 0, 0
	for i, id := range ranking {
		if relevant[id] <= 0 {
			continue
		}
		if rr == 0 {
			rr = 1 / float64(i+1)
		}
		if i < 10 {
			found10++
		}
		if i < 100 {
			found100++
		}
	}
	return dcg / idcg, float64(found10) / float64(nrel), float64(found100) / float64(nrel), rr
}
