package fault

import (
	"fmt"
	"testing"
)

func TestToolMessage(t *testing.T) {
	both := Errorf(NotFound, "no book %q", "mobi").WithHints("`grimoire list` shows the books", "list_books shows the books")
	tests := []struct {
		name      string
		err       error
		cli, tool string
	}{
		{"both hints", both,
			"no book \"mobi\" — `grimoire list` shows the books",
			"no book \"mobi\" — list_books shows the books"},
		{"wrapped", fmt.Errorf("outline: %w", both),
			"outline: no book \"mobi\" — `grimoire list` shows the books",
			"outline: no book \"mobi\" — list_books shows the books"},
		{"a hint for both", Errorf(Invalid, "limit must be between 1 and 50").WithHint("ask for fewer"),
			"limit must be between 1 and 50 — ask for fewer",
			"limit must be between 1 and 50 — ask for fewer"},
		{"a tool hint only", Errorf(Invalid, "bad").WithHints("", "call list_books"),
			"bad",
			"bad — call list_books"},
		{"not ours", fmt.Errorf("disk full"), "disk full", "disk full"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.cli {
				t.Errorf("Error() = %q, want %q", got, tc.cli)
			}
			if got := ToolMessage(tc.err); got != tc.tool {
				t.Errorf("ToolMessage = %q, want %q", got, tc.tool)
			}
		})
	}
}
