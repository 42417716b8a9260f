package doc

import "image"

// PageImage is one page of a paged format drawn for OCR, whichever format
// drew it.
type PageImage struct {
	Page  int // 1-based
	Image *image.Gray
	// DPI is the resolution drawn at: the one asked for, lower for a page
	// too large to draw at it.
	DPI float64
}
