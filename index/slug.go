package index

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

const maxSlugLen = 60

// Slugify turns a title into a lowercase, hyphenated name: diacritics are
// folded ("Candide, ou l'Optimisme" → "candide-ou-l-optimisme"), letters of
// every script are kept, anything else becomes a hyphen. It returns "book"
// for a title with no letters or digits.
func Slugify(title string) string {
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	folded, _, err := transform.String(t, title)
	if err != nil {
		folded = title
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(folded) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > maxSlugLen {
		cut := s[:maxSlugLen]
		if i := strings.LastIndexByte(cut, '-'); i > maxSlugLen/2 {
			cut = cut[:i]
		}
		// Never cut inside a multi-byte rune.
		for len(cut) > 0 && !utf8RuneStart(s, len(cut)) {
			cut = cut[:len(cut)-1]
		}
		s = strings.TrimRight(cut, "-")
	}
	if s == "" {
		return "book"
	}
	return s
}

func utf8RuneStart(s string, i int) bool { return i >= len(s) || s[i]&0xC0 != 0x80 }

// uniqueSlug returns base, or base-2, base-3 … whichever no other book
// (other than self) uses.
func (t *Tx) uniqueSlug(ctx context.Context, base string, self int64) (string, error) {
	for n := 1; ; n++ {
		s := base
		if n > 1 {
			s = fmt.Sprintf("%s-%d", base, n)
		}
		var id int64
		err := t.tx.QueryRowContext(ctx, `SELECT id FROM book WHERE slug = ?`, s).Scan(&id)
		if err == sql.ErrNoRows || (err == nil && id == self) {
			return s, nil
		}
		if err != nil {
			return "", fmt.Errorf("choose a slug for %q: %w", base, err)
		}
	}
}

func fileStem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
