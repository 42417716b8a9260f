package roman

import (
	"strings"
	"testing"
)

func TestValue(t *testing.T) {
	tests := map[string]int{
		"I": 1, "IV": 4, "IX": 9, "XIV": 14, "XL": 40, "XC": 90, "CD": 400, "MCMXCIX": 1999,
		"MMMCMXCIX": 3999, "xii": 12, "XXVIII": 28, "cxxxv": 135,
		"": 0, "IIII": 0, "VV": 0, "IC": 0, "MIX": 1009, "Ii": 0, "ABC": 0, "IIV": 0, "MMMM": 0,
		"civil": 0, "did": 0, "12": 0,
	}
	for s, want := range tests {
		if got := Value(s); got != want {
			t.Errorf("Value(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestFormatReadsBack(t *testing.T) {
	for n := 1; n <= 3999; n++ {
		s := Format(n)
		if Value(s) != n || Value(strings.ToLower(s)) != n {
			t.Fatalf("Format(%d) = %q reads back as %d", n, s, Value(s))
		}
	}
	for _, n := range []int{0, -1, 4000} {
		if s := Format(n); s != "" {
			t.Errorf("Format(%d) = %q", n, s)
		}
	}
}

func FuzzValue(f *testing.F) {
	for _, s := range []string{"XIV", "mcmxcix", "Ii", "civil", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Value(s)
		if n < 0 || n > 3999 {
			t.Fatalf("Value(%q) = %d", s, n)
		}
		if n > 0 && !strings.EqualFold(Format(n), s) {
			t.Errorf("Value(%q) = %d, written %q", s, n, Format(n))
		}
	})
}
