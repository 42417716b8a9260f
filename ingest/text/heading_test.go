package text

import "testing"

func TestClassifyLine(t *testing.T) {
	tests := []struct {
		line string
		kind kind
		bare bool
	}{
		// Labelled divisions in their many spellings.
		{"CHAPTER I.", kindLabel, true},
		{"CHAPTER I", kindLabel, true},
		{"CHAPTER I. Down the Rabbit-Hole", kindLabel, false},
		{"Chapter 3", kindLabel, true},
		{"Chapter 12: The Return", kindLabel, false},
		{"Chapter 7 — the night", kindLabel, false},
		{"CHAPTER THE FIRST", kindLabel, true},
		{"CHAPTER TWENTY-ONE", kindLabel, true},
		{"Chapter one", kindLabel, true},
		{"BOOK ONE: 1805", kindLabel, false},
		{"PART II", kindLabel, true},
		{"Part Two The Storm", kindLabel, false},
		{"Letter 1", kindLabel, true},
		{"    CHAPTER XII", kindLabel, true},
		{"CHAPITRE PREMIER", kindLabel, true},
		{"CHAPITRE II.", kindLabel, true},
		{"CHAPITRE XXII[1].", kindLabel, true},
		{"LIVRE DEUXIÈME", kindLabel, true},
		{"PREMIÈRE PARTIE", kindLabel, true},
		{"Erstes Kapitel", kindLabel, true},
		{"Kapitel 4", kindLabel, true},
		{"ZWEITER TEIL", kindLabel, true},
		{"CAPÍTULO PRIMERO", kindLabel, true},
		{"Capítulo 2", kindLabel, true},
		{"VOLUME III", kindLabel, true},
		{"ACT I", kindLabel, true},
		{"SCENE 2. A room in the castle", kindLabel, false},
		{"Book the First--Recalled to Life", kindLabel, false},
		{"CHAPTER I—A MAN OF FEELING", kindLabel, false},
		{"STAVE ONE.", kindLabel, true},
		{"CHAPTER IV--", kindLabel, true},
		// Unnumbered divisions.
		{"PREFACE", kindSpecial, false},
		{"Preface", kindSpecial, false},
		{"INTRODUCTION", kindSpecial, false},
		{"EPILOGUE", kindSpecial, false},
		{"FIRST EPILOGUE: 1813 - 20", kindSpecial, false},
		{"SECOND EPILOGUE", kindSpecial, false},
		{"PREFACE TO THE SECOND EDITION", kindSpecial, false},
		{"Préface de l'Éditeur", kindSpecial, false},
		{"APPENDIX A", kindSpecial, false},
		{"Appendix II: Tables", kindSpecial, false},
		// Numerals.
		{"IV", kindNumber, true},
		{"XII.", kindNumber, true},
		{"12.", kindNumber, true},
		{"IV. THE RED-HEADED LEAGUE", kindNumTitle, false},
		{"II. A Case of Identity", kindNumTitle, false},
		// Prose that must not be taken for a heading.
		{"Chapter 3 was the best part of the book, she said.", kindNone, false},
		{"chapter 3", kindNone, false},
		{"Part of the fun was the waiting.", kindNone, false},
		{"Part one of the plan was simple.", kindNone, false},
		{"Book me a room, please.", kindNone, false},
		{"Letter after letter arrived.", kindNone, false},
		{"BOOK", kindNone, false},
		{"CHAPTER", kindNone, false},
		{"Introduction of the new law was delayed.", kindNone, false},
		{"Preface it with a warning, she said", kindNone, false},
		{"The first chapter", kindNone, false},
		{"First part of it", kindNone, false},
		{"CHAPTER one", kindNone, false},
		{"12", kindNone, false},
		{"1. Buy milk.", kindNone, false},
		{"I. am done.", kindNone, false},
		{"IIII", kindNone, false},
		{"IIX", kindNone, false},
		{"VI. He went home.", kindNone, false},
		{"In Chapter 3 we saw", kindNone, false},
		{"It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was", kindNone, false},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := classifyLine(tc.line)
			if h.kind != tc.kind {
				t.Fatalf("kind = %d, want %d", h.kind, tc.kind)
			}
			if h.kind != kindNone && h.bare != tc.bare {
				t.Errorf("bare = %v, want %v", h.bare, tc.bare)
			}
		})
	}
}

func TestRankOrder(t *testing.T) {
	rank := func(s string) int { return classifyLine(s).rank }
	if !(rank("VOLUME I") < rank("BOOK I") && rank("BOOK I") < rank("PART I") && rank("PART I") < rank("CHAPTER I") && rank("CHAPTER I") < rank("IV")) {
		t.Errorf("ranks out of order: volume %d book %d part %d chapter %d numeral %d",
			rank("VOLUME I"), rank("BOOK I"), rank("PART I"), rank("CHAPTER I"), rank("IV"))
	}
	if rank("Letter 1") != rank("Chapter 1") {
		t.Errorf("letters and chapters should be siblings")
	}
}

func TestCapsLine(t *testing.T) {
	tests := []struct {
		line    string
		ok, sub bool
	}{
		{"THE GOLDEN BIRD", true, false},
		{"LITTLE RED-CAP [LITTLE RED RIDING HOOD]", true, false},
		{"THE STRAW, THE COAL, AND THE BEAN", true, false},
		{"1. HOW THEY WENT TO THE MOUNTAINS TO EAT NUTS", true, true},
		{"FIRST STORY", true, true},
		{"   SNOWDROP", true, false},
		{"‘HELP!’", false, false},
		{"“STOP THERE,” HE CRIED", false, false},
		{"The Golden Bird", false, false},
		{"* * *", false, false},
		{"1759", false, false},
		{"A", false, false},
		{"THE KING SAID,", false, false},
	}
	for _, tc := range tests {
		ok, sub := capsLine(tc.line)
		if ok != tc.ok || (ok && sub != tc.sub) {
			t.Errorf("capsLine(%q) = %v, %v; want %v, %v", tc.line, ok, sub, tc.ok, tc.sub)
		}
	}
}

func TestStripPageNumber(t *testing.T) {
	tests := []struct {
		in, out string
		paged   bool
	}{
		{"Chapter 1 ........ 5", "Chapter 1", true},
		{"Chapter 1 . . . . 12", "Chapter 1", true},
		{"Preface      vii", "Preface", true},
		{"The Pool of Tears   23", "The Pool of Tears", true},
		{"The End…… 301", "The End", true},
		{"Letter 1", "Letter 1", false},
		{"BOOK ONE: 1805", "BOOK ONE: 1805", false},
		{"Music", "Music", false},
		{"12", "12", false},
	}
	for _, tc := range tests {
		out, paged := stripPageNumber(tc.in)
		if out != tc.out || paged != tc.paged {
			t.Errorf("stripPageNumber(%q) = %q, %v; want %q, %v", tc.in, out, paged, tc.out, tc.paged)
		}
	}
}

func TestIsContentsLabel(t *testing.T) {
	for _, s := range []string{"CONTENTS", "Contents", "CONTENTS:", "  Table of Contents", "TABLE DES MATIÈRES", "Inhalt", "ÍNDICE"} {
		if !isContentsLabel(s) {
			t.Errorf("isContentsLabel(%q) = false", s)
		}
	}
	for _, s := range []string{"The contents of the box", "Contents may settle", ""} {
		if isContentsLabel(s) {
			t.Errorf("isContentsLabel(%q) = true", s)
		}
	}
}
