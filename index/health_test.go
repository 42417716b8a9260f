package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
)

// filledIndex makes an index of n one-chunk books, with contexts, vectors,
// a section summary each and one exclusion, and closes it.
func filledIndex(t testing.TB, path string, n int) {
	t.Helper()
	ctx := context.Background()
	w, err := OpenWriter(ctx, path, "grimoire test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.SetStamp(ctx, model.Stamp{Provider: "test", Model: "m", Dim: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetContextStamp(ctx, model.ContextStamp{Provider: "test", Model: "llm", Prompt: "1"}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		text := fmt.Sprintf("book %d says %s", i, strings.Repeat("words of some length ", 40))
		h, _ := putT(t, w, fmt.Sprintf("/lib/b%03d.txt", i), text)
		b := storeBook(t, w, h, fmt.Sprintf("Book %d", i), text, fmt.Sprintf("context %d", i), []float32{float32(i), 1})
		if err := w.StoreSummary(ctx, b.ID, 0, 0, fmt.Sprintf("summary %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	books, _ := w.Books(ctx, BookFilter{})
	if _, err := w.DeleteBook(ctx, books[0].Slug); err != nil {
		t.Fatal(err)
	}
}

func putT(t testing.TB, w *Writer, path, content string) (library.Hash, bool) {
	t.Helper()
	h := library.SumBytes([]byte(content))
	var created bool
	err := w.Update(context.Background(), func(tx *Tx) error {
		var err error
		created, err = tx.PutFile(context.Background(), library.File{Path: path, Root: "/lib", Hash: h, Size: int64(len(content)), SourceType: "text"}, library.Hash{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, created
}

// storeBook ingests a one-chunk book with the given context and vector.
func storeBook(t testing.TB, w *Writer, h library.Hash, title, text, context string, vec []float32) library.Book {
	t.Helper()
	ctx := contextBG
	books, err := w.queryBooks(ctx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book for %s: %v %v", h.Short(), books, err)
	}
	b := books[0]
	ch := []library.Chapter{{Index: 0, Title: "One", Sections: []library.Section{{Index: 0, Title: "One", Text: text, ChunkCount: 1}}}}
	k := []library.Chunk{{Index: 0, Heading: title + " › One", Text: text, Context: context, State: library.ChunkContextualized}}
	if err := w.StoreParsed(ctx, b.ID, BookMeta{Title: title, SourceType: "text"}, ch, k); err != nil {
		t.Fatal(err)
	}
	todo, err := w.ChunksToEmbed(ctx, b.ID, 10)
	if err != nil || len(todo) != 1 {
		t.Fatalf("ChunksToEmbed: %v %v", todo, err)
	}
	if err := w.StoreEmbeddings(ctx, []int64{todo[0].ID}, [][]float32{vec}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.FinishBook(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	return b
}

var contextBG = context.Background()

// damage overwrites the first bytes of every k-th page past the first, in
// place (a writer may have the file mapped).
func damage(t testing.TB, path string, k int, seed int64, spare ...int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 100)
	if _, err := f.ReadAt(head, 0); err != nil {
		t.Fatal(err)
	}
	size := int64(binary.BigEndian.Uint16(head[16:18]))
	fi, _ := f.Stat()
	rng := rand.New(rand.NewSource(seed))
	junk := make([]byte, 256)
	for off := size; off+size <= fi.Size(); off += int64(k) * size {
		rng.Read(junk)
		if slices.Contains(spare, off/size+1) {
			continue
		}
		if _, err := f.WriteAt(junk, off); err != nil {
			t.Fatal(err)
		}
	}
}

// metaPage returns the page number of the meta table's root.
func metaPage(t testing.TB, path string) int64 {
	t.Helper()
	r, err := OpenReader(contextBG, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var p int64
	if err := r.db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'meta'`).Scan(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// schemaPages returns the pages of the schema table.
func schemaPages(t testing.TB, path string) []int64 {
	t.Helper()
	r, err := OpenReader(contextBG, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := r.db.Query(`SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriterRefusesDamagedIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	filledIndex(t, path, 60)
	damage(t, path, 3, 1)
	_, err := OpenWriter(contextBG, path, "grimoire sync")
	if fault.CodeOf(err) != fault.Damaged || !strings.Contains(err.Error(), "grimoire rebuild") || !strings.Contains(err.Error(), path) {
		t.Fatalf("writer on a damaged index: %v", err)
	}
	// Readers do not check the whole file, but every error that comes
	// from a damaged page is explained the same way.
	r, err := OpenReader(contextBG, path)
	if err != nil {
		if fault.CodeOf(err) != fault.Damaged {
			t.Fatalf("reader open: %v", err)
		}
		return
	}
	defer r.Close()
	_, err = r.Status(contextBG)
	if err == nil {
		t.Fatal("status of a damaged index succeeded")
	}
	if fault.CodeOf(err) != fault.Damaged {
		t.Errorf("CodeOf(%v) = %v", err, fault.CodeOf(err))
	}
	if e := ExplainDamage(err, path); !strings.Contains(e.Error(), "is damaged") || !strings.Contains(e.Error(), RebuildHint) {
		t.Errorf("explained: %v", e)
	}
	if e := ExplainDamage(errors.New("other"), path); e.Error() != "other" {
		t.Errorf("ExplainDamage changed an unrelated error: %v", e)
	}
}

func TestOpenErrorsNameTheirCause(t *testing.T) {
	tests := []struct {
		name, content string
		want          fault.Code
	}{
		{"random bytes", strings.Repeat("\x13\x37garbage", 1000), fault.Damaged},
		{"a header and nothing else", "SQLite format 3\x00\x10\x00\x02\x02\x00\x40\x20\x20", fault.Damaged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.db")
			os.WriteFile(path, []byte(tc.content), 0o644)
			_, werr := OpenWriter(contextBG, path, "t")
			_, rerr := OpenReader(contextBG, path)
			for _, err := range []error{werr, rerr} {
				if fault.CodeOf(err) != tc.want || strings.Contains(fmt.Sprint(err), "FTS5") {
					t.Errorf("open: code %v: %v", fault.CodeOf(err), err)
				}
			}
		})
	}
}

// TestSealTellsAnUnchangedFile: a writer checks a file unless it is
// exactly as the last writer left it on a clean close.
func TestSealTellsAnUnchangedFile(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		sealed bool
	}{
		{"as left", func(*testing.T, string) {}, true},
		{"touched", func(t *testing.T, path string) {
			later := time.Now().Add(time.Hour)
			os.Chtimes(path, later, later)
		}, false},
		{"written in place", func(t *testing.T, path string) { damage(t, path, 50, 1) }, false},
		{"grown", func(t *testing.T, path string) {
			f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			f.Write(make([]byte, 4096))
			f.Close()
		}, false},
		{"a write-ahead log appeared", func(t *testing.T, path string) { os.WriteFile(path+"-wal", []byte("x"), 0o644) }, false},
		{"lock file emptied (a crash)", func(t *testing.T, path string) { os.WriteFile(path+".lock", nil, 0o644) }, false},
		{"lock file deleted", func(t *testing.T, path string) { os.Remove(path + ".lock") }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.db")
			filledIndex(t, path, 3)
			if _, running := ReadLockHolder(path); running {
				t.Fatal("a seal reads as a running writer")
			}
			tc.change(t, path)
			l, err := acquireLock(path+".lock", "t")
			if err != nil {
				t.Fatal(err)
			}
			defer l.release(nil)
			if got := l.sealMatches(path); got != tc.sealed {
				t.Errorf("sealMatches = %v, want %v (seal %+v)", got, tc.sealed, l.prev)
			}
		})
	}
}

// TestForeignWriteVoidsTheSeal changes the file behind a running writer:
// it must not seal what it did not write.
func TestForeignWriteVoidsTheSeal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	filledIndex(t, path, 60)
	w, err := OpenWriter(contextBG, path, "t")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a later modification time than the writer's own
	damage(t, path, 3, 2)
	w.SetMeta(contextBG, "k", "v")
	w.Close()
	if c := readLockFile(path + ".lock"); c.Sealed != nil {
		t.Fatalf("a file changed behind the writer was sealed: %+v", c.Sealed)
	}
	if _, err := OpenWriter(contextBG, path, "t"); fault.CodeOf(err) != fault.Damaged {
		t.Fatalf("next writer: %v", err)
	}
}

func TestDeletedLockFileStillKeepsOneWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not delete a locked file")
	}
	w := mustOpenWriter(t)
	if err := os.Remove(w.Path() + ".lock"); err != nil {
		t.Fatal(err)
	}
	_, err := OpenWriter(contextBG, w.Path(), "grimoire sync")
	if fault.CodeOf(err) != fault.Conflict || !strings.Contains(err.Error(), fmt.Sprintf("grimoire test (pid %d", os.Getpid())) {
		t.Fatalf("second writer without the lock file: %v", err)
	}
	r, err := OpenReader(contextBG, w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h, running := r.Writer(contextBG); !running || h.Command != "grimoire test" {
		t.Errorf("Writer() = %+v, %v", h, running)
	}
	if _, err := Rebuild(contextBG, w.Path(), "grimoire rebuild"); fault.CodeOf(err) != fault.Conflict {
		t.Errorf("rebuild beside the writer: %v", err)
	}
	w.Close()
	if _, running := r.Writer(contextBG); running {
		t.Error("a writer that closed is still reported")
	}
	w2, err := OpenWriter(contextBG, w.Path(), "grimoire sync")
	if err != nil {
		t.Fatalf("after the first writer closed: %v", err)
	}
	w2.Close()
}

// TestTakenOverWriterStops: when a newcomer takes the index over (its
// predecessor ran on another host, whose processes cannot be asked), the
// predecessor's next write fails instead of interleaving.
func TestTakenOverWriterStops(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not delete a locked file")
	}
	w1 := mustOpenWriter(t)
	os.Remove(w1.Path() + ".lock")
	if _, err := w1.db.Exec(`UPDATE meta SET value = json_set(value, '$.host', 'elsewhere') WHERE key = 'writer'`); err != nil {
		t.Fatal(err)
	}
	w2, err := OpenWriter(contextBG, w1.Path(), "grimoire watch")
	if err != nil {
		t.Fatalf("newcomer: %v", err)
	}
	defer w2.Close()
	for name, write := range map[string]func() error{
		"SetMeta": func() error { return w1.SetMeta(contextBG, "k", "v") },
		"Update":  func() error { return w1.Update(contextBG, func(*Tx) error { return nil }) },
		"StartRun": func() error {
			_, err := w1.StartRun(contextBG, "sync", time.Now())
			return err
		},
	} {
		if err := write(); !errors.Is(err, ErrWriterReplaced) || fault.CodeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "grimoire watch") {
			t.Errorf("%s by the replaced writer: %v", name, err)
		}
	}
	w1.Close()
	if err := w2.SetMeta(contextBG, "k", "v"); err != nil {
		t.Fatalf("the newcomer lost its record to the old writer's Close: %v", err)
	}
}

// TestRebuildKeepsWhatItCanRead rebuilds a sound index and a damaged one,
// and checks what the new index is given back.
func TestRebuildKeepsWhatItCanRead(t *testing.T) {
	const n = 60
	stamp := model.Stamp{Provider: "test", Model: "m", Dim: 2}
	for _, tc := range []struct {
		name    string
		damaged bool
	}{{"sound", false}, {"damaged", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.db")
			filledIndex(t, path, n)
			if tc.damaged {
				// The meta page, with the models' stamps, is spared: a
				// rebuild reuses no vector whose model it cannot tell.
				// So are the schema's pages, without which nothing can be
				// read: the damage is to the rows.
				damage(t, path, 4, 3, append(schemaPages(t, path), metaPage(t, path))...)
			}
			w, err := Rebuild(contextBG, path, "grimoire rebuild")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if !w.Salvaging() {
				t.Fatal("no salvage")
			}
			ex, _ := w.Exclusions(contextBG)
			if !tc.damaged && len(ex) != 1 {
				t.Errorf("exclusions: %+v", ex)
			}
			if cs, ok, _ := w.ContextStamp(contextBG); !tc.damaged && (!ok || cs.Model != "llm") {
				t.Errorf("context stamp: %+v %v", cs, ok)
			}
			// Give the books back as ingest would, and see what comes
			// with them.
			contexts, vectors := 0, 0
			for i := 1; i < n; i++ {
				text := fmt.Sprintf("book %d says %s", i, strings.Repeat("words of some length ", 40))
				h, _ := putT(t, w, fmt.Sprintf("/lib/b%03d.txt", i), text)
				chunks := []library.Chunk{{Heading: fmt.Sprintf("Book %d › One", i), Text: text, State: library.ChunkPending}}
				vecs, err := w.Salvaged(contextBG, h, chunks, stamp)
				if err != nil {
					t.Fatal(err)
				}
				if chunks[0].State == library.ChunkContextualized {
					contexts++
					if chunks[0].Context != fmt.Sprintf("context %d", i) {
						t.Errorf("book %d: salvaged context %q", i, chunks[0].Context)
					}
				}
				if vecs != nil && vecs[0] != nil {
					vectors++
					if vecs[0][0] != float32(i) {
						t.Errorf("book %d: salvaged vector %v", i, vecs[0])
					}
				}
				other, _ := w.Salvaged(contextBG, h, []library.Chunk{{Heading: chunks[0].Heading, Text: text}}, model.Stamp{Provider: "test", Model: "other", Dim: 2})
				if other != nil {
					t.Errorf("vectors of another model reused: %v", other)
				}
			}
			t.Logf("%s: %d contexts and %d vectors of %d kept", tc.name, contexts, vectors, n-1)
			if !tc.damaged && (contexts != n-1 || vectors != n-1) {
				t.Errorf("sound index: kept %d contexts, %d vectors of %d", contexts, vectors, n-1)
			}
			if tc.damaged && (contexts == 0 || contexts == n-1 || vectors == 0) {
				t.Errorf("damaged index: kept %d contexts and %d vectors of %d", contexts, vectors, n-1)
			}
			// Stopped before it finished, the rebuild keeps other writers
			// out, and resumes where it was.
			w.Close()
			if _, err := OpenWriter(contextBG, path, "grimoire sync"); fault.CodeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "grimoire rebuild") {
				t.Errorf("a writer during the rebuild: %v", err)
			}
			w, err = Rebuild(contextBG, path, "grimoire rebuild")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if !w.Salvaging() {
				t.Fatal("no salvage on resuming")
			}
			rep, err := w.FinishRebuild(contextBG)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Damaged != tc.damaged || !strings.HasPrefix(rep.Aside, path+".") {
				t.Errorf("report: %+v", rep)
			}
			if _, err := os.Stat(rep.Aside); err != nil {
				t.Errorf("old index not kept: %v", err)
			}
			if err := w.Check(contextBG); err != nil {
				t.Error(err)
			}
		})
	}
}

