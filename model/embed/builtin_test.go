package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func embedOne(t testing.TB, e *Builtin, text string) []float32 {
	t.Helper()
	vs, err := e.EmbedDocuments(context.Background(), []string{text})
	if err != nil {
		t.Fatalf("EmbedDocuments(%q): %v", text, err)
	}
	if len(vs) != 1 || len(vs[0]) != builtinDim {
		t.Fatalf("EmbedDocuments(%q): got %d vectors, first of len %d", text, len(vs), len(vs[0]))
	}
	return vs[0]
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func TestBuiltinInfo(t *testing.T) {
	info := NewBuiltin().Info()
	if info.Provider != "builtin" || info.Model != "hash-ngram-v2" || info.Dim != 512 || info.Prefix != "" {
		t.Errorf("Info() = %+v", info)
	}
}

func TestBuiltinNorm(t *testing.T) {
	e := NewBuiltin()
	tests := []struct {
		name string
		text string
		zero bool
	}{
		{"empty", "", true},
		{"punctuation only", " — ... !? ", true},
		{"combining marks only", "\u0301\u0308", true},
		{"stopwords only", "to be or not to be", false},
		{"one letter", "x", false},
		{"digits", "1984", false},
		{"english", "Vitamin D supplementation reduces the risk of fractures in elderly women.", false},
		{"chinese", "维生素D补充剂可降低老年妇女骨折的风险", false},
		{"japanese", "ビタミンDは骨折のリスクを下げる", false},
		{"korean", "비타민 D는 골절 위험을 줄인다", false},
		{"arabic", "فيتامين د يقلل من خطر الكسور", false},
		{"cyrillic", "Витамин D снижает риск переломов", false},
		{"greek", "Η βιταμίνη D μειώνει τον κίνδυνο καταγμάτων", false},
		{"mixed scripts", "DNA复制 and RNA转录", false},
		{"long token", strings.Repeat("abcdefghij", 1000), false},
		{"invalid utf-8", "caf\xe9 \xff\xfe bar", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := embedOne(t, e, tc.text)
			if tc.zero {
				if !isZero(v) {
					t.Errorf("want the zero vector, got norm %v", norm(v))
				}
				return
			}
			if n := norm(v); math.Abs(n-1) > 1e-5 {
				t.Errorf("norm = %v, want 1", n)
			}
		})
	}
}

