package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeModels is a model server that speaks both Ollama's API (/api/tags,
// /api/show, /api/embed, /api/chat) and the OpenAI API (/v1/models,
// /v1/embeddings, /v1/chat/completions), for the real binary to talk to.
// Its embeddings are hashed bags of words, so related texts are close; its
// chat replies are made from the prompt, with a marker word that appears in
// no book, so that a test can search for what the model wrote.
type fakeModels struct {
	*httptest.Server
	embedModel, chatModel string
	delay                 time.Duration

	// embedDelay holds each embedding request that long.
	embedDelay time.Duration

	mu       sync.Mutex
	asked    map[string]int // prompt hash → times asked
	calls    int
	embedded int            // texts embedded
	embeds   map[string]int // text → times embedded
}

// set changes the server's models or delays while it may be serving.
func (f *fakeModels) set(change func(f *fakeModels)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

// models is what set last made of the server's models and delays.
func (f *fakeModels) models() (embedModel, chatModel string, delay, embedDelay time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.embedModel, f.chatModel, f.delay, f.embedDelay
}

func newFakeModels(t *testing.T, embedModel, chatModel string) *fakeModels {
	t.Helper()
	f := &fakeModels{embedModel: embedModel, chatModel: chatModel, asked: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

const fakeDim = 512

func fakeEmbedding(text string) []float32 {
	v := make([]float32, fakeDim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) <= 3 || fakeTemplateWords[w] {
			continue // words of the fake's own replies say nothing about a chunk
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%fakeDim]++
	}
	v[0] += 0.01 // never the zero vector
	return v
}

var fakeTemplateWords = map[string]bool{"this": true, "passage": true, "about": true, "mentions": true, "zanzibarite": true,
	"marker": true, "here": true, "context": true, "section": true, "summarized": true, "when": true, "that": true}

var passageRE = regexp.MustCompile(`(?s)<passage>\n(.*?)\n</passage>`)
var sectionRE = regexp.MustCompile(`Section: ([^\n]*)`)

// reply writes what the fake model answers to a chat prompt.
func (f *fakeModels) reply(user string) string {
	sum := sha256.Sum256([]byte(user))
	key := hex.EncodeToString(sum[:8])
	f.mu.Lock()
	f.asked[key]++
	f.calls++
	f.mu.Unlock()
	if _, _, delay, _ := f.models(); delay > 0 {
		time.Sleep(delay)
	}
	section := ""
	if m := sectionRE.FindStringSubmatch(user); m != nil {
		section = m[1]
	}
	if m := passageRE.FindStringSubmatch(user); m != nil {
		words := strings.Fields(m[1])
		return fmt.Sprintf("Here is the context: This passage of %s, about %s, mentions the zanzibarite marker.", section, strings.Join(words[:min(4, len(words))], " "))
	}
	return "This section, " + section + ", is summarized here."
}

func writeJSONResponse(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeModels) serve(w http.ResponseWriter, r *http.Request) {
	embedModel, chatModel, _, embedDelay := f.models()
	switch r.URL.Path {
	case "/api/tags":
		var ms []map[string]any
		for _, m := range []string{embedModel, chatModel} {
			ms = append(ms, map[string]any{"name": m + ":latest", "model": m + ":latest", "size": 1000,
				"details": map[string]any{"family": "llama", "format": "gguf"}})
		}
		writeJSONResponse(w, 200, map[string]any{"models": ms})
	case "/api/show":
		var req struct{ Model string }
		json.NewDecoder(r.Body).Decode(&req)
		name := strings.TrimSuffix(req.Model, ":latest")
		switch name {
		case embedModel:
			writeJSONResponse(w, 200, map[string]any{"capabilities": []string{"embedding"}, "details": map[string]any{"family": "nomic-bert"},
				"model_info": map[string]any{"general.architecture": "nomic-bert", "nomic-bert.context_length": 2048, "nomic-bert.embedding_length": fakeDim}})
		case chatModel:
			writeJSONResponse(w, 200, map[string]any{"capabilities": []string{"completion"}, "details": map[string]any{"family": "llama"},
				"model_info": map[string]any{"general.architecture": "llama", "llama.context_length": 131072}})
		default:
			writeJSONResponse(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
		}
	case "/api/embed":
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if strings.TrimSuffix(req.Model, ":latest") != embedModel {
			writeJSONResponse(w, 404, map[string]string{"error": fmt.Sprintf("model \"%s\" not found, try pulling it first", req.Model)})
			return
		}
		time.Sleep(embedDelay)
		var out [][]float32
		for _, in := range req.Input {
			out = append(out, fakeEmbedding(in))
		}
		f.mu.Lock()
		f.embedded += len(req.Input)
		if f.embeds == nil {
			f.embeds = map[string]int{}
		}
		for _, in := range req.Input {
			f.embeds[in]++
		}
		f.mu.Unlock()
		writeJSONResponse(w, 200, map[string]any{"model": req.Model, "embeddings": out, "total_duration": 1000, "prompt_eval_count": 10})
	case "/api/chat":
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		text := f.reply(req.Messages[len(req.Messages)-1].Content)
		writeJSONResponse(w, 200, map[string]any{"model": req.Model, "created_at": "2026-01-01T00:00:00Z",
			"message": map[string]string{"role": "assistant", "content": text}, "done": true, "done_reason": "stop"})
	case "/v1/models":
		writeJSONResponse(w, 200, map[string]any{"object": "list", "data": []map[string]any{
			{"id": embedModel, "object": "model", "owned_by": "test"}, {"id": chatModel, "object": "model", "owned_by": "test"}}})
	case "/v1/embeddings":
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, in := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": fakeEmbedding(in)})
		}
		writeJSONResponse(w, 200, map[string]any{"object": "list", "data": data, "model": req.Model, "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	case "/v1/chat/completions":
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		text := f.reply(req.Messages[len(req.Messages)-1].Content)
		writeJSONResponse(w, 200, map[string]any{"id": "x", "object": "chat.completion", "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": map[string]string{"role": "assistant", "content": text}, "finish_reason": "stop"}}})
	default:
		http.NotFound(w, r)
	}
}

func providerLibrary(t *testing.T) string {
	t.Helper()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\n## Spring tides\n\nSpring tides follow the full and the new moon, when sun and moon pull together.\n\n## Neap tides\n\nNeap tides come at the quarter moons, when the pulls cross.\n")
	writeFile(t, filepath.Join(lib, "knots.md"), "# Knots\n\n## Bowline\n\nThe bowline makes a fixed loop at the end of a line that does not slip.\n\n## Clove hitch\n\nThe clove hitch binds a line to a post quickly.\n")
	return lib
}

// embedEnv configures f as the embedding model, through Ollama's API.
func (f *fakeModels) embedEnv() []string {
	return []string{"GRIMOIRE_EMBEDDING_PROVIDER=ollama", "GRIMOIRE_EMBEDDING_URL=" + f.URL, "GRIMOIRE_EMBEDDING_MODEL=" + f.embedModel}
}

func ollamaEnv(f *fakeModels) []string {
	return append(f.embedEnv(), "GRIMOIRE_CONTEXT_PROVIDER=ollama", "GRIMOIRE_CONTEXT_URL="+f.URL, "GRIMOIRE_CONTEXT_MODEL="+f.chatModel)
}

// grimoireEnv runs the binary with extra environment.
func grimoireEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	p := start(t, dir, env, args...)
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("grimoire %v did not finish", args)
	}
	p.done <- nil
	return result{p.out.String(), p.errb.String(), p.cmd.ProcessState.ExitCode()}
}

