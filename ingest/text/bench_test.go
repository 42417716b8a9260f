package text

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// BenchmarkParse measures throughput on the corpus books; b.SetBytes makes
// go test report MB/s.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{
		"books/text/2600-0.txt",
		"books/text/2591-0.txt",
		"books/text/pg84.txt",
		"bad/huge-line.txt",
	} {
		b.Run(filepath.Base(name), func(b *testing.B) {
			data, err := os.ReadFile(testcorpus.Path(b, name))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode isolates encoding detection and normalisation.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"books/text/2600-0.txt", "books/text/pg84.txt"} {
		b.Run(filepath.Base(name), func(b *testing.B) {
			data, err := os.ReadFile(testcorpus.Path(b, name))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
