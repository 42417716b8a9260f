package retrieve

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/grimoire-search/grimoire/internal/golden"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/reconcile"
)

var update = flag.Bool("update", false, "rewrite testdata/ranking.golden from the current ranking")

// goldenLibrary is a small fixed library: a few books on neighbouring
// subjects, so that rankings have something to get wrong.
var goldenLibrary = map[string]string{
	"tides.md": `# Tides

## Spring tides
Spring tides happen near the full and the new moon, when the sun and the moon pull along one line and the range between high and low water is greatest.

## Neap tides
Neap tides come at the first and last quarter of the moon, when the pulls of the sun and the moon are at right angles and the range is smallest.

## Tide tables
Harbour masters publish tide tables that list the times and heights of high and low water for every day of the year.
`,
	"knots.md": `# Knots

## Bowline
The bowline makes a fixed loop at the end of a line. It does not slip or jam, and it can be untied after bearing a load.

## Clove hitch
The clove hitch binds a line to a post or a rail. It is quick to tie but can slip when the load changes direction.

## Reef knot
The reef knot joins two ends of one line around a bundle, as when reefing a sail. It should never join two ropes that bear a load.
`,
	"navigation.md": `# Navigation

## Dead reckoning
Dead reckoning estimates a ship's position from its last known fix, its speed, its heading and the time elapsed.

## Celestial navigation
A sextant measures the angle of the sun or a star above the horizon; with an almanac and an accurate clock it gives a line of position.

## Lighthouses
Each lighthouse shows its own pattern of flashes, its characteristic, so that a navigator can tell which light is which at night.
`,
	"weather.txt": `WEATHER AT SEA

CHAPTER I. Wind

The Beaufort scale describes the force of the wind from calm to hurricane by its effect on the sea.

CHAPTER II. Fog

Sea fog forms when warm, moist air moves over colder water and cools to its dew point.
`,
}

// goldenQueries are the queries whose top results are pinned.
var goldenQueries = []string{
	"why is the tidal range greatest at full moon",
	"neap tides quarter moon",
	"a loop that does not slip",
	"tie a line to a post",
	"joining two ropes under load",
	"estimate position from speed and heading",
	"sextant angle of a star",
	"tell one lighthouse from another at night",
	"Beaufort wind force",
	"how does sea fog form",
	"fog",
	"tide tabels for the harbour", // misspelled
	"knots",
}

// TestGoldenRanking checks the top three hits of each golden query against
// testdata/ranking.golden, so that a change in ranking shows up as a diff
// in review. Run with -update to accept the current ranking.
func TestGoldenRanking(t *testing.T) {
	ctx := context.Background()
	lib := t.TempDir()
	for name, text := range goldenLibrary {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := index.OpenWriter(ctx, filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	emb := embed.NewBuiltin()
	if _, err := reconcile.Run(ctx, w, reconcile.Options{Roots: []string{lib}, Formats: ingest.Formats()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, w, ingest.Options{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	// The product's defaults for the built-in embedder.
	s := New(&w.DB, emb, Options{Dim: emb.Info().Dim, FTSWeight: 1, VectorWeight: 0.01, Fusion: Rerank})

	var got strings.Builder
	for _, q := range goldenQueries {
		hits, err := s.Search(ctx, Query{Text: q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&got, "%s\n", q)
		for i, h := range hits {
			fmt.Fprintf(&got, "  %d %s › %s\n", i+1, h.Book.Title, h.SectionTitle)
		}
	}
	path := filepath.Join("testdata", "ranking.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("ranking changed (run with -update if that is intended):\n%s", goldenfile.LineDiff(string(want), got.String()))
	}
	// A server's searcher, its vectors loaded, reranks by the vectors it
	// holds, as by those read with the passages, to the last bit.
	if err := s.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := s.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range goldenQueries {
		qv, err := emb.EmbedQuery(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		r := request{phrasings: []string{q}, pool: 50, texts: &textCache{store: s.store, lib: st.lib}}
		arm, err := s.ftsArm(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		var scores [2]map[int64]rerankScores
		for i, fromSlab := range []bool{false, true} {
			scores[i] = make(map[int64]rerankScores)
			cache := &textCache{store: s.store, lib: st.lib, vectors: !fromSlab}
			if _, err := s.rerank(ctx, cache, q, qv, arm[0].hits, scores[i]); err != nil {
				t.Fatal(err)
			}
		}
		if !maps.Equal(scores[0], scores[1]) {
			t.Errorf("%q: reranked with the passages' vectors %v, with the loaded ones %v", q, scores[0], scores[1])
		}
		for id, sc := range scores[1] {
			if len(arm[0].hits) > 1 && !sc.hasCosine {
				t.Errorf("%q: chunk %d reranked without its vector", q, id)
			}
		}
	}
	// And the expectations a ranking must always meet, whatever the
	// golden file says: the section that answers is first.
	for _, c := range expectations(t) {
		hits, err := s.Search(ctx, Query{Text: c.query, Limit: c.maxRank})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range hits {
			if h.SectionTitle == c.section {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: %q not in the top %d", c.query, c.section, c.maxRank)
		}
	}
}

type expectation struct {
	query, section string
	maxRank        int
}

// expectations reads testdata/ranking.expect: lines "max-rank<TAB>section<TAB>query".
func expectations(t *testing.T) []expectation {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "ranking.expect"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		n, err := strconv.Atoi(parts[0])
		if len(parts) != 3 || err != nil {
			t.Fatalf("bad line in ranking.expect: %q", line)
		}
		out = append(out, expectation{query: parts[2], section: parts[1], maxRank: n})
	}
	return out
}
