//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// TestZoteroScannedAttachment: a Zotero item whose second attachment is a
// scan is read by OCR as a scanned PDF on its own is: a search finds the
// scan's words, cited to the item's page that holds them.
func TestZoteroScannedAttachment(t *testing.T) {
	t.Parallel()
	needTesseract(t)
	dir := t.TempDir()
	text := filepath.Join(dir, "letter.pdf")
	scan := filepath.Join(dir, "logbook.pdf")
	if err := os.WriteFile(text, textPDF([][]string{{"A covering letter about the harbour survey."}, {"Its second page thanks the pilots."}}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scan, testbook.ScannedPDF(t, testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)}), 0o644); err != nil {
		t.Fatal(err)
	}
	zdir := filepath.Join(dir, "Zotero")
	zoterotest.Build(t, zdir, zoterotest.Library{Items: []zoterotest.Item{{
		Key: "LOGBOOK1", Type: "manuscript", Fields: map[string]string{"title": "The Keeper's Logbook"},
		Attachments: []zoterotest.Attachment{{Key: "LETTER01", File: text}, {Key: "SCAN0001", Title: "Scan", File: scan}},
	}}})
	ok(t, zdir, "--library", zdir, "sync")
	h, found := hitOn(t, zdir, "lighthouse keeper seventeen herons breakwater", "zotero.sqlite#LOGBOOK1", 3)
	if !found || !strings.Contains(h.Text, "seventeen herons") || !strings.HasPrefix(h.Chapter, "Scan") {
		t.Errorf("hit %+v, want the scan's words, in its chapter, cited to the item's page 3", h)
	}
}