// FuzzRebuildOfDamagedIndex writes arbitrary bytes at arbitrary places of
// an index and rebuilds it: the salvage must finish, whatever it meets.
func FuzzRebuildOfDamagedIndex(f *testing.F) {
	base := filepath.Join(f.TempDir(), "base.db")
	filledIndex(f, base, 30)
	data, err := os.ReadFile(base)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(4096), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint32(8192+8), []byte{0, 0, 0, 0, 0, 0})
	f.Add(uint32(0), []byte("SQLite format 3"))
	f.Add(uint32(len(data)-100), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, at uint32, b []byte) {
		d := append([]byte{}, data...)
		copy(d[int(at)%len(d):], b)
		path := filepath.Join(t.TempDir(), "g.db")
		os.WriteFile(path, d, 0o644)
		w, err := Rebuild(contextBG, path, "fuzz")
		if err != nil {
			t.Fatalf("rebuild: %v", err)
		}
		defer w.Close()
		if _, err := w.FinishRebuild(contextBG); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSealedFileIsNotCheckedAgain damages the free-page list, which only a
// check reads, and keeps the file's time: a writer trusts the seal and
// opens it; without the seal, it checks and refuses.
func TestSealedFileIsNotCheckedAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	filledIndex(t, path, 60)
	w, err := OpenWriter(contextBG, path, "t")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 40; i++ {
		remove(t, w, fmt.Sprintf("/lib/b%03d.txt", i))
	}
	w.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 100)
	f.ReadAt(head, 0)
	size, trunk := int64(binary.BigEndian.Uint16(head[16:18])), int64(binary.BigEndian.Uint32(head[32:36]))
	if trunk == 0 {
		t.Fatal("no free pages")
	}
	fi, _ := f.Stat()
	f.WriteAt([]byte{0x7f, 0xff, 0xff, 0xff}, (trunk-1)*size+4) // leaf count
	f.Close()
	os.Chtimes(path, fi.ModTime(), fi.ModTime())

	w, err = OpenWriter(contextBG, path, "t")
	if err != nil {
		t.Fatalf("a sealed file was checked: %v", err)
	}
	w.Close()
	os.WriteFile(path+".lock", nil, 0o644)
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	if _, err := OpenWriter(contextBG, path, "t"); fault.CodeOf(err) != fault.Damaged || !strings.Contains(err.Error(), "quick_check") {
		t.Fatalf("an unsealed file was not checked: %v", err)
	}
}

