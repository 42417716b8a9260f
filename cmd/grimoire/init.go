package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/model/llm"
)

// configTemplate is grimoire.toml with every key, its value and a comment.
// The grimoire.toml at the top of the repository is this template rendered
// with the defaults (a test keeps them equal).
const configTemplate = `# grimoire configuration. Every key is shown with its default.
# Relative paths are relative to this file. Environment variables
# GRIMOIRE_<SECTION>_<KEY> (e.g. GRIMOIRE_RETRIEVAL_MODE) override this file;
# command-line flags override both. Unknown keys are an error.

# Library folders to keep in sync (empty: give --library on the command line).
library = {{toml .Library}}
# The SQLite index (empty: .grimoire/grimoire.db inside the first library
# folder, the same however the library is named; an index that an older
# grimoire kept beside this file as grimoire.db is still used).
db_path = {{toml .DBPath}}
# Files larger than this many MB are skipped and reported.
max_file_size_mb = {{toml .MaxFileSize}}
# Log level on stderr: debug, info, warn or error.
log_level = {{toml .LogLevel}}

[embedding]
# "builtin" (offline, nothing to install), "ollama" or "openai" (any OpenAI-compatible server).
provider = {{toml .Embedding.Provider}}
# Model name for ollama/openai (empty: nomic-embed-text for ollama; the one model an openai server lists).
model = {{toml .Embedding.Model}}
# Server URL for ollama/openai (empty: http://localhost:11434, or http://localhost:8080/v1 for openai).
url = {{toml .Embedding.URL}}
# Environment variable holding an openai server's API key (empty: OPENAI_API_KEY); never the key itself.
api_key_env = {{toml .Embedding.APIKeyEnv}}
# Prefixes put before queries and documents (empty: the model family's own, e.g. nomic's "search_query: ").
query_prefix = {{toml .Embedding.QueryPrefix}}
document_prefix = {{toml .Embedding.DocumentPrefix}}

[context]
# Chunk context for search: "none" (the heading path), "ollama" or "openai" (LLM Contextual Retrieval).
provider = {{toml .Context.Provider}}
# Chat model for ollama/openai (empty: llama3.2 for ollama).
model = {{toml .Context.Model}}
# Server URL for ollama/openai (empty: as for [embedding]).
url = {{toml .Context.URL}}
# Environment variable holding an openai server's API key (empty: OPENAI_API_KEY).
api_key_env = {{toml .Context.APIKeyEnv}}
# Requests to the language model at once.
concurrency = {{toml .Context.Concurrency}}

[retrieval]
# "hybrid" (full-text and vectors), "fts" (full-text only) or "vector".
mode = {{toml .Retrieval.Mode}}
# Reciprocal rank fusion constant: score = sum of weight / (rrf_k + rank).
rrf_k = {{toml .Retrieval.RRFK}}
# Candidates each arm contributes before fusion.
candidate_pool = {{toml .Retrieval.CandidatePool}}
# Weight of the full-text arm in the fusion.
fts_weight = {{toml .Retrieval.FTSWeight}}
# Weight of the vector arm in the fusion; 0 is automatic: 0.01 for the
# built-in embedder (it only breaks ties and rescues misspelled queries), 1.0
# for neural models (Ollama, OpenAI-compatible).
vector_weight = {{toml .Retrieval.VectorWeight}}
# How hybrid search merges the arms: "rrf" (reciprocal rank fusion of both
# rankings) or "rerank" (full text's candidates re-scored by their sub-word
# similarity to the question and their vectors); "auto" is rerank for the
# built-in embedder and rrf for neural models.
fusion = {{toml .Retrieval.Fusion}}

[rerank]
# Cross-encoder reranking of each search's candidate_pool: "none", "tei" (Hugging
# Face TEI's /rerank) or "openai" (the /rerank of llama.cpp's server with
# --reranking, vLLM, and Jina- or Cohere-compatible APIs). Searches go on without
# it, with a warning, while its server is down.
provider = {{toml .Rerank.Provider}}
# Reranker model (empty: the one model an openai server lists; TEI serves one).
model = {{toml .Rerank.Model}}
# Server URL (empty: http://localhost:8012 for tei, http://localhost:8012/v1 for openai).
url = {{toml .Rerank.URL}}
# Environment variable holding the server's API key (empty: OPENAI_API_KEY); never the key itself.
api_key_env = {{toml .Rerank.APIKeyEnv}}

[chunking]
# Target chunk size, in tokens.
chunk_tokens = {{toml .Chunking.ChunkTokens}}
# Tokens repeated between neighbouring chunks.
overlap_tokens = {{toml .Chunking.OverlapTokens}}
# Chapters longer than this without sub-headings are split into sections.
section_split_tokens = {{toml .Chunking.SectionSplitTokens}}

[watch]
# Quiet time after the last change to a file before it is indexed.
debounce = {{toml .Watch.Debounce}}
# Full rescan interval, the safety net for missed events.
rescan_interval = {{toml .Watch.RescanInterval}}

[calibre]
# A calibre library (metadata.db at its top) is read as calibre sees it: one
# book per entry, described by its metadata.opf. Of the formats an entry
# holds, the first of these is indexed; formats not named come after them.
prefer = {{toml .Calibre.Prefer}}

[zotero]
# A Zotero data directory (zotero.sqlite at its top) is read from a copy of
# its database: one book per item, with its attachments, notes and
# highlights. Zotero's base directory for linked attachments (Settings →
# Files and Folders), needed only for linked files it stores relative to it;
# empty: the one your Zotero profile sets.
base_dir = {{toml .Zotero.BaseDir}}

[ocr]
# Scanned pages (PDF pages that are images without text) are read by the
# tesseract command: "auto" uses it when it is installed, "off" never does.
# Without it a book of scans waits, listed by status, until tesseract is there.
enabled = {{toml .OCR.Enabled}}
# tesseract's languages to read in, as ["eng", "deu"] (empty: the book's own
# language when tesseract has its data, else English).
languages = {{toml .OCR.Languages}}
# Resolution pages are drawn at for OCR.
dpi = {{toml .OCR.DPI}}
# Pages read at once, one tesseract process each (0: one per CPU).
concurrency = {{toml .OCR.Concurrency}}
# The tesseract command (empty: tesseract on PATH).
tesseract = {{toml .OCR.Tesseract}}

[hook]
# How sure the Claude Code prompt hook (grimoire hook claude-code) must be
# before it adds passages to a prompt: "strict", "normal" or "loose" (the
# search's own verdict: more answers, and more noise on prompts that are not
# about the books); "off" adds none.
gate = {{toml .Hook.Gate}}
`

