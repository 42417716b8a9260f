package llm

import (
	"testing"
	"unicode/utf8"
)

func FuzzParseOllamaChat(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop","prompt_eval_count":12}`,
		"{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"message\":{\"content\":\"b\"},\"done\":true}\n",
		`{"error":"boom"}`, `{"message":null}`, `[]`, `{"message":{"content":1}}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseOllamaChat(b)
		if err == nil && r.promptTokens < 0 {
			t.Fatal("negative prompt tokens")
		}
	})
}

func FuzzParseOpenAIChat(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`,
		`{"choices":[{"message":{"content":null}}]}`, `{"choices":[]}`, `{"choices":null}`,
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
		"data: {\"error\":{\"message\":\"x\"}}\n\n", "data: nope\n\n", "data:\n", ``,
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "text/event-stream")
	}
	f.Fuzz(func(t *testing.T, b []byte, ct string) {
		parseOpenAIChat(b, ct)
	})
}

func FuzzCleanReply(f *testing.F) {
	for _, s := range []string{"Here is the context: X.", "<think>a</think>b", `"q"`, "**a**", "- a\n- b", "第一句。第二句。", "\xff\xfe"} {
		f.Add(s, 50)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 10000 {
			return
		}
		out := CleanReply(s, n)
		if n > 0 && utf8.RuneCountInString(out) > n {
			t.Fatalf("%d runes, cap %d", utf8.RuneCountInString(out), n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from valid input: %q", out)
		}
		clipText(s, n)
	})
}