func TestBuiltinDeterministic(t *testing.T) {
	e := NewBuiltin()
	texts := []string{
		"Microstructural development of human newborn cerebral white matter",
		"Résumé of the naïve café owner's coöperation",
		"维生素D补充剂",
		"IL-6 and TNF-α levels in sepsis",
	}
	want := make([][]float32, len(texts))
	for i, text := range texts {
		want[i] = embedOne(t, e, text)
	}
	// A fresh embedder, a batch in another order, and many goroutines sharing
	// one embedder must all give the same vectors bit for bit.
	check := func(t *testing.T, i int, got []float32) {
		t.Helper()
		for j := range got {
			if got[j] != want[i][j] {
				t.Fatalf("text %d: component %d = %v, want %v", i, j, got[j], want[i][j])
			}
		}
	}
	t.Run("new embedder", func(t *testing.T) {
		e2 := NewBuiltin()
		for i, text := range texts {
			check(t, i, embedOne(t, e2, text))
		}
	})
	t.Run("batch", func(t *testing.T) {
		rev := make([]string, len(texts))
		for i := range texts {
			rev[len(texts)-1-i] = texts[i]
		}
		vs, err := e.EmbedDocuments(context.Background(), rev)
		if err != nil {
			t.Fatal(err)
		}
		for i := range vs {
			check(t, len(texts)-1-i, vs[i])
		}
	})
	t.Run("query", func(t *testing.T) {
		for i, text := range texts {
			v, err := e.EmbedQuery(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			check(t, i, v)
		}
	})
	t.Run("goroutines", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for rep := 0; rep < 20; rep++ {
					for i, text := range texts {
						v, err := e.EmbedQuery(context.Background(), text)
						if err != nil {
							errs <- err
							return
						}
						for j := range v {
							if v[j] != want[i][j] {
								errs <- errors.New("vector differs under concurrency")
								return
							}
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}

func TestBuiltinFolding(t *testing.T) {
	e := NewBuiltin()
	tests := []struct{ a, b string }{
		{"résumé", "resume"},
		{"RÉSUMÉ", "resume"},
		{"re\u0301sume\u0301", "resume"}, // decomposed accents
		{"Ærøskøbing", "aeroskobing"},
		{"Straße", "strasse"},
		{"Łódź", "lodz"},
	}
	for _, tc := range tests {
		t.Run(tc.a, func(t *testing.T) {
			if c := dot(embedOne(t, e, tc.a), embedOne(t, e, tc.b)); c < 0.9999 {
				t.Errorf("cos(%q, %q) = %.4f, want 1", tc.a, tc.b, c)
			}
		})
	}
}

func TestBuiltinSimilarity(t *testing.T) {
	e := NewBuiltin()
	tests := []struct {
		name             string
		query, near, far string
	}{
		{
			"inflection",
			"mice lacking the receptor",
			"the receptor-deficient mouse lacked",
			"stock markets fell sharply on Monday",
		},
		{
			"morphology",
			"inhibition of angiogenesis",
			"angiogenic inhibitors",
			"the weather was cold",
		},
		{
			"hyphenated compound",
			"IL6 signalling",
			"IL-6 signaling",
			"TNF signaling",
		},
		{
			"paraphrase sharing words",
			"Vitamin D supplementation reduces fractures in elderly women.",
			"In older women, supplementing vitamin D lowered the rate of hip fractures.",
			"Statins lower cholesterol in middle-aged men.",
		},
		{
			"cyrillic",
			"риск переломов",
			"переломы и их риск",
			"погода сегодня",
		},
		{
			"chinese",
			"骨折风险",
			"老年妇女骨折的风险",
			"今天天气很好",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := e.EmbedQuery(context.Background(), tc.query)
			if err != nil {
				t.Fatal(err)
			}
			near, far := dot(q, embedOne(t, e, tc.near)), dot(q, embedOne(t, e, tc.far))
			if near <= far+0.1 {
				t.Errorf("cos(query, near) = %.3f, cos(query, far) = %.3f; want near clearly higher", near, far)
			}
		})
	}
}

func TestBuiltinContext(t *testing.T) {
	e := NewBuiltin()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EmbedDocuments(ctx, []string{"a text"}); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedDocuments on a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := e.EmbedQuery(ctx, "a text"); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedQuery on a cancelled context: err = %v, want context.Canceled", err)
	}
	vs, err := e.EmbedDocuments(context.Background(), nil)
	if err != nil || len(vs) != 0 {
		t.Errorf("EmbedDocuments(nil) = %d vectors, %v; want none and no error", len(vs), err)
	}
}

// TestBuiltinGolden pins a few components of one vector. If it fails, the
// algorithm has changed: stored vectors no longer match new ones, so bump
// builtinModel (and then update these values).
func TestBuiltinGolden(t *testing.T) {
	const text = "Microstructural development of the newborn's cerebral white matter, assessed by diffusion-tensor MRI: white matter anisotropy in naïve mice."
	v := embedOne(t, NewBuiltin(), text)
	golden := map[int]float32{
		0:   0,
		2:   -0.0364854,
		4:   -0.0364854,
		100: -0.0617752,
		255: -0.0617752,
		330: 0.1600358,
		423: -0.1347460,
		458: -0.1235504,
		511: 0,
	}
	for i, want := range golden {
		if math.Abs(float64(v[i]-want)) > 1e-6 {
			t.Errorf("component %d = %.7f, want %.7f (model %s changed: bump its version)", i, v[i], want, builtinModel)
		}
	}
}

func TestTokenizer(t *testing.T) {
	var z tokenizer
	z.reset("IL-6 and/or TNF–α, naïve 東京タワー x - y")
	var got []string
	for tok, ok := z.next(); ok; tok, ok = z.next() {
		s := string(tok.runes)
		if tok.joined {
			s = "+" + s
		}
		if tok.kind == cjkToken {
			s = "cjk:" + s
		}
		got = append(got, s)
	}
	want := []string{"il", "+6", "and", "+or", "tnf", "α", "naive", "cjk:東京タワー", "x", "y"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tokens = %q, want %q", got, want)
	}
}

func FuzzBuiltin(f *testing.F) {
	for _, s := range []string{"", "a", "résumé", "维生素D", "IL-6/TNF", "\xff", strings.Repeat("ab-", 50), "to be or not to be"} {
		f.Add(s)
	}
	e := NewBuiltin()
	f.Fuzz(func(t *testing.T, text string) {
		v, err := e.EmbedQuery(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != builtinDim {
			t.Fatalf("len = %d", len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("non-finite component %v", x)
			}
		}
		n := norm(v)
		if isZero(v) {
			// Only a text without letters or digits may have no features.
			for _, r := range text {
				if isCJK(r) || (utf8.ValidRune(r) && r != utf8.RuneError && isLetterOrDigit(r)) {
					t.Fatalf("zero vector for %q, which has letter %q", text, r)
				}
			}
			return
		}
		if math.Abs(n-1) > 1e-5 {
			t.Fatalf("norm = %v", n)
		}
	})
}

func BenchmarkBuiltin(b *testing.B) {
	// Abstract-sized English text, the size of a typical chunk.
	const para = "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities. A line scan diffusion-weighted magnetic resonance imaging (MRI) sequence with diffusion tensor analysis was applied to measure the apparent diffusion coefficient, to calculate relative anisotropy, and to delineate three-dimensional fiber architecture in cerebral white matter in preterm and full-term infants. "
	texts := make([]string, 64)
	var n int
	for i := range texts {
		texts[i] = strings.Repeat(para, 1+i%4)
		n += len(texts[i])
	}
	e := NewBuiltin()
	ctx := context.Background()
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.EmbedDocuments(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBuiltinFeatures(t *testing.T) {
	e := NewBuiltin()
	features := func(text string) map[uint64]uint32 {
		got := make(map[uint64]uint32)
		e.Features(text, func(key uint64, count uint32) {
			if _, dup := got[key]; dup {
				t.Errorf("%q: feature %x given twice", text, key)
			}
			got[key] = count
		})
		return got
	}
	shared := func(a, b map[uint64]uint32) int {
		n := 0
		for k := range a {
			if _, ok := b[k]; ok {
				n++
			}
		}
		return n
	}
	tide, twice := features("tide"), features("Tide, tide!")
	if len(tide) == 0 || len(twice) != len(tide) {
		t.Fatalf("tide: %d features, twice: %d", len(tide), len(twice))
	}
	for k, c := range twice {
		if c != 2*tide[k] {
			t.Errorf("feature %x: count %d twice, %d once", k, c, tide[k])
		}
	}
	// What the vectors are made of: other forms and spellings share
	// features, unrelated words do not, stopwords add none.
	if shared(tide, features("tidal")) == 0 || shared(features("IL-6"), features("il6")) == 0 {
		t.Error("other forms share no feature")
	}
	if n := shared(tide, features("moon")); n != 0 {
		t.Errorf("tide and moon share %d features", n)
	}
	if a, b := features("tide"), features("the tide of the"); len(a) != len(b) {
		t.Errorf("stopwords added features: %d, then %d", len(a), len(b))
	}
	if len(features("?!")) != 0 || len(features("to be or not to be")) == 0 {
		t.Error("punctuation has features, or a text of stopwords has none")
	}
}