// defaultInitValues are what `grimoire init` writes before it looks at the
// library folders and for Ollama: the defaults.
func defaultInitValues() Config { return defaultConfig() }

// renderConfig writes the configuration v as grimoire.toml.
func renderConfig(v Config) (string, error) {
	t, err := template.New("grimoire.toml").Funcs(template.FuncMap{"toml": tomlValue}).Parse(configTemplate)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// tomlValue writes a configuration value as grimoire.toml holds it.
func tomlValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v), nil
	case []string:
		quoted := make([]string, len(v))
		for i, s := range v {
			quoted[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(quoted, ", ") + "]", nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		// A TOML float needs its point: 60.0, not 60.
		f := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(f, ".") {
			f += ".0"
		}
		return f, nil
	case time.Duration:
		return strconv.Quote(durationText(v)), nil
	}
	return "", fmt.Errorf("grimoire.toml has no form for a %T", v)
}

// durationText writes d in the largest unit that divides it ("2s", "1h",
// "90m"), as people write durations in grimoire.toml.
func durationText(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d != 0 && d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return d.String()
}

func (a *cli) initCmd() *cobra.Command {
	var force, yes bool
	var ollamaURL string
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a grimoire.toml, using a running Ollama if there is one",
		Long: `init writes DIR/grimoire.toml (DIR defaults to the current folder) with every
option and its default. The library is DIR itself, or the --library folders.
If Ollama runs, its embedding models are offered (nomic-embed-text by
default) and a small chat model for Contextual Retrieval; otherwise the
built-in embedder is kept. Nothing is ever downloaded.`,
		Args: cobra.MaximumNArgs(1),
		// init must work before any configuration exists.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return a.runInit(cmd.Context(), dir, ollamaURL, force, yes)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing grimoire.toml")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "take the suggested models without asking")
	cmd.Flags().StringVar(&ollamaURL, "ollama-url", embed.DefaultOllamaURL, "where to look for Ollama")
	return cmd
}

