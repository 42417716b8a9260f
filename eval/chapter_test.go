package eval

import (
	"strings"
	"testing"
)

func TestChapterHolds(t *testing.T) {
	tests := []struct {
		name, gold, chapter, section string
		want                         bool
	}{
		// The gold path and the engine's two levels line up.
		{"chapter and section", "BOOK TWELVE: 1812 › CHAPTER XIII", "BOOK TWELVE: 1812", "CHAPTER XIII", true},
		{"another chapter of the right part", "BOOK TWELVE: 1812 › CHAPTER XIII", "BOOK TWELVE: 1812", "CHAPTER V", false},
		{"the right chapter number in another part", "BOOK TWELVE: 1812 › CHAPTER XIII", "BOOK NINE: 1812", "CHAPTER XIII", false},
		{"one entry, a synthesized section", "IV. THE BOSCOMBE VALLEY MYSTERY", "IV. THE BOSCOMBE VALLEY MYSTERY", "Section 4 — “Anyhow, I have grasped one fact…", true},
		{"one entry, the wrong chapter", "Chapter 2", "Chapter 20", "Chapter 20", false},
		// The engine's outline starts below the book's.
		{"no part above the chapter", "Part I. Part C Core › Chapter 10. Appendix P Preliminaries › Section PT Proof Techniques",
			"Chapter 10. Appendix P Preliminaries", "Section PT Proof Techniques", true},
		{"the right chapter, another section", "Part I. Part C Core › Chapter 10. Appendix P Preliminaries › Section PT Proof Techniques",
			"Chapter 10. Appendix P Preliminaries", "Section T Trace", true},
		{"the document title is the book's", "Chapter 03: Pure Happiness with Pure Functions › Oh to Be Pure Again",
			"Oh to Be Pure Again", "Oh to Be Pure Again", true},
		{"another heading of the document", "Chapter 03: Pure Happiness with Pure Functions › Oh to Be Pure Again",
			"Side Effects May Include...", "Side Effects May Include...", false},
		{"a section under a chapter the gold path lacks", "194 THE NIGHTINGALE", "Hans Christian Andersen", "194 THE NIGHTINGALE", true},
		{"a deep section under a chapter the gold path lacks", "Part III › 194 THE NIGHTINGALE", "Hans Christian Andersen", "194 THE NIGHTINGALE", false},
		// A section named by its path below the chapter (an mdBook's files
		// below its top entries).
		{"a section path", "Variables and Mutability › Declaring Constants",
			"Common Programming Concepts", "Variables and Mutability › Declaring Constants", true},
		{"another section of the path", "Variables and Mutability › Declaring Constants",
			"Common Programming Concepts", "Variables and Mutability › Shadowing", false},
		{"a section path above the gold entry", "Control Flow › Repetition with Loops › Returning Values from Loops",
			"Common Programming Concepts", "Control Flow › Repetition with Loops", true},
		{"a section path whose second entry is elsewhere", "Control Flow › Repetition with Loops",
			"Common Programming Concepts", "Data Types › Repetition with Loops", false},
		// The engine's outline stops above the gold entry.
		{"a third level the engine has not", "3 Logical Components of Zero Trust Architecture › 3.2 Deployed Variations of the Abstract Architecture › 3.2.1 Device Agent/Gateway-Based Deployment",
			"3 Logical Components of Zero Trust Architecture", "3.2 Deployed Variations of the Abstract Architecture", true},
		{"the first level alone is not enough", "3 Logical Components of Zero Trust Architecture › 3.2 Deployed Variations of the Abstract Architecture",
			"3 Logical Components of Zero Trust Architecture", "3.1 Variations of Zero Trust Architecture Approaches", false},
		// Editions title a chapter differently.
		{"a longer title", "CHAPITRE XXX.", "CHAPITRE XXX. Conclusion.", "CHAPITRE XXX. Conclusion.", true},
		{"a shorter title", "CHAPTER III. A Caucus-Race and a Long Tale", "A Caucus-Race And A Long Tale", "", true},
		{"typographic apostrophe", "Alice's Evidence", "CHAPTER XII. Alice’s Evidence", "Section 2 — ‘That’s the most important piece…", true},
		{"one word is not found inside another title", "I. A SCANDAL IN BOHEMIA", "II. THE RED-HEADED LEAGUE", "I.", false},
		{"one word alone, equal", "Epilogue", "Epilogue", "", true},
		{"no gold chapter", "", "Epilogue", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseChapterPath(tc.gold).holds(tc.chapter, tc.section); got != tc.want {
				t.Errorf("gold %q, hit %q › %q: holds = %v, want %v", tc.gold, tc.chapter, tc.section, got, tc.want)
			}
		})
	}
}

// FuzzChapterHolds checks that nothing panics, and that a hit titled with
// the gold path's own first two entries is always in the gold chapter.
func FuzzChapterHolds(f *testing.F) {
	f.Add("BOOK TWELVE: 1812", "CHAPTER XIII", "Section 4")
	f.Add("Chapter 2", "", "")
	f.Add("a b c", "a b", "x › y")
	f.Fuzz(func(t *testing.T, first, second, rest string) {
		gold := first + " › " + second + " › " + rest
		p := parseChapterPath(gold)
		p.holds(first, rest)
		if len(titleWords(first)) == 0 || len(titleWords(second)) == 0 || strings.Contains(first+second, "›") {
			return
		}
		if !p.holds(first, second) {
			t.Errorf("gold %q: a hit in %q › %q is not in it", gold, first, second)
		}
	})
}
