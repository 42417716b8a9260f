package libfile

import (
	"path/filepath"
	"testing"
)

// reserved tells a name Windows keeps for a device from a path that
// leaves the library, which must stay ErrOutside.
func TestReserved(t *testing.T) {
	abs, err := filepath.Abs("x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"CON", true},
		{filepath.Join("shelf", "aux.md"), true},
		{"..", false},
		{filepath.Join("..", "CON"), false},
		{filepath.Join("shelf", "..", "..", "x"), false},
		{abs, false},
		{"C:CON", false},
		{"", false},
	} {
		if got := reserved(tc.rel); got != tc.want {
			t.Errorf("reserved(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}