// TestSnapshotOnlyWhereNoWriterCanStart: a reader that cannot create the
// shared-memory file reads the index as an unchanging snapshot only when no
// one can write to its folder and no write-ahead log waits there.
func TestSnapshotOnlyWhereNoWriterCanStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows folders have no write bits")
	}
	tests := []struct {
		name string
		mode os.FileMode
		wal  string
		want string // "" for allowed, else a word of the refusal
	}{
		{"nobody may write", 0o555, "", ""},
		{"an empty write-ahead log", 0o555, "-", ""},
		{"a write-ahead log with content", 0o555, "frames", "write-ahead log"},
		{"its owner may write", 0o755, "", "cannot be read by this user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "idx")
			path := filepath.Join(dir, "g.db")
			filledIndex(t, path, 1)
			if tc.wal != "" {
				os.WriteFile(path+"-wal", []byte(strings.Trim(tc.wal, "-")), 0o644)
			}
			os.Chmod(dir, tc.mode)
			defer os.Chmod(dir, 0o755)
			err := snapshotRefused(path)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("snapshotRefused = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRebuildCutShortWhileSettingAside resumes a rebuild that stopped after
// moving the old index's write-ahead log and before moving the index: the
// log, which holds committed data, must survive the resumed run.
func TestRebuildCutShortWhileSettingAside(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	filledIndex(t, src, 10)
	w, err := OpenWriter(contextBG, src, "t")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMeta(contextBG, "note", "only in the log")
	// The index as a crash would leave it: the file and a log with content.
	path := filepath.Join(dir, "g.db")
	for _, ext := range []string{"", "-wal"} {
		b, err := os.ReadFile(src + ext)
		if err != nil || (ext == "-wal" && len(b) == 0) {
			t.Fatalf("%s%s: %d bytes, %v", src, ext, len(b), err)
		}
		os.WriteFile(path+ext, b, 0o644)
	}
	w.Close()

	lock, err := acquireLock(path+".lock", "t")
	if err != nil {
		t.Fatal(err)
	}
	st, err := salvageInto(contextBG, path+rebuildSuffix, path, lock, "t")
	lock.release(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+"-wal", st.Aside+"-wal"); err != nil {
		t.Fatal(err)
	}
	log := sum(t, st.Aside+"-wal")

	w, err = Rebuild(contextBG, path, "t")
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	defer w.Close()
	if got := sum(t, st.Aside+"-wal"); got != log {
		t.Fatal("the old index's write-ahead log was overwritten")
	}
	r, err := OpenReader(contextBG, st.Aside)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.Meta(contextBG, "note"); v != "only in the log" {
		t.Errorf("the old index set aside lost its log: %q, %v", v, err)
	}
}

func sum(t *testing.T, path string) library.Hash {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return library.SumBytes(b)
}
