package markdown

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes Parse fail, panic, emit invalid UTF-8
// or an empty block, or point outside the file. Inputs that once found a bug
// live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.md"))
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"",
		"# T\n\n## A\n\ntext\n",
		"---\ntitle: x\n---\n",
		"+++\ntitle = 1\n+++\nx",
		"---\n---\n---\n",
		"\ufeff\r\n# x\r\n\r\n- a\r\n  - b\r\n",
		"> # q\n> - a\n>     code\n",
		"| a |\n|---|\n| b |\n",
		"<div>\n<script>x</script>\n</div>\n",
		"x &#xD800; &#99999999; &amp \\",
		"```\n# a\n",
		"- - - x\n",
		"\xff\xfe\x00#\x00 \x00x",
		"Setext\n===\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(context.Background(), data)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		checkInvariants(t, d, data)
	})
}
