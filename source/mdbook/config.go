package mdbook

import (
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// config is what grimoire reads of a book.toml: its [book] table.
type config struct {
	Title    string
	Authors  []string
	Language string
	// Src is the folder of the book's sources, relative to book.toml's;
	// "src" when unset.
	Src string
}

// parseConfig reads a book.toml. A file that does not decode gives what
// mdBook would take for an empty one: sources in "src". An author given
// as a string rather than a list is taken too.
func parseConfig(data []byte) config {
	var raw struct {
		Book map[string]any `toml:"book"`
	}
	c := config{Src: "src"}
	if toml.Unmarshal(data, &raw) != nil {
		return c
	}
	str := func(k string) string {
		s, _ := raw.Book[k].(string)
		return strings.TrimSpace(s)
	}
	c.Title, c.Language = str("title"), str("language")
	if src := str("src"); src != "" {
		c.Src = src
	}
	switch a := raw.Book["authors"].(type) {
	case []any:
		for _, v := range a {
			if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
				c.Authors = append(c.Authors, strings.TrimSpace(s))
			}
		}
	case string:
		if s := strings.TrimSpace(a); s != "" {
			c.Authors = []string{s}
		}
	}
	return c
}
