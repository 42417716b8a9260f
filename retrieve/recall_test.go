package retrieve

import (
	"context"
	"strings"
	"testing"
)

// TestRecallGates: what the prompt hook adds under each gate. A question
// in a passage's words gets it under every gate but off; a prompt of
// common words that a passage happens to hold gets nothing but under the
// loose gate; a prompt naming something no book holds gets nothing but
// under the loose gate.
func TestRecallGates(t *testing.T) {
	t.Parallel()
	w := newIndex(t, shipLibrary())
	lib := &Library{DB: &w.DB, Searcher: New(&w.DB, nil, Options{Mode: Hybrid})}
	ctx := context.Background()
	for _, tc := range []struct {
		prompt string
		// spoke lists the gates that add a passage.
		spoke string
	}{
		{"Why did the harpooner sharpen his iron and spoke of the white whale?", "strict normal loose"},
		{"good work today, captain", "loose"},
		{"why did the harpooner sharpen his iron and spoke of the white whale on a whetstone?", "loose"},
	} {
		var spoke []string
		for _, name := range GateNames() {
			g, err := GateNamed(name)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := lib.Recall(ctx, tc.prompt, g, 3, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) > 3 {
				t.Errorf("%q under %s: %d passages, want at most 3", tc.prompt, name, len(hits))
			}
			if len(hits) > 0 {
				spoke = append(spoke, name)
				if strings.Contains(tc.prompt, "harpooner") && !strings.Contains(hits[0].Text, "harpooner sharpened") {
					t.Errorf("%q under %s: first passage %q", tc.prompt, name, hits[0].Text)
				}
			}
		}
		if got := strings.Join(spoke, " "); got != tc.spoke {
			t.Errorf("%q: spoke under %q, want %q", tc.prompt, got, tc.spoke)
		}
	}
	if _, err := GateNamed("lax"); err == nil || !strings.Contains(err.Error(), "strict, normal, loose, off") {
		t.Errorf("an unknown gate: %v", err)
	}
}
