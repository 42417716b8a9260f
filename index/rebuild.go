package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model"
)

// A rebuild replaces an index (damaged, usually) with one built again from
// the library, reusing what the old one still holds. It runs in stages,
// each of which a crash may cut short and a rerun resumes:
//
//  1. A new index is made beside the old one (<db>.rebuild), and what can
//     be read of the old one is copied into its salvage tables. A crash
//     here restarts the salvage; the old index is untouched.
//  2. The old index (with its -wal and -shm) is renamed aside, to a name
//     recorded in stage 1, and the new one takes its place.
//  3. The caller syncs the new index; ingest reuses the salvage for every
//     chunk that comes out of the same book with the same heading and
//     text. FinishRebuild then drops the salvage.
//
// From stage 1 until FinishRebuild, other writers are refused with a hint
// to run the rebuild again.

const (
	rebuildSuffix = ".rebuild"
	rebuildKey    = "rebuild"
)

// rebuildState is kept in the new index's meta while a rebuild runs.
type rebuildState struct {
	From     string    `json:"from"`
	Aside    string    `json:"aside,omitempty"`
	Started  time.Time `json:"started"`
	Salvaged bool      `json:"salvaged"`
	// Damaged says whether the old index failed its check or had rows
	// that could not be read.
	Damaged bool `json:"damaged"`
	// Vectors and Contexts are the old index's stamps: salvaged vectors
	// are reused only for the same model.
	Vectors  *model.Stamp        `json:"vectors,omitempty"`
	Contexts *model.ContextStamp `json:"contexts,omitempty"`
}

func rebuildUnfinished(abs string) error {
	return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("a rebuild of index %s is unfinished", abs)}).
		WithHint("run `grimoire rebuild` to finish it")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// Rebuild starts the rebuild of the index at path, or resumes one that was
// cut short, and returns the writer of the new index, holding the salvage.
// The caller runs a sync with it, then FinishRebuild, then Close. A rebuild
// never deletes the old index: it is renamed beside the new one.
func Rebuild(ctx context.Context, path, holder string) (*Writer, error) {
	abs, lock, err := lockIndex(path, holder)
	if err != nil {
		return nil, err
	}
	w, err := rebuild(ctx, abs, lock, holder)
	if err != nil {
		lock.release(nil)
		return nil, err
	}
	return w, nil
}

func rebuild(ctx context.Context, abs string, lock *fileLock, holder string) (*Writer, error) {
	tmp := abs + rebuildSuffix
	if !exists(tmp) && !exists(abs) {
		return nil, (&fault.Error{Code: fault.NotFound, Msg: "no index at " + abs + " to rebuild"}).
			WithHint("run `grimoire sync` to build it")
	}
	inPlace := false
	if exists(abs) {
		// A writer whose lock file was deleted would go on writing the old
		// index once it is set aside: refuse while one runs.
		rec, running, rebuilding := peek(ctx, abs)
		if running && otherWriterRuns(rec, lock.id) {
			return nil, lockedError(abs, rec.LockHolder)
		}
		inPlace = rebuilding && !exists(tmp)
	}
	if inPlace {
		return openWriter(ctx, abs, lock, lock.id, holder, writerOptions{rebuilding: true})
	}
	st, err := salvageInto(ctx, tmp, abs, lock, holder)
	if err != nil {
		return nil, err
	}
	if err := swapIn(tmp, abs, st.Aside); err != nil {
		return nil, err
	}
	return openWriter(ctx, abs, lock, lock.id, holder, writerOptions{rebuilding: true})
}

// peek reads, as far as it can, the writer recorded in the index at abs,
// and whether the index is a new one whose rebuild stopped in stage 3.
func peek(ctx context.Context, abs string) (rec writerRecord, hasWriter, rebuilding bool) {
	db, err := openSQL(dsn(abs, "mode=ro", "_pragma=busy_timeout(10000)"))
	if err != nil {
		return rec, false, false
	}
	defer db.Close()
	rec, hasWriter, _ = readWriterRecord(ctx, db)
	var v string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, rebuildKey).Scan(&v)
	return rec, hasWriter, err == nil && v != ""
}

// salvageInto makes (or reopens) the new index at tmp and, unless an
// earlier run finished that, salvages the old index at from into it. It
// returns the rebuild's state.
func salvageInto(ctx context.Context, tmp, from string, lock *fileLock, holder string) (rebuildState, error) {
	t, err := openWriter(ctx, tmp, nil, lock.id, holder, writerOptions{rebuilding: true})
	if err != nil {
		return rebuildState{}, fmt.Errorf("rebuild: %w", err)
	}
	defer t.Close()
	st, ok, err := t.rebuildState(ctx)
	if err != nil || (ok && st.Salvaged) {
		return st, err
	}
	st = rebuildState{From: from, Started: time.Now().UTC()}
	if err := t.Update(ctx, func(tx *Tx) error { return tx.resetSalvage(ctx) }); err != nil {
		return st, fmt.Errorf("rebuild: prepare the salvage: %w", err)
	}
	if err := salvage(ctx, from, t, &st); err != nil {
		return st, err
	}
	st.Salvaged = true
	st.Aside = asideName(from, st)
	return st, t.setRebuildState(ctx, st)
}

