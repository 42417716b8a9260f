package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/retrieve"
)

// Book returns the book key names (its slug, or the beginning of it).
func (s *Service) Book(ctx context.Context, key string) (library.Book, error) {
	if err := s.front.CheckFolders(ctx); err != nil {
		return library.Book{}, err
	}
	r, err := index.OpenReader(ctx, s.set.DBPath)
	if err != nil {
		return library.Book{}, err
	}
	defer r.Close()
	return r.Book(ctx, key)
}

// Status is what `grimoire status` shows: the library, the index, the
// last run and what is failing or waiting. No index yet is a state, not
// an error.
func (s *Service) Status(ctx context.Context) (retrieve.StatusView, error) {
	if err := s.front.CheckFolders(ctx); err != nil {
		return retrieve.StatusView{}, err
	}
	model := s.set.Embedding.Config().Name()
	r, err := index.OpenReader(ctx, s.set.DBPath)
	if fault.CodeOf(err) == fault.NotFound {
		return retrieve.StatusView{Library: s.set.Library, DBPath: s.set.DBPath, Failures: []library.Failure{}, Held: []library.Hold{}, OCR: []index.OCRBook{}, Unsupported: []library.Unsupported{}, EmbeddingModel: model}, nil
	}
	if err != nil {
		return retrieve.StatusView{}, err
	}
	defer r.Close()
	lib := &retrieve.Library{DB: &r.DB}
	v, err := lib.Status(ctx, s.set.Library)
	if err != nil {
		return v, err
	}
	if v.EmbeddingModel == "" {
		v.EmbeddingModel = model
	}
	return v, nil
}

// WaitForIndex makes sure there is an index to read: when none exists yet,
// or an older grimoire wrote it, it creates or upgrades it (if no other
// process is writing) or waits for the writer that is doing so.
func (s *Service) WaitForIndex(ctx context.Context, command string) error {
	for {
		if _, err := os.Stat(s.set.DBPath); err == nil {
			r, err := index.OpenReader(ctx, s.set.DBPath)
			if err == nil {
				r.Close()
				return nil
			}
			if fault.CodeOf(err) != fault.NotFound && !errors.Is(err, index.ErrOutdated) {
				return err
			}
			if errors.Is(err, index.ErrOutdated) {
				// A client that gives up on the server meanwhile stops
				// the upgrade, which then starts again at the next start.
				s.front.Note(fmt.Sprintf("upgrading the index %s before serving, once; on a large library this takes a minute or more (if the client gives up waiting, run `grimoire sync` once in a terminal)", s.set.DBPath))
			}
		}
		w, err := index.OpenWriter(ctx, s.set.DBPath, command)
		if err == nil {
			w.Close()
			continue
		}
		if fault.CodeOf(err) != fault.Conflict {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Explain returns err as a fault.Damaged error naming the index when
// SQLite reported corruption anywhere in its chain, so that every command
// says the same thing of a damaged page; other errors come back unchanged.
func (s *Service) Explain(err error) error {
	return index.ExplainDamage(err, s.set.DBPath)
}
