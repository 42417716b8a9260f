package retrieve

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/plural"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
)

// StatusView is the state of the library as `grimoire status --json` and
// library_status show it.
type StatusView struct {
	// IndexExists is false before the first sync has made the index;
	// every count is then zero.
	IndexExists    bool   `json:"index_exists"`
	Books          int    `json:"books"`
	Files          int    `json:"files"`
	Chunks         int    `json:"chunks"`
	Pending        int    `json:"pending"`
	Parsed         int    `json:"parsed"`
	Ready          int    `json:"ready"`
	Failed         int    `json:"failed"`
	Embedded       int    `json:"embedded"`
	Contextualized int    `json:"contextualized"`
	Exclusions     int    `json:"exclusions"`
	EmbeddingModel string `json:"embedding_model"`
	// ContextModel names the language model and prompt version that wrote
	// the chunk contexts; empty when none did.
	ContextModel string `json:"context_model,omitempty"`
	// Reembedding is the model a `reindex --embeddings` is switching to.
	Reembedding string `json:"reembedding,omitempty"`
	// LastSync is the last finished run, or nil before the first.
	LastSync *library.Run      `json:"last_sync"`
	Failures []library.Failure `json:"failures"`
	// Held are removals held back for want of evidence that the files
	// are gone (an unmounted drive, a folder emptied at once).
	Held []library.Hold `json:"held"`
	// OCR are the books whose scanned pages wait for OCR (Waiting says
	// why: tesseract missing, with how to install it), are being read,
	// or were read with pages of low confidence.
	OCR []index.OCRBook `json:"ocr"`
	// UnsupportedFiles are the library's files that are no book grimoire
	// reads, as the last passes saw them; Unsupported counts them by
	// extension, most first.
	UnsupportedFiles int                   `json:"unsupported_files"`
	Unsupported      []library.Unsupported `json:"unsupported"`
	Library          []string              `json:"library"`
	DBPath           string                `json:"db_path"`
	DBBytes          int64                 `json:"db_bytes"`
	Writer           WriterView            `json:"writer"`
	// Watch is the running watcher's state; nil when none runs.
	Watch *index.WatchState `json:"watch"`
	// Zotero says, for each Zotero library in the library folders, which
	// database the last pass read it from and how old that was.
	Zotero []library.ZoteroRead `json:"zotero,omitempty"`
}

// WriterView says whether a process is writing the index right now.
type WriterView struct {
	Running bool      `json:"running"`
	PID     int       `json:"pid,omitempty"`
	Command string    `json:"command,omitempty"`
	Since   time.Time `json:"since,omitzero"`
	// Trouble is what the writer is failing at and retrying (a full
	// disk, a model server that is down), since TroubleSince; the next
	// try is at RetryAt.
	Trouble      string    `json:"trouble,omitempty"`
	TroubleSince time.Time `json:"trouble_since,omitzero"`
	RetryAt      time.Time `json:"retry_at,omitzero"`
}

// Status summarises the library. roots are the configured library folders.
func (l *Library) Status(ctx context.Context, roots []string) (StatusView, error) {
	s, err := l.DB.Status(ctx)
	if err != nil {
		return StatusView{}, err
	}
	v := StatusView{
		IndexExists: true, Books: s.Books, Files: s.Files, Chunks: s.Chunks, Pending: s.Pending, Parsed: s.Parsed, Ready: s.Ready,
		Failed: s.Failed, Embedded: s.Embedded, Contextualized: s.Contextualized, Exclusions: s.Exclusions,
		LastSync: s.LastRun, Failures: s.Failures, Library: nonNilStrings(roots), DBPath: l.DB.Path(), DBBytes: s.SizeBytes,
	}
	if v.Failures == nil {
		v.Failures = []library.Failure{}
	}
	v.Held = s.Held
	if v.Held == nil {
		v.Held = []library.Hold{}
	}
	v.OCR = s.OCR
	if v.OCR == nil {
		v.OCR = []index.OCRBook{}
	}
	v.Unsupported = s.Unsupported
	if v.Unsupported == nil {
		v.Unsupported = []library.Unsupported{}
	}
	for _, u := range v.Unsupported {
		v.UnsupportedFiles += u.Files
	}
	if s.Stamp != nil {
		v.EmbeddingModel = s.Stamp.Provider + "/" + s.Stamp.Model
	}
	if cs, ok, err := l.DB.ContextStamp(ctx); err == nil && ok {
		v.ContextModel = cs.Provider + "/" + cs.Model + " (prompts " + cs.Prompt + ")"
	}
	if ns, ok, err := l.DB.NextStamp(ctx); err == nil && ok {
		v.Reembedding = ns.Provider + "/" + ns.Model
	}
	if reads, err := l.DB.ZoteroReads(ctx); err == nil {
		for _, r := range reads {
			if subtree.InAny(r.Dir, roots) {
				v.Zotero = append(v.Zotero, r)
			}
		}
	}
	if h, running := l.DB.Writer(ctx); running {
		v.Writer = WriterView{Running: true, PID: h.PID, Command: h.Command, Since: h.Started,
			Trouble: h.Trouble, TroubleSince: h.TroubleSince, RetryAt: h.RetryAt}
		// A watch state is only current while its process holds the lock.
		if ws, err := l.DB.WatchState(ctx); err == nil && ws != nil && ws.PID == h.PID {
			v.Watch = ws
		}
	}
	return v, nil
}

// unsupportedShown is how many extensions UnsupportedSummary names.
const unsupportedShown = 5

// UnsupportedSummary says what the library holds that grimoire does not
// read, the most common extensions first: "15 files: 12 .cbz, 2 .cbr,
// 1 .jpg", or "" when there is nothing.
func (v StatusView) UnsupportedSummary() string {
	if v.UnsupportedFiles == 0 {
		return ""
	}
	var parts []string
	rest, kinds := 0, 0
	for i, u := range v.Unsupported {
		if i >= unsupportedShown {
			rest += u.Files
			kinds++
			continue
		}
		name := u.Extension
		if name == "" {
			name = "without an extension"
		}
		parts = append(parts, plural.Grouped(u.Files)+" "+name)
	}
	if kinds > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s", plural.Grouped(rest), plural.Count(kinds, "other extension")))
	}
	return plural.Count(v.UnsupportedFiles, "file") + ": " + strings.Join(parts, ", ")
}

// ZoteroLine says which database a pass read a Zotero library from and
// how old what it read was: "Zotero library ~/Zotero: 120 items, read
// 2026-12-06 14:05 UTC from a copy of zotero.sqlite taken while Zotero was
// running, as it was at 2026-12-06 14:02 UTC".
func ZoteroLine(r library.ZoteroRead) string {
	const minute = "2006-01-02 15:04 UTC"
	what := "a copy of " + r.From
	switch {
	case r.Why != "":
		what = "its backup " + r.From
	case r.Locked:
		what += " taken while Zotero was running"
	}
	line := fmt.Sprintf("Zotero library %s: %s, read %s from %s, as it was at %s", r.Dir, plural.Count(r.Items, "item"),
		r.ReadAt.UTC().Format(minute), what, r.DataTime.UTC().Format(minute))
	if r.Why != "" {
		line += " (" + r.Why + ")"
	}
	return line
}
