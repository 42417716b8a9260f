package text

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func utf16LE(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			out = append(out, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func swap16(b []byte) []byte {
	out := make([]byte, len(b))
	for i := 0; i+1 < len(b); i += 2 {
		out[i], out[i+1] = b[i+1], b[i]
	}
	return out
}

func TestDecode(t *testing.T) {
	utf16Text := "Caf\u00e9 \u201cquoted\u201d \U0001F600\r\nnext line"
	koi8 := []byte("Title: Test\nCharacter set encoding: KOI8-R\n\n")
	koi8 = append(koi8, 0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4, '\n') // "Привет"

	tests := []struct {
		name string
		in   []byte
		want string
		enc  string
	}{
		{"utf-8", []byte("Caf\u00e9\n"), "Caf\u00e9\n", "utf-8"},
		{"utf-8 bom", []byte("\xEF\xBB\xBFCaf\u00e9\n"), "Caf\u00e9\n", "utf-8"},
		{"crlf", []byte("one\r\ntwo\r\n"), "one\ntwo\n", "utf-8"},
		{"lone cr", []byte("one\rtwo\r\rthree"), "one\ntwo\n\nthree", "utf-8"},
		{"mixed endings", []byte("a\r\nb\rc\nd"), "a\nb\nc\nd", "utf-8"},
		{"utf-16le bom", utf16LE(utf16Text, true), "Caf\u00e9 \u201cquoted\u201d \U0001F600\nnext line", "utf-16le"},
		{"utf-16be bom", append([]byte{0xFE, 0xFF}, swap16(utf16LE(utf16Text, false))...), "Caf\u00e9 \u201cquoted\u201d \U0001F600\nnext line", "utf-16be"},
		{"utf-16le no bom", utf16LE("Plain ASCII text, a line of it.\n", false), "Plain ASCII text, a line of it.\n", "utf-16le"},
		{"utf-16be no bom", swap16(utf16LE("Plain ASCII text, a line of it.\n", false)), "Plain ASCII text, a line of it.\n", "utf-16be"},
		{"utf-32le bom", []byte{0xFF, 0xFE, 0, 0, 'h', 0, 0, 0, 0xE9, 0, 0, 0}, "h\u00e9", "utf-32le"},
		{"utf-32be bom", []byte{0, 0, 0xFE, 0xFF, 0, 0, 0, 'h', 0, 0, 0, 0xE9}, "h\u00e9", "utf-32be"},
		{"windows-1252 quotes", []byte("\x93Hello,\x94 she said \x96 caf\xe9 \x80 5\x85"), "\u201cHello,\u201d she said \u2013 caf\u00e9 \u20ac 5\u2026", "windows-1252"},
		{"latin-1", []byte("Candide \xe9tait \xe0 Paris, \xe7a va. \xab Oui \xbb"), "Candide \u00e9tait \u00e0 Paris, \u00e7a va. \u00ab Oui \u00bb", "windows-1252"},
		{"utf-8 with stray 1252 bytes", []byte("caf\u00e9 na\u00efve r\u00e9sum\u00e9 \x93odd\x94"), "caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u201codd\u201d", "utf-8+windows-1252"},
		{"bom with stray byte", []byte("\xEF\xBB\xBFit\x92s"), "it\u2019s", "utf-8+windows-1252"},
		{"declared koi8-r", koi8, "Title: Test\nCharacter set encoding: KOI8-R\n\n\u041f\u0440\u0438\u0432\u0435\u0442\n", "koi8-r"},
		{"declared utf-8 but latin-1", []byte("Character set encoding: UTF-8\n\ncaf\xe9\n"), "Character set encoding: UTF-8\n\ncaf\u00e9\n", "windows-1252"},
		{"declared latin-1", []byte("Character set encoding: ISO Latin-1\n\ncaf\xe9\n"), "Character set encoding: ISO Latin-1\n\ncaf\u00e9\n", "windows-1252"},
		{"stray controls removed", []byte("a\x1b[1mbold\x1b[0m" + strings.Repeat(" padding", 60) + "\x1a"), "a[1mbold[0m" + strings.Repeat(" padding", 60), "utf-8"},
		{"tab and form feed kept", []byte("a\tb\fc"), "a\tb\fc", "utf-8"},
		{"inner bom removed", []byte("one\n\xEF\xBB\xBFtwo"), "one\ntwo", "utf-8"},
		{"empty", nil, "", "utf-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, enc, err := Decode(tc.in)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got != tc.want {
				t.Errorf("text = %q, want %q", got, tc.want)
			}
			if enc != tc.enc {
				t.Errorf("encoding = %q, want %q", enc, tc.enc)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8")
			}
		})
	}
}

func TestDecodeNeverInventsReplacementCharacters(t *testing.T) {
	// Every byte value except the C1 gaps decodes to a real character.
	var all []byte
	for i := 0x20; i < 0x100; i++ {
		if i == 0x7F || i == 0x81 || i == 0x8D || i == 0x8F || i == 0x90 || i == 0x9D {
			continue
		}
		all = append(all, byte(i))
	}
	got, enc, err := Decode(all)
	if err != nil {
		t.Fatal(err)
	}
	if enc != "windows-1252" {
		t.Errorf("encoding = %q", enc)
	}
	if strings.ContainsRune(got, utf8.RuneError) {
		t.Errorf("U+FFFD in %q", got)
	}
	if n := utf8.RuneCountInString(got); n != len(all) {
		t.Errorf("%d characters from %d bytes", n, len(all))
	}
}

func TestDecodeBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	noNUL := make([]byte, 4096)
	for i := range noNUL {
		noNUL[i] = byte(1 + rng.UintN(255))
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"gzip header", []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 'x', 'y'}},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{"random", random},
		{"random without NUL", noNUL},
		{"control soup", []byte(strings.Repeat("ab\x01\x02\x03", 100))},
		{"utf-16 with NUL characters", utf16LE("text\x00\x00\x00\x00 more", true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decode(tc.in)
			if !errors.Is(err, ErrBinary) {
				t.Fatalf("err = %v, want ErrBinary", err)
			}
			if !strings.Contains(err.Error(), "binary data, not text") {
				t.Errorf("message %q does not say what is wrong", err)
			}
		})
	}
}

func TestSniffUTF16IgnoresText(t *testing.T) {
	if _, ok := sniffUTF16([]byte("An ordinary line of text, long enough to sniff.")); ok {
		t.Error("ASCII text taken for UTF-16")
	}
}
