package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/model/llm"
	"github.com/grimoire-search/grimoire/model/rerank"
	"github.com/grimoire-search/grimoire/retrieve"
	"github.com/grimoire-search/grimoire/watcher"
)

// shelf is a library of three books (testbook.Shelf) and the settings of
// its index.
func shelf(t *testing.T) Settings {
	t.Helper()
	lib := testbook.Shelf(t)
	return Settings{
		Library:     []string{lib},
		DBPath:      filepath.Join(t.TempDir(), "grimoire.db"),
		MaxFileSize: 1 << 30,
		Embedding:   Embedding{Provider: embed.ProviderBuiltin},
		Context:     llm.Config{Provider: llm.ProviderNone},
		Rerank:      rerank.Config{Provider: rerank.ProviderNone},
		Retrieval:   retrieve.DefaultOptions(),
		Chunking:    ingest.DefaultChunking(),
		OCR:         ingest.OCROptions{Off: true},
		Watch:       watcher.Options{Debounce: 50 * time.Millisecond, RescanInterval: time.Hour},
	}
}

// books lists the index's books as slug:status, in order.
func books(t *testing.T, s *Service) string {
	t.Helper()
	lib, closeLib, err := s.OpenLibrary(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer closeLib()
	bs, err := lib.Books(t.Context(), index.BookFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Slug+":"+b.Status)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// TestOperations runs each operation that writes the index with the
// service's own writer, and the same through a watch that holds the writer
// in the same process, which the operation is handed to: both leave the
// same books and answer the same, but where the watch does more (it takes
// a lifted book back in at once).
func TestOperations(t *testing.T) {
	t.Parallel()
	alone := New(shelf(t), nil, &testFront{})
	set := shelf(t)
	watchFront, handedFront := &testFront{}, &testFront{}
	ctx, stop := context.WithCancel(t.Context())
	ready := make(chan struct{})
	watched := make(chan error, 1)
	go func() {
		watched <- New(set, nil, watchFront).Watch(ctx, "grimoire watch", Listener{Started: func() { close(ready) }})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-watched; err != nil {
			t.Errorf("the watch ended with %v", err)
		}
	})
	<-ready
	handed := New(set, nil, handedFront)
	eventually(t, "the watch's first pass", func() bool { return books(t, handed) == "knots:ready owls:ready tides:ready" })
	if _, err := alone.Sync(ctx, SyncArgs{Kind: "sync", Library: alone.set.Library}, Listener{}); err != nil {
		t.Fatal(err)
	}
	watcherName := fmt.Sprintf("grimoire watch (pid %d)", os.Getpid())

	steps := []struct {
		name string
		do   func(s *Service) (any, error)
		// want is the result with the service's own writer, wantHanded
		// through the watch where it differs; code the error's.
		want, wantHanded any
		code             fault.Code
		// books and handedBooks are the books afterwards.
		books, handedBooks string
	}{
		{name: "delete", do: func(s *Service) (any, error) { return s.Delete(ctx, "owls") },
			want: Deleted{Slug: "owls", Title: "Owls"}, books: "knots:ready tides:ready"},
		{name: "delete an unknown book", do: func(s *Service) (any, error) { return s.Delete(ctx, "nosuch") },
			want: Deleted{}, code: fault.NotFound, books: "knots:ready tides:ready"},
		{name: "delete by a prefix", do: func(s *Service) (any, error) { return s.Delete(ctx, "ti") },
			want: Deleted{Slug: "tides", Title: "Tides"}, books: "knots:ready"},
		{name: "lift an exclusion", do: func(s *Service) (any, error) {
			l, err := s.LiftExclusion(ctx, "owls")
			run := l.Run.Of()
			if run != nil {
				// What the watch's sync of the file did, not when.
				l.Run = Synced{}
				l.Title += fmt.Sprintf(", then %d new, %d ingested", run.New, run.Ingested)
			}
			l.Path = filepath.Base(l.Path)
			return l, err
		},
			want:       Lifted{Title: "Owls", Path: "owls.md"},
			wantHanded: Lifted{Title: "Owls, then 1 new, 1 ingested", Path: "owls.md", Watcher: watcherName},
			books:      "knots:ready", handedBooks: "knots:ready owls:ready"},
		{name: "lift an unknown exclusion", do: func(s *Service) (any, error) { return s.LiftExclusion(ctx, "nosuch") },
			want: Lifted{}, code: fault.NotFound, books: "knots:ready", handedBooks: "knots:ready owls:ready"},
		{name: "sync ingests the lifted book", do: func(s *Service) (any, error) {
			run, err := s.Sync(ctx, SyncArgs{Kind: "sync", Library: s.set.Library}, Listener{})
			return run.Ingested, err
		}, want: 1, wantHanded: 0, books: "knots:ready owls:ready"},
		{name: "sync of a path", do: func(s *Service) (any, error) {
			run, err := s.Sync(ctx, SyncArgs{Kind: "sync", Library: s.set.Library, Scope: []string{filepath.Join(s.set.Library[0], "tides.md")}}, Listener{})
			return run.Scanned, err
		}, want: 1, books: "knots:ready owls:ready"},
		{name: "reindex", do: func(s *Service) (any, error) {
			r, err := s.Reindex(ctx, ReindexArgs{FTS: true, Embeddings: true}, relay{&testFront{}})
			return fmt.Sprintf("%v %v %s %d", r.FTS, r.Embeddings, r.Model.Provider, r.Chunks), err
		}, want: "true true builtin 0", books: "knots:ready owls:ready"},
	}
	for _, s := range steps {
		got, err := s.do(alone)
		if fault.CodeOf(err) != s.code || s.code == 0 && err != nil {
			t.Fatalf("%s: error %v, want code %v", s.name, err, s.code)
		}
		if !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: %+v, want %+v", s.name, got, s.want)
		}
		if b := books(t, alone); b != s.books {
			t.Errorf("%s: books %s, want %s", s.name, b, s.books)
		}

		before := len(handedFront.handed)
		got, err = s.do(handed)
		if fault.CodeOf(err) != s.code || s.code == 0 && err != nil {
			t.Fatalf("%s through the watch: error %v, want code %v", s.name, err, s.code)
		}
		want := s.want
		if s.wantHanded != nil {
			want = s.wantHanded
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s through the watch: %+v, want %+v", s.name, got, want)
		}
		if h := handedFront.handed; len(h) != before+1 || h[len(h)-1].PID != os.Getpid() || h[len(h)-1].Command != "grimoire watch" {
			t.Errorf("%s was not handed to the watch: %+v", s.name, h)
		}
		want = s.books
		if s.handedBooks != "" {
			want = s.handedBooks
		}
		if b := books(t, handed); b != want {
			t.Errorf("%s through the watch: books %s, want %s", s.name, b, want)
		}
	}
	watchFront.mu.Lock()
	defer watchFront.mu.Unlock()
	if !slices.Contains(watchFront.relayed, "ingest Owls") {
		t.Errorf("the watch relayed %q of the work it did, not the lifted book's ingest", watchFront.relayed)
	}
}

// TestHandedSyncNamesTheWatchersLibrary: a sync handed to a watch of
// another library is refused, and says which each names.
func TestHandedSyncNamesTheWatchersLibrary(t *testing.T) {
	t.Parallel()
	set := shelf(t)
	ctx, stop := context.WithCancel(t.Context())
	ready := make(chan struct{})
	watched := make(chan error, 1)
	go func() {
		watched <- New(set, nil, &testFront{}).Watch(ctx, "grimoire watch", Listener{Started: func() { close(ready) }})
	}()
	defer func() {
		stop()
		<-watched
	}()
	<-ready
	eventually(t, "the watch to take requests", func() bool {
		h, running := index.ReadLockHolder(set.DBPath)
		return running && h.Requests != ""
	})
	other := set
	other.Library = []string{t.TempDir()}
	_, err := New(other, nil, &testFront{}).Sync(ctx, SyncArgs{Kind: "sync", Library: other.Library}, Listener{})
	if fault.CodeOf(err) != fault.Conflict || !strings.Contains(err.Error(), set.Library[0]) || !strings.Contains(err.Error(), other.Library[0]) {
		t.Errorf("error %v (code %v)", err, fault.CodeOf(err))
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