func okEnv(t *testing.T, dir string, env []string, v any, args ...string) {
	t.Helper()
	r := grimoireEnv(t, dir, env, args...)
	if r.code != 0 {
		t.Fatalf("grimoire %v: exit %d\n%s", args, r.code, r.stderr)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
			t.Fatalf("grimoire %v: %v\n%s", args, err, r.stdout)
		}
	}
}

func TestOllamaEmbeddingsAndContexts(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	lib := providerLibrary(t)
	env := ollamaEnv(f)

	var s syncOut
	okEnv(t, lib, env, &s, "sync", "--json")
	if s.Ingested != 2 || s.Failed != 0 {
		t.Fatalf("sync: %+v", s)
	}
	var st struct {
		Chunks, Contextualized, Embedded int
		EmbeddingModel                   string `json:"embedding_model"`
	}
	okEnv(t, lib, env, &st, "status", "--json")
	if st.Contextualized != st.Chunks || st.Embedded != st.Chunks || st.EmbeddingModel != "ollama/nomic-embed-text" {
		t.Fatalf("status: %+v", st)
	}
	// The model's context is searchable: the marker is in no book.
	var hits []hitOut
	okEnv(t, lib, env, &hits, "query", "zanzibarite", "--mode", "fts", "--json")
	if len(hits) != 4 {
		t.Errorf("context search found %d chunks, want all 4", len(hits))
	}
	okEnv(t, lib, env, &hits, "query", "which knot makes a loop that does not slip", "--mode", "vector", "--json")
	if len(hits) == 0 || hits[0].Section != "Bowline" {
		t.Errorf("vector search: %v", first(hits))
	}
	var hj []struct {
		Context string
	}
	okEnv(t, lib, env, &hj, "query", "bowline", "--json")
	if len(hj) == 0 || !strings.Contains(hj[0].Context, "zanzibarite") || strings.HasPrefix(hj[0].Context, "Here is") {
		t.Errorf("context of a hit: %+v", hj)
	}

	// A switch to another model is refused until reindex --embeddings.
	env2 := append(append([]string{}, env...), "GRIMOIRE_EMBEDDING_MODEL=mxbai-embed-large")
	f.set(func(f *fakeModels) { f.embedModel = "mxbai-embed-large" }) // the server now has that one
	r := grimoireEnv(t, lib, env2, "sync")
	if r.code != exitConflict || !strings.Contains(r.stderr, "reindex --embeddings") {
		t.Fatalf("model switch: exit %d: %s", r.code, r.stderr)
	}
	r = grimoireEnv(t, lib, env2, "query", "bowline")
	if r.code != exitConflict {
		t.Errorf("query with another model: exit %d: %s", r.code, r.stderr)
	}
	before := f.calls
	okEnv(t, lib, env2, nil, "reindex", "--embeddings")
	if f.calls != before {
		t.Errorf("reindex asked the language model %d times; stored contexts must be reused", f.calls-before)
	}
	okEnv(t, lib, env2, &hits, "query", "which knot makes a loop that does not slip", "--json")
	if len(hits) == 0 || hits[0].Section != "Bowline" {
		t.Errorf("after the switch: %v", first(hits))
	}
	okEnv(t, lib, env2, &st, "status", "--json")
	if st.EmbeddingModel != "ollama/mxbai-embed-large" {
		t.Errorf("status after the switch: %+v", st)
	}
}

