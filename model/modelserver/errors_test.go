package modelserver

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/fault"
)

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name, body, msg, code string
	}{
		{"ollama", `{"error":"model \"x\" not found, try pulling it first"}`, `model "x" not found, try pulling it first`, ""},
		{"openai", `{"error":{"message":"The model does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			"The model does not exist", "model_not_found"},
		{"llama.cpp", `{"error":{"code":500,"message":"input is too large to process. increase the physical batch size","type":"server_error"}}`,
			"input is too large to process. increase the physical batch size", "500"},
		{"vllm", `{"object":"error","message":"This model's maximum context length is 512 tokens.","type":"BadRequestError","param":null,"code":400}`,
			"This model's maximum context length is 512 tokens.", "400"},
		{"tei", `{"error":"Input validation error: inputs must have less than 512 tokens. Given: 600","error_type":"Validation"}`,
			"Input validation error: inputs must have less than 512 tokens. Given: 600", "Validation"},
		{"fastapi", `{"detail":"Not Found"}`, "Not Found", ""},
		{"fastapi list", `{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`, ""},
		{"text", "404 page not found\n", "404 page not found", ""},
		{"html", "<html>\n<body>Bad Gateway</body>\n</html>", "<html> <body>Bad Gateway</body> </html>", ""},
		{"empty", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, code := ParseErrorBody([]byte(tc.body))
			if msg != tc.msg || code != tc.code {
				t.Errorf("got %q, %q; want %q, %q", msg, code, tc.msg, tc.code)
			}
		})
	}
	long, _ := ParseErrorBody([]byte(strings.Repeat("é", 1000)))
	if !utf8.ValidString(long) || len(long) > maxMessage+len("…") {
		t.Errorf("long message not clipped cleanly: %d bytes", len(long))
	}
}

func TestTooLong(t *testing.T) {
	tests := []struct {
		msg, code string
		want      bool
		limit     int
	}{
		{"the input length exceeds the context length", "", true, 0},
		{"input length exceeds maximum context length", "", true, 0},
		{"This model's maximum context length is 512 tokens. However, you requested 600 tokens", "", true, 512},
		{"Input validation error: `inputs` must have less than 512 tokens. Given: 600", "", true, 512},
		{"input is too large to process. increase the physical batch size", "", true, 0},
		{"input (600 tokens) is too large to process. increase the physical batch size (current batch size: 512)", "", true, 512},
		{"the request exceeds the available context size, try increasing it", "", true, 0},
		{"the model is loaded with context length of only 4096 tokens, which is not enough", "", true, 4096},
		{"whatever", "context_length_exceeded", true, 0},
		{"model \"x\" not found", "", false, 0},
		{"server busy", "", false, 0},
	}
	for _, tc := range tests {
		if got := IsTooLong(tc.msg, tc.code); got != tc.want {
			t.Errorf("IsTooLong(%q) = %v", tc.msg, got)
		}
		if got := TooLongLimit(tc.msg); got != tc.limit {
			t.Errorf("TooLongLimit(%q) = %d, want %d", tc.msg, got, tc.limit)
		}
	}
}

func TestModelNotFound(t *testing.T) {
	tests := []struct {
		status    int
		msg, code string
		want      bool
	}{
		{404, `model "nomic-embed-text" not found, try pulling it first`, "", true},
		{404, "model 'x' not found", "", true},
		{404, "The model `x` does not exist.", "", true},
		{400, "whatever", "model_not_found", true},
		{404, "404 page not found", "", false},
		{500, `model "x" not found`, "", false},
	}
	for _, tc := range tests {
		if got := IsModelNotFound(tc.status, tc.msg, tc.code); got != tc.want {
			t.Errorf("IsModelNotFound(%d, %q) = %v", tc.status, tc.msg, got)
		}
	}
}

func FuzzParseErrorBody(f *testing.F) {
	for _, s := range []string{`{"error":"x"}`, `{"error":{"message":"y","code":1}}`, `{"message":"z"}`, `{"detail":[1]}`, "text", `{"error":null}`, `{"error":{"message":5}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, _ := ParseErrorBody(b)
		IsTooLong(msg, "")
		TooLongLimit(msg)
		IsModelNotFound(404, msg, "")
	})
}

func FuzzParseOllamaShow(f *testing.F) {
	f.Add([]byte(`{"parameters":"num_ctx 8192","capabilities":["embedding"],"model_info":{"general.architecture":"bert","bert.context_length":512,"bert.embedding_length":384}}`))
	f.Add([]byte(`{"model_info":{"x.context_length":1e300}}`))
	f.Add([]byte(`{"model_info":null,"parameters":"num_ctx"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseOllamaShow(b)
		if err == nil && (m.ContextLength < 0 || m.EmbeddingLength < 0 || m.NumCtx < 0) {
			t.Fatalf("negative length: %+v", m)
		}
	})
}

// TestErrorCodes checks that the kinds only the user can fix carry the code
// the CLI's exit status and MCP's tool errors come from, through wrapping,
// and that errors.Is still matches the kind and the cause.
func TestErrorCodes(t *testing.T) {
	c := mustClient(t, fastOptions("http://localhost:1"))
	cause := errors.New("connection refused")
	tests := []struct {
		name string
		kind error
		code fault.Code
	}{
		{"unreachable", ErrUnreachable, fault.Invalid},
		{"model not found", ErrModelNotFound, fault.Invalid},
		{"unauthorized", ErrUnauthorized, fault.Invalid},
		{"too long", ErrTooLong, fault.Internal},
		{"no kind", nil, fault.Internal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewError(c, tc.kind, "it failed", "do this")
			e.Err = cause
			err := fmt.Errorf("[embedding] ollama: %w", e)
			if got := fault.CodeOf(err); got != tc.code {
				t.Errorf("code %v, want %v", got, tc.code)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("%v does not match its kind", err)
			}
			if !errors.Is(err, cause) || errors.Is(err, fault.ErrNotFound) {
				t.Errorf("%v: cause lost, or taken for a missing book", err)
			}
			if strings.Contains(err.Error(), "model server not reachable") || strings.Contains(err.Error(), "not authorized") {
				t.Errorf("the kind's own text is in the message: %v", err)
			}
		})
	}
	// A server that is not there, for real.
	_, err := OllamaTags(t.Context(), mustClient(t, fastOptions(closedURL(t))))
	if !errors.Is(err, ErrUnreachable) || fault.CodeOf(err) != fault.Invalid {
		t.Errorf("closed port: %v (code %v)", err, fault.CodeOf(err))
	}
}

func TestCheckProvider(t *testing.T) {
	tests := []struct {
		provider string
		known    []string
		want     string
	}{
		{"ollama", []string{"none", "ollama", "openai"}, ""},
		{"", []string{"builtin", "ollama", "openai"}, `[embedding] provider = "": want "builtin", "ollama" or "openai"`},
		{"x", []string{"a", "b"}, `[embedding] provider = "x": want "a" or "b"`},
		{"x", []string{"a"}, `[embedding] provider = "x": want "a"`},
	}
	for _, tc := range tests {
		err := CheckProvider("embedding", tc.provider, tc.known...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.provider, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want || fault.CodeOf(err) != fault.Invalid {
			t.Errorf("%q among %q: %v, want %s (Invalid)", tc.provider, tc.known, err, tc.want)
		}
	}
}