// asideName chooses the name the old index is kept under: dated, and
// never one that is taken (two rebuilds may start within a second).
func asideName(from string, st rebuildState) string {
	kind := ".replaced-"
	if st.Damaged {
		kind = ".damaged-"
	}
	base := from + kind + st.Started.Local().Format("20060102-150405")
	name := base
	for i := 2; exists(name) || exists(name+"-wal") || exists(name+"-shm"); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

// swapIn sets the old index aside and puts the new one in its place. The
// -wal goes first: an index file left without it is only older, while a
// -wal left beside a new index file would be replayed into it.
func swapIn(tmp, abs, aside string) error {
	if exists(tmp + "-wal") {
		return fmt.Errorf("rebuild: %s-wal is still there after the new index was closed", tmp)
	}
	for _, ext := range []string{"-wal", "-shm", ""} {
		if !exists(abs + ext) {
			continue
		}
		if exists(aside + ext) {
			// Moved by a run cut short; what is here now was made since
			// by opening the old index read-only: an empty log, and
			// shared memory SQLite rebuilds at will.
			if fi, err := os.Stat(abs + ext); ext == "" || (ext == "-wal" && (err != nil || fi.Size() > 0)) {
				return fmt.Errorf("rebuild: both %s and %s exist; move one away by hand", abs+ext, aside+ext)
			}
			if err := os.Remove(abs + ext); err != nil {
				return fmt.Errorf("rebuild: set the old index aside: %w", err)
			}
			continue
		}
		if err := os.Rename(abs+ext, aside+ext); err != nil {
			return fmt.Errorf("rebuild: set the old index aside: %w", err)
		}
	}
	if err := os.Rename(tmp, abs); err != nil {
		return fmt.Errorf("rebuild: put the new index in place: %w", err)
	}
	return nil
}

func (d *DB) rebuildState(ctx context.Context) (rebuildState, bool, error) {
	var st rebuildState
	v, err := d.Meta(ctx, rebuildKey)
	if err != nil || v == "" {
		return st, false, err
	}
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return st, false, fmt.Errorf("read the rebuild's state: %w", err)
	}
	return st, true, nil
}

func (w *Writer) setRebuildState(ctx context.Context, st rebuildState) error {
	b, _ := json.Marshal(st)
	return w.SetMeta(ctx, rebuildKey, string(b))
}

// Salvaging reports whether this writer holds a rebuild's salvage, which
// Salvaged draws on.
func (w *Writer) Salvaging() bool { return w.salvage != nil }

// RebuildReport says what a rebuild kept of the old index.
type RebuildReport struct {
	// Aside is where the old index was kept.
	Aside   string `json:"aside"`
	Damaged bool   `json:"damaged"`
	Books   int    `json:"books"`
	Chunks  int    `json:"chunks"`
	// Reused counts come from the old index; the rest were computed anew.
	ContextsReused  int `json:"contexts_reused"`
	VectorsReused   int `json:"vectors_reused"`
	SummariesReused int `json:"summaries_reused"`
	// OCRPagesReused counts the scanned pages whose text OCR read for
	// the old index.
	OCRPagesReused int `json:"ocr_pages_reused"`
	Exclusions     int `json:"exclusions"`
	// VectorsOf names the old index's embedding model when its vectors
	// could not be reused (another model is configured).
	VectorsOf string `json:"vectors_not_reused_from,omitempty"`
}

// FinishRebuild ends a rebuild once its sync is done: it counts what was
// reused, drops the salvage, and lets other writers in again.
func (w *Writer) FinishRebuild(ctx context.Context) (RebuildReport, error) {
	st, ok, err := w.rebuildState(ctx)
	if err != nil {
		return RebuildReport{}, err
	}
	if !ok {
		return RebuildReport{}, fmt.Errorf("finish rebuild: no rebuild under way in %s", w.path)
	}
	rep, err := w.reuseCounts(ctx)
	if err != nil {
		return rep, err
	}
	rep.Aside, rep.Damaged = st.Aside, st.Damaged
	if cur, ok, err := w.Stamp(ctx); err == nil && st.Vectors != nil && (!ok || cur != *st.Vectors) {
		rep.VectorsOf = st.Vectors.String()
	}
	err = w.Update(ctx, func(t *Tx) error {
		// Pages of books the library no longer holds: no book's removal
		// will clear them.
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM ocr_page WHERE hash NOT IN (SELECT hash FROM book)`); err != nil {
			return fmt.Errorf("finish rebuild: %w", err)
		}
		for _, q := range dropSalvage {
			if _, err := t.tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("finish rebuild: %w", err)
			}
		}
		_, err := t.tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, rebuildKey)
		return err
	})
	if err == nil {
		w.salvage = nil
	}
	return rep, err
}
