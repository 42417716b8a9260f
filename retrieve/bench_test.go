package retrieve

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/subword"
)

// syntheticIndex builds (once per directory) an index of n chunks of
// Zipf-distributed pseudo-words in books of 200 chunks, embedded with the
// built-in embedder. The directory is named by the schema version too, so
// that builds of other versions keep their own; an index copied in from an
// older one is upgraded by its first writer.
func syntheticIndex(b *testing.B, n int) (*index.Reader, embed.Embedder) {
	b.Helper()
	ctx := context.Background()
	emb := embed.NewBuiltin()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("grimoire-bench-%d-v%d", n, index.SchemaVersion()))
	path := filepath.Join(dir, "g.db")
	if _, err := os.Stat(path); err == nil {
		w, err := index.OpenWriter(ctx, path, "bench")
		if err != nil {
			b.Fatal(err)
		}
		// An index copied in from an older schema has no common terms
		// counted yet; ingest would count them.
		if err := w.RefreshCommonTerms(ctx); err != nil {
			b.Fatal(err)
		}
		w.Close()
	} else {
		os.MkdirAll(dir, 0o755)
		w, err := index.OpenWriter(ctx, path+".tmp", "bench")
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewSource(1))
		zipf := rand.NewZipf(rng, 1.07, 2, 50000)
		word := func() string { return "w" + strconv.FormatUint(zipf.Uint64(), 36) }
		const perBook = 200
		for bk := 0; bk*perBook < n; bk++ {
			h := library.SumBytes([]byte(fmt.Sprint("book", bk)))
			p := fmt.Sprintf("/lib/book%d.md", bk)
			if err := w.Update(ctx, func(tx *index.Tx) error {
				_, err := tx.PutFile(ctx, library.File{Path: p, Root: "/lib", Hash: h, SourceType: "markdown"}, library.Hash{})
				return err
			}); err != nil {
				b.Fatal(err)
			}
			todo, _ := w.BooksToIngest(ctx)
			id := todo[0].ID
			var chunks []library.Chunk
			var texts []string
			for i := 0; i < perBook && bk*perBook+i < n; i++ {
				ws := make([]string, 250)
				for j := range ws {
					ws[j] = word()
				}
				text := strings.Join(ws, " ")
				chunks = append(chunks, library.Chunk{Index: i, Heading: fmt.Sprintf("Book %d › Chapter %d", bk, i/20), Text: text, State: library.ChunkContextualized})
				texts = append(texts, text)
			}
			ch := []library.Chapter{{Index: 0, Title: "C", Sections: []library.Section{{Index: 0, Title: "S", Text: "x", ChunkCount: len(chunks)}}}}
			if err := w.StoreParsed(ctx, id, index.BookMeta{Title: fmt.Sprint("Book ", bk), SourceType: "markdown"}, ch, chunks); err != nil {
				b.Fatal(err)
			}
			stored, _ := w.ChunksToEmbed(ctx, id, perBook)
			vecs, _ := emb.EmbedDocuments(ctx, texts)
			ids := make([]int64, len(stored))
			for i, k := range stored {
				ids[i] = k.ID
			}
			if err := w.StoreEmbeddings(ctx, ids, vecs); err != nil {
				b.Fatal(err)
			}
			if _, err := w.FinishBook(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
		if err := subword.Refresh(ctx, w); err != nil {
			b.Fatal(err)
		}
		if err := w.RefreshCommonTerms(ctx); err != nil {
			b.Fatal(err)
		}
		w.Close()
		os.Rename(path+".tmp", path)
		os.Rename(path+".tmp-wal", path+"-wal")
	}
	r, err := index.OpenReader(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	b.Logf("index %s", path) // bench/search.sh reads it
	return r, emb
}

func benchChunks() int {
	if v, err := strconv.Atoi(os.Getenv("GRIMOIRE_BENCH_CHUNKS")); err == nil && v > 0 {
		return v
	}
	return 20000
}

// BenchmarkSearch measures one search per mode over a synthetic index
// (GRIMOIRE_BENCH_CHUNKS chunks, default 20,000), vectors already loaded.
func BenchmarkSearch(b *testing.B) {
	r, emb := syntheticIndex(b, benchChunks())
	// Like real questions: words every chunk has, and rarer ones, never
	// the same query twice (so no cache helps).
	rng := rand.New(rand.NewSource(2))
	zipf := rand.NewZipf(rng, 1.07, 2, 50000)
	queries := make([]string, 1000)
	for i := range queries {
		ws := []string{"w" + strconv.Itoa(rng.Intn(5))}
		for range 4 {
			ws = append(ws, "w"+strconv.FormatUint(20+zipf.Uint64(), 36))
		}
		queries[i] = strings.Join(ws, " ")
	}
	// The product's defaults for the built-in embedder, and (rrf) those
	// for a neural model: both arms in full, fused by rank.
	builtin := Options{Dim: emb.Info().Dim, VectorWeight: 0.01, FTSWeight: 1, Fusion: Rerank}
	neural := Options{Dim: emb.Info().Dim, VectorWeight: 1, FTSWeight: 1, Fusion: RRF}
	for _, run := range []struct {
		name, mode string
		opts       Options
	}{{FTS, FTS, builtin}, {Vector, Vector, builtin}, {Hybrid, Hybrid, builtin}, {"hybrid-rrf", Hybrid, neural}} {
		mode := run.mode
		b.Run(run.name, func(b *testing.B) {
			s := New(&r.DB, emb, run.opts)
			if err := s.Prepare(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(context.Background(), Query{Text: queries[i%len(queries)], Mode: mode}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadVectors measures loading every vector into the slab, which a
// server does once at start.
func BenchmarkLoadVectors(b *testing.B) {
	r, emb := syntheticIndex(b, benchChunks())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var v vectorIndex
		if err := v.refresh(context.Background(), &r.DB, emb.Info().Dim, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchLibrary measures the search a server answers (the
// product's options for the built-in embedder, vectors loaded) over the
// index at GRIMOIRE_BENCH_DB, asking the questions of the file
// GRIMOIRE_BENCH_QUERIES (one a line) in turn. bench/search.sh runs it on
// the editions library.
func BenchmarkSearchLibrary(b *testing.B) {
	path, qfile := os.Getenv("GRIMOIRE_BENCH_DB"), os.Getenv("GRIMOIRE_BENCH_QUERIES")
	if path == "" || qfile == "" {
		b.Skip("GRIMOIRE_BENCH_DB and GRIMOIRE_BENCH_QUERIES name the index and the questions")
	}
	data, err := os.ReadFile(qfile)
	if err != nil {
		b.Fatal(err)
	}
	var queries []string
	for l := range strings.Lines(string(data)) {
		if l = strings.TrimSpace(l); l != "" {
			queries = append(queries, l)
		}
	}
	ctx := context.Background()
	r, err := index.OpenReader(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	s, err := Open(ctx, &r.DB, ConfigDefaults(), func(context.Context) (embed.Embedder, error) { return embed.NewBuiltin(), nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Prepare(ctx); err != nil {
		b.Fatal(err)
	}
	lib := &Library{DB: &r.DB, Searcher: s}
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := lib.Search(ctx, Query{Text: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(1000*(cpuTime()-cpu)/float64(b.N), "cpu-ms/op")
}

// BenchmarkOneShot measures what one `grimoire query` pays besides
// starting the process: a fresh reader and searcher (so no cache of an
// earlier search helps) and one search, with the product's options for
// the built-in embedder, over the synthetic index.
func BenchmarkOneShot(b *testing.B) {
	r, _ := syntheticIndex(b, benchChunks())
	path := r.Path()
	ctx := context.Background()
	for _, mode := range []string{FTS, Hybrid} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := index.OpenReader(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				s, err := Open(ctx, &r.DB, ConfigDefaults(), func(context.Context) (embed.Embedder, error) { return embed.NewBuiltin(), nil }, nil)
				if err != nil {
					b.Fatal(err)
				}
				lib := &Library{DB: &r.DB, Searcher: s}
				if _, err := lib.Search(ctx, Query{Text: "w1 w2k w3z w1b9 w7x", Mode: mode}); err != nil {
					b.Fatal(err)
				}
				// A process exits instead of closing its reader.
				b.StopTimer()
				r.Close()
				b.StartTimer()
			}
		})
	}
}