func TestProviderErrors(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	lib := providerLibrary(t)
	env := append(ollamaEnv(f), "GRIMOIRE_EMBEDDING_MODEL=bge-m3")
	r := grimoireEnv(t, lib, env, "sync")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "ollama pull bge-m3") {
		t.Errorf("missing model: exit %d: %s", r.code, r.stderr)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	begin := time.Now()
	r = grimoireEnv(t, lib, []string{"GRIMOIRE_EMBEDDING_PROVIDER=ollama", "GRIMOIRE_EMBEDDING_URL=" + closed}, "sync")
	if r.code != exitInvalid || !strings.Contains(r.stderr, closed) || !strings.Contains(r.stderr, "ollama serve") {
		t.Errorf("unreachable: exit %d: %s", r.code, r.stderr)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("unreachable server took %v to report", d)
	}
}

func TestOpenAICompatibleRoute(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "text-embedding-3-small", "gpt-local")
	lib := providerLibrary(t)
	env := []string{
		"GRIMOIRE_EMBEDDING_PROVIDER=openai", "GRIMOIRE_EMBEDDING_URL=" + f.URL + "/v1", "GRIMOIRE_EMBEDDING_MODEL=" + f.embedModel,
		"GRIMOIRE_CONTEXT_PROVIDER=openai", "GRIMOIRE_CONTEXT_URL=" + f.URL + "/v1", "GRIMOIRE_CONTEXT_MODEL=" + f.chatModel,
	}
	var s syncOut
	okEnv(t, lib, env, &s, "sync", "--json")
	if s.Ingested != 2 {
		t.Fatalf("sync: %+v", s)
	}
	var hits []hitOut
	okEnv(t, lib, env, &hits, "query", "zanzibarite", "--mode", "fts", "--json")
	if len(hits) != 4 {
		t.Errorf("context search: %d hits", len(hits))
	}
	var raw []map[string]any
	okEnv(t, lib, env, &raw, "query", "quarter moons", "--mode", "vector", "--json")
	if len(raw) == 0 || raw[0]["section"] != "Neap tides" {
		for _, h := range raw {
			t.Logf("%v %v %v", h["section"], h["scores"], h["context"])
		}
		t.Errorf("vector search: %v", raw)
	}
}

// repeated counts the keys of asked asked more than once.
func repeated(asked map[string]int) int {
	n := 0
	for _, k := range asked {
		if k > 1 {
			n++
		}
	}
	return n
}

// writeLongBook writes long.md in lib: parts sections of paras sentences
// each, a paragraph every three.
func writeLongBook(t *testing.T, lib string, parts, paras int) {
	t.Helper()
	var b strings.Builder
	for s := range parts {
		fmt.Fprintf(&b, "## Part %d\n\n", s)
		for p := range paras {
			fmt.Fprintf(&b, "Paragraph %d of part %d tells of sailing ships, harbours and tides in some detail, sentence after sentence. ", p, s)
			if p%3 == 2 {
				b.WriteString("\n\n")
			}
		}
		b.WriteString("\n\n")
	}
	writeFile(t, filepath.Join(lib, "long.md"), "# Long\n\n"+b.String())
}

