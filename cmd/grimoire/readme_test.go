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

// readmeNotRead is the README's example of what status says of the files
// that are no book: "`not read  15 files: 12 .cbz, 2 .cbr, 1 .jpg`".
var readmeNotRead = regexp.MustCompile("`(not read  \\d[\\d,]* files?:[^`]*)`")

// TestReadmeNotReadExampleIsTrue builds a library of the files the
// README's example counts and checks that status says of them what the
// example says: no extension in it is one grimoire reads.
func TestReadmeNotReadExampleIsTrue(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeNotRead.FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README has no example of status's `not read` line")
	}
	example := strings.Join(strings.Fields(string(m[1])), " ")
	_, counts, _ := strings.Cut(example, ": ")
	lib := t.TempDir()
	for _, c := range strings.Split(counts, ", ") {
		n, ext, _ := strings.Cut(c, " ")
		files, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("the README's example %q: %q is no count", example, c)
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
		t.Errorf("status says %q of the README's example, want %q", said, example)
	}
}