func (a *cli) runInit(ctx context.Context, dir, ollamaURL string, force, yes bool) error {
	cwd, err := a.getwd()
	if err != nil {
		return err
	}
	abs := inFolder(cwd, dir)
	libs := a.libraryFlag
	if len(libs) == 0 {
		libs = []string{abs}
	}
	roots := make([]string, len(libs))
	for i, l := range libs {
		if roots[i], err = absPath(".", l); err != nil {
			return err
		}
	}
	// The library must be there already: a misspelt DIR would otherwise
	// become an empty library. A folder for the config file alone may be
	// made.
	path := filepath.Join(abs, "grimoire.toml")
	lib := &Config{Library: roots, file: path, libraryFromFile: true}
	lib.DBPath, _ = lib.libraryIndex()
	if err := lib.requireFolders(ctx); err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("%s: %w", abs, err)
	}
	if _, err := os.Stat(path); err == nil && !force {
		return (&fault.Error{Code: fault.Conflict, Msg: path + " already exists"}).WithHint("pass --force to overwrite it")
	}
	v := defaultInitValues()
	for _, p := range roots {
		if rel, err := filepath.Rel(abs, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel // inside the config's folder: keep it movable
		}
		v.Library = append(v.Library, filepath.ToSlash(p))
	}

	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := embed.Detect(dctx, ollamaURL)
	if err != nil {
		fmt.Fprintf(a.stdout, "No Ollama answers at %s: keeping the built-in embedder (offline, lexical).\n", ollamaURL)
		fmt.Fprintln(a.stdout, "For semantic search, install Ollama, run `ollama pull nomic-embed-text`, then `grimoire init --force`.")
	} else {
		chats, _ := llm.Detect(dctx, ollamaURL)
		ask := !yes && a.stdinIsTerminal()
		in := bufio.NewReader(a.stdin)
		if len(models) == 0 {
			fmt.Fprintf(a.stdout, "Ollama runs at %s but has no embedding model: keeping the built-in embedder.\n", ollamaURL)
			fmt.Fprintln(a.stdout, "Run `ollama pull nomic-embed-text`, then `grimoire init --force`.")
		} else {
			m := pick(models, []string{"nomic-embed-text", "mxbai-embed-large", "bge-m3", "snowflake-arctic-embed"})
			if ask {
				m = a.choose(in, "embedding model", models, m)
			}
			v.Embedding.Provider, v.Embedding.Model = embed.ProviderOllama, m
			if ollamaURL != embed.DefaultOllamaURL {
				v.Embedding.URL = ollamaURL
			}
			fmt.Fprintf(a.stdout, "Embeddings: Ollama's %s.\n", m)
		}
		if len(chats) > 0 {
			m := pick(chats, []string{"llama3.2", "qwen2.5:3b", "qwen3:4b", "gemma3:4b", "phi4-mini", "llama3.2:1b", "gemma3"})
			// Contexts cost seconds of a laptop's CPU per chunk: only on
			// the user's word.
			if ask && a.confirm(in, fmt.Sprintf("Write Contextual Retrieval contexts with %s? Better search, but a few seconds per chunk on a laptop [y/N] ", m)) {
				v.Context.Provider, v.Context.Model = llm.ProviderOllama, a.choose(in, "chat model", chats, m)
				if ollamaURL != embed.DefaultOllamaURL {
					v.Context.URL = ollamaURL
				}
			} else {
				fmt.Fprintf(a.stdout, "Chat model %s found: set [context] provider = \"ollama\" and model = %q to write Contextual Retrieval contexts with it.\n", m, m)
			}
		}
	}
	text, err := renderConfig(v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Wrote %s.\n", path)
	if exists(lib.DBPath) {
		// Indexed before, by --library or an earlier init: the same index.
		fmt.Fprintf(a.stdout, "The library's index is %s, built already: sync brings it up to date, and `reindex --embeddings` switches it to a new embedding model.\n", lib.DBPath)
	} else {
		fmt.Fprintf(a.stdout, "The library's index will be %s.\n", lib.DBPath)
	}
	fmt.Fprintf(a.stdout, "Next: grimoire --config %s sync   (then `grimoire --config %s mcp-config` for Claude)\n", shellQuote(path), shellQuote(path))
	return nil
}

// pick returns the first preferred model that is present (by name, with or
// without a tag), else the first model.
func pick(models, preferred []string) string {
	for _, p := range preferred {
		for _, m := range models {
			if m == p || strings.HasPrefix(m, p+":") || strings.TrimSuffix(m, ":latest") == p {
				return m
			}
		}
	}
	return models[0]
}

func (a *cli) choose(in *bufio.Reader, what string, options []string, def string) string {
	fmt.Fprintf(a.stdout, "Ollama has these %ss:\n", what)
	for i, o := range options {
		fmt.Fprintf(a.stdout, "  %d. %s\n", i+1, o)
	}
	fmt.Fprintf(a.stdout, "Which %s? [%s] ", what, def)
	line, _ := in.ReadString('\n')
	line = strings.TrimSpace(line)
	if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(options) {
		return options[n-1]
	}
	for _, o := range options {
		if o == line {
			return o
		}
	}
	return def
}

func (a *cli) confirm(in *bufio.Reader, question string) bool {
	fmt.Fprint(a.stdout, question)
	line, _ := in.ReadString('\n')
	line = strings.ToLower(strings.TrimSpace(line))
	return line == "y" || line == "yes"
}

func (a *cli) stdinIsTerminal() bool {
	f, ok := a.stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
