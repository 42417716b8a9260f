// Package ocr recognises the text of page images with the tesseract
// command: it finds the command, lists the languages it has data for, and
// turns one grayscale page into text (paragraphs, lines, words) with its
// mean confidence, from tesseract's TSV output. Pages scanned sideways or
// upside down are turned by tesseract's orientation detection.
package ocr
