package index

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/grimoire-search/grimoire/library"
)

// LowConfidence is the mean word confidence (0 to 100) under which a
// recognised page is flagged in status: its text is likely to be wrong in
// places.
const LowConfidence = 60

// OCRPage is the text recognised on one scanned page.
type OCRPage struct {
	Page       int // 1-based
	Text       string
	Words      int
	Confidence float64
}

// OCRBook is a book with scanned pages, as status shows it: waiting for
// OCR, under way, or done with pages of low confidence.
type OCRBook struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	// Pages is the number of scanned pages; Done how many are recognised.
	Pages int `json:"pages"`
	Done  int `json:"done"`
	// Waiting says why OCR waits (no tesseract); empty while it is due or
	// under way, and once the book is done.
	Waiting string `json:"waiting,omitempty"`
	// LowConfidence are the pages recognised with a mean confidence under
	// LowConfidence.
	LowConfidence []int `json:"low_confidence,omitempty"`
	// Ready: the book is done and answers searches.
	Ready bool `json:"ready"`
}

// OCRPages returns the pages of content h recognised so far, by page.
func (d *DB) OCRPages(ctx context.Context, h library.Hash) (map[int]OCRPage, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT page, text, words, confidence FROM ocr_page WHERE hash = ?`, h)
	if err != nil {
		return nil, fmt.Errorf("recognised pages of %s: %w", h.Short(), err)
	}
	defer rows.Close()
	out := map[int]OCRPage{}
	for rows.Next() {
		var p OCRPage
		if err := rows.Scan(&p.Page, &p.Text, &p.Words, &p.Confidence); err != nil {
			return nil, fmt.Errorf("recognised pages of %s: %w", h.Short(), err)
		}
		out[p.Page] = p
	}
	return out, rows.Err()
}

// StoreOCRPage stores the text recognised on a page of content h, in a
// transaction of its own: once it returns, the page is never read again.
func (w *Writer) StoreOCRPage(ctx context.Context, h library.Hash, p OCRPage) error {
	_, err := w.exec(ctx, `INSERT OR REPLACE INTO ocr_page(hash, page, text, words, confidence) VALUES (?, ?, ?, ?, ?)`,
		h, p.Page, p.Text, p.Words, p.Confidence)
	if err != nil {
		return fmt.Errorf("store page %d recognised of %s: %w", p.Page, h.Short(), err)
	}
	return nil
}

// NeedOCR records that content h has pages scanned pages still to be
// recognised; waiting says why they wait ("" when OCR is due). The book
// stays pending, and BooksToIngest hands it out after the others.
func (w *Writer) NeedOCR(ctx context.Context, h library.Hash, pages int, waiting string) error {
	if _, err := w.exec(ctx, needOCR, h, pages, waiting); err != nil {
		return fmt.Errorf("record that %s needs OCR: %w", h.Short(), err)
	}
	return nil
}

const needOCR = `INSERT INTO ocr_book(hash, pages, waiting) VALUES (?, ?, ?)
ON CONFLICT (hash) DO UPDATE SET pages = excluded.pages, waiting = excluded.waiting`

// NeedOCR records, inside the transaction that stores the book parsed
// without them, that content h has scanned pages that OCR cannot read
// yet, and why. The book goes on to be ready, and ReadyWithScansUnread
// hands it out again.
func (t *Tx) NeedOCR(ctx context.Context, h library.Hash, pages int, waiting string) error {
	if _, err := t.tx.ExecContext(ctx, needOCR, h, pages, waiting); err != nil {
		return fmt.Errorf("record that %s needs OCR: %w", h.Short(), err)
	}
	return nil
}

// ReadyWithScansUnread returns the ready books that have scanned pages
// OCR has not read: indexed without them while OCR could not run, or
// being read now (a run cut short).
func (d *DB) ReadyWithScansUnread(ctx context.Context) ([]library.Book, error) {
	return d.queryBooks(ctx, `WHERE b.status = 'ready' AND EXISTS (SELECT 1 FROM ocr_book o WHERE o.hash = b.hash)
ORDER BY b.id`)
}

// OCRWaiting returns why content h waits for OCR, and whether it does.
func (d *DB) OCRWaiting(ctx context.Context, h library.Hash) (string, bool, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT waiting FROM ocr_book WHERE hash = ?`, h)
	if err != nil {
		return "", false, fmt.Errorf("OCR state of %s: %w", h.Short(), err)
	}
	defer rows.Close()
	if !rows.Next() {
		return "", false, rows.Err()
	}
	var waiting string
	err = rows.Scan(&waiting)
	return waiting, err == nil, err
}

// OCRDone records, inside the transaction that stores the book parsed,
// that content h has all its scanned pages recognised.
func (t *Tx) OCRDone(ctx context.Context, h library.Hash) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM ocr_book WHERE hash = ?`, h); err != nil {
		return fmt.Errorf("record OCR of %s done: %w", h.Short(), err)
	}
	return nil
}

// CheapPending reports whether a book is pending or parsed that needs no
// OCR: OCR gives way to it.
func (d *DB) CheapPending(ctx context.Context) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `
SELECT EXISTS (SELECT 1 FROM book b WHERE b.status IN ('pending', 'parsed')
	AND NOT EXISTS (SELECT 1 FROM ocr_book o WHERE o.hash = b.hash))`).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look for books to ingest: %w", err)
	}
	return n == 1, nil
}

// OCRBooks returns the books waiting for OCR or under way, and the books
// done with pages of low confidence, by path.
func (d *DB) OCRBooks(ctx context.Context) ([]OCRBook, error) {
	rows, err := d.db.QueryContext(ctx, `
WITH pages AS (
	SELECT hash, count(*) AS done,
		json_group_array(page) FILTER (WHERE confidence < ?) AS low
	FROM (SELECT * FROM ocr_page ORDER BY hash, page) GROUP BY hash
)
SELECT coalesce((SELECT min(f.path) FROM file f WHERE f.hash = b.hash), b.origin_path), b.title,
	coalesce(o.pages, p.done, 0), coalesce(p.done, 0), coalesce(o.waiting, ''), coalesce(p.low, '[]'), b.status = 'ready'
FROM book b
LEFT JOIN ocr_book o ON o.hash = b.hash
LEFT JOIN pages p ON p.hash = b.hash
WHERE (o.hash IS NOT NULL AND b.status != 'failed') OR (p.low IS NOT NULL AND p.low != '[]')
ORDER BY 1`, LowConfidence)
	if err != nil {
		return nil, fmt.Errorf("books read by OCR: %w", err)
	}
	defer rows.Close()
	var out []OCRBook
	for rows.Next() {
		var b OCRBook
		var low string
		if err := rows.Scan(&b.Path, &b.Title, &b.Pages, &b.Done, &b.Waiting, &low, &b.Ready); err != nil {
			return nil, fmt.Errorf("books read by OCR: %w", err)
		}
		json.Unmarshal([]byte(low), &b.LowConfidence)
		out = append(out, b)
	}
	return out, rows.Err()
}

// OCRWait changes why content h waits for OCR.
func (w *Writer) OCRWait(ctx context.Context, h library.Hash, why string) error {
	if _, err := w.exec(ctx, `UPDATE ocr_book SET waiting = ? WHERE hash = ?`, why, h); err != nil {
		return fmt.Errorf("record why %s waits for OCR: %w", h.Short(), err)
	}
	return nil
}