// killSyncWhen runs sync in lib and SIGKILLs it once count, read under
// f.mu, passes above; it returns count at the kill.
func (f *fakeModels) killSyncWhen(t *testing.T, lib string, env []string, what string, count func() int, above int) int {
	t.Helper()
	p := start(t, lib, env, "sync")
	eventually(t, what, 60*time.Second, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return count() > above
	})
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.done <- nil
	f.mu.Lock()
	defer f.mu.Unlock()
	return count()
}

// TestKillDuringContextualizing SIGKILLs a sync while the language model
// writes contexts, then re-runs it: no stored summary or context is asked
// for again.
func TestKillDuringContextualizing(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	f.set(func(f *fakeModels) { f.delay = 30 * time.Millisecond })
	lib := t.TempDir()
	writeLongBook(t, lib, 12, 30)
	env := append(ollamaEnv(f), "GRIMOIRE_CONTEXT_CONCURRENCY=2")
	atKill := f.killSyncWhen(t, lib, env, "contexts being written", func() int { return f.calls }, 20)
	okEnv(t, lib, env, nil, "sync")
	f.mu.Lock()
	defer f.mu.Unlock()
	twice := repeated(f.asked)
	t.Logf("%d model calls before the kill, %d in all, %d prompts asked twice", atKill, f.calls, twice)
	// Only the requests in flight at the kill (at most the concurrency)
	// can have been lost and asked again.
	if twice > 2 {
		t.Errorf("%d prompts were asked more than once (%d calls before the kill, %d in all)", twice, atKill, f.calls)
	}
	var st struct{ Chunks, Contextualized, Ready int }
	okEnv(t, lib, env, &st, "status", "--json")
	if st.Ready != 1 || st.Contextualized != st.Chunks {
		t.Errorf("status after the re-run: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(lib, ".grimoire", "grimoire.db")); err != nil {
		t.Fatal(err)
	}
}

// TestKillDuringEmbedding SIGKILLs a sync while a model server embeds a
// large book, then runs it again: the book is ready with every chunk
// embedded, and the only texts embedded twice are those whose vectors were
// not stored at the kill: the request in flight, and what was worked out
// ahead of the batch being stored.
func TestKillDuringEmbedding(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	f.set(func(f *fakeModels) { f.embedDelay = 50 * time.Millisecond })
	lib := t.TempDir()
	writeLongBook(t, lib, 1000, 6)
	env := f.embedEnv()
	atKill := f.killSyncWhen(t, lib, env, "embedding under way", func() int { return f.embedded }, 300)
	okEnv(t, lib, env, nil, "sync")
	var st struct{ Chunks, Embedded, Ready int }
	okEnv(t, lib, env, &st, "status", "--json")
	if st.Ready != 1 || st.Embedded != st.Chunks {
		t.Fatalf("status after the re-run: %+v", st)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	twice := repeated(f.embeds)
	t.Logf("%d texts embedded before the kill, %d in all, for %d chunks; %d embedded twice", atKill, f.embedded, st.Chunks, twice)
	if atKill >= st.Chunks {
		t.Fatalf("the kill came after every chunk was embedded (%d of %d)", atKill, st.Chunks)
	}
	// Two batches of 32, and the probe each start sends.
	if twice > 2*32+1 {
		t.Errorf("%d texts were embedded twice: more than the batch in flight and one worked out ahead", twice)
	}
}

func TestInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	out := ok(t, dir, "init", ".", "--ollama-url", closed)
	if !strings.Contains(out, "keeping the built-in embedder") {
		t.Errorf("init without Ollama: %s", out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "grimoire.toml"))
	if err != nil || !strings.Contains(string(data), `provider = "builtin"`) || !strings.Contains(string(data), `library = ["."]`) {
		t.Fatalf("grimoire.toml: %v\n%s", err, data)
	}
	if r := grimoire(t, dir, "init", ".", "--ollama-url", closed); r.code != exitConflict {
		t.Errorf("init over an existing file: exit %d", r.code)
	}
	// The written file is a working configuration.
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nalpha\n")
	ok(t, dir, "sync")

	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	dir2 := t.TempDir()
	out = ok(t, dir2, "init", "--yes", "--ollama-url", f.URL)
	data, _ = os.ReadFile(filepath.Join(dir2, "grimoire.toml"))
	if !strings.Contains(string(data), `provider = "ollama"`) || !strings.Contains(string(data), `model = "nomic-embed-text"`) || !strings.Contains(string(data), f.URL) {
		t.Errorf("init with Ollama wrote:\n%s\n(out: %s)", data, out)
	}
	if !strings.Contains(string(data), "[context]\n# Chunk context for search: \"none\" (the heading path), \"ollama\" or \"openai\" (LLM Contextual Retrieval).\nprovider = \"none\"") {
		t.Errorf("init turned on contexts without asking:\n%s", data)
	}
}
