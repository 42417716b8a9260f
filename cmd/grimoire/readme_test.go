package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeNotRead is the docs' example of what status says of the files
// that are no book: "`not read  15 files: 12 .cbz, 2 .cbr, 1 .jpg`".
var readmeNotRead = regexp.MustCompile("`(not read  \\d[\\d,]* files?:[^`]*)`")

// readmeNotReadFiles are the files that give the example: the README, and
// the page of docs/ that tells how the library is scanned.
var readmeNotReadFiles = []string{"README.md", filepath.Join("docs", "library.md")}

// TestReadmeNotReadExampleIsTrue builds a library of the files each
// example counts and checks that status says of them what the example
// says: no extension in it is one grimoire reads. Each file must give the
// example.
func TestReadmeNotReadExampleIsTrue(t *testing.T) {
	t.Parallel()
	for _, name := range readmeNotReadFiles {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", name))
			if err != nil {
				t.Fatal(err)
			}
			m := readmeNotRead.FindSubmatch(data)
			if m == nil {
				t.Fatalf("%s has no example of status's `not read` line", name)
			}
			checkNotReadExample(t, name, strings.Join(strings.Fields(string(m[1])), " "))
		})
	}
}

func checkNotReadExample(t *testing.T, name, example string) {
	t.Helper()
	_, counts, _ := strings.Cut(example, ": ")
	lib := t.TempDir()
	for _, c := range strings.Split(counts, ", ") {
		n, ext, _ := strings.Cut(c, " ")
		files, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("%s's example %q: %q is no count", name, example, c)
		}
		for i := range files {
			writeFile(t, filepath.Join(lib, fmt.Sprintf("file%d%s", i, ext)), "some bytes")
		}
	}
	ok(t, lib, "sync")
	var said string
	for _, l := range strings.Split(ok(t, lib, "status"), "\n") {
		if strings.HasPrefix(l, "not read") {
			said = strings.Join(strings.Fields(l), " ")
		}
	}
	if !strings.HasPrefix(said, example+" ") {
		t.Errorf("status says %q of %s's example, want %q", said, name, example)
	}
}
