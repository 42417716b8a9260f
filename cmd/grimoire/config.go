package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"github.com/grimoire-search/grimoire/index"
)

// Config is grimoire.toml. Every key has a default (see defaultConfig and
// the commented grimoire.toml at the repository root).
type Config struct {
	Library     []string `mapstructure:"library"`
	DBPath      string   `mapstructure:"db_path"`
	MaxFileSize int64    `mapstructure:"max_file_size_mb"`
	LogLevel    string   `mapstructure:"log_level"`

	Embedding struct {
		Provider       string `mapstructure:"provider"`
		Model          string `mapstructure:"model"`
		URL            string `mapstructure:"url"`
		APIKeyEnv      string `mapstructure:"api_key_env"`
		QueryPrefix    string `mapstructure:"query_prefix"`
		DocumentPrefix string `mapstructure:"document_prefix"`
	} `mapstructure:"embedding"`
	Context struct {
		Provider    string `mapstructure:"provider"`
		Model       string `mapstructure:"model"`
		URL         string `mapstructure:"url"`
		APIKeyEnv   string `mapstructure:"api_key_env"`
		Concurrency int    `mapstructure:"concurrency"`
	} `mapstructure:"context"`
	Retrieval struct {
		Mode          string  `mapstructure:"mode"`
		RRFK          float64 `mapstructure:"rrf_k"`
		CandidatePool int     `mapstructure:"candidate_pool"`
		FTSWeight     float64 `mapstructure:"fts_weight"`
		VectorWeight  float64 `mapstructure:"vector_weight"`
		Fusion        string  `mapstructure:"fusion"`
	} `mapstructure:"retrieval"`
	Chunking struct {
		ChunkTokens        int `mapstructure:"chunk_tokens"`
		OverlapTokens      int `mapstructure:"overlap_tokens"`
		SectionSplitTokens int `mapstructure:"section_split_tokens"`
	} `mapstructure:"chunking"`
	Watch struct {
		Debounce       time.Duration `mapstructure:"debounce"`
		RescanInterval time.Duration `mapstructure:"rescan_interval"`
	} `mapstructure:"watch"`

	// file is the config file read, "" for none.
	file string
	// libraryFromFile: the library folders are the config file's (not
	// --library, GRIMOIRE_LIBRARY or the current folder).
	libraryFromFile bool
	// named: the library or the index was named (config file, flag or
	// environment), rather than both defaulting to the current folder.
	named bool
}

// defaults are the built-in values of every key. They are also how viper
// learns the keys, so that GRIMOIRE_<SECTION>_<KEY> works for keys absent
// from the file.
func defaults() map[string]any {
	return map[string]any{
		"library":                       []string{},
		"db_path":                       "",
		"max_file_size_mb":              int64(512),
		"log_level":                     "warn",
		"embedding.provider":            "builtin",
		"embedding.model":               "",
		"embedding.url":                 "",
		"embedding.api_key_env":         "",
		"embedding.query_prefix":        "",
		"embedding.document_prefix":     "",
		"context.provider":              "none",
		"context.model":                 "",
		"context.url":                   "",
		"context.api_key_env":           "",
		"context.concurrency":           2,
		"retrieval.mode":                "hybrid",
		"retrieval.rrf_k":               60.0,
		"retrieval.candidate_pool":      50,
		"retrieval.fts_weight":          1.0,
		"retrieval.vector_weight":       0.0,
		"retrieval.fusion":              "auto",
		"chunking.chunk_tokens":         400,
		"chunking.overlap_tokens":       60,
		"chunking.section_split_tokens": 3000,
		"watch.debounce":                "2s",
		"watch.rescan_interval":         "1h",
	}
}

// envPrefix is the prefix of environment overrides.
const envPrefix = "GRIMOIRE_"

// loadConfig finds and reads the configuration: --config or GRIMOIRE_CONFIG,
// else ./grimoire.toml when present, else the defaults. Environment
// variables override the file; the --library flag overrides both.
func loadConfig(configFlag string, libraryFlag []string) (*Config, error) {
	v := viper.New()
	for k, d := range defaults() {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix(strings.TrimSuffix(envPrefix, "_"))
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()

	file := configFlag
	if file == "" {
		file = os.Getenv(envPrefix + "CONFIG")
	}
	explicit := file != ""
	if !explicit {
		if _, err := os.Stat("grimoire.toml"); err == nil {
			file = "grimoire.toml"
		}
	}
	if file != "" {
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		file = abs
		v.SetConfigFile(file)
		v.SetConfigType("toml")
		if err := v.ReadInConfig(); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, (&index.Error{Code: index.Invalid, Msg: "config file " + file + " does not exist"}).
					WithHint("`grimoire init` writes one, or leave out --config to use the defaults")
			}
			return nil, &index.Error{Code: index.Invalid, Msg: "config file " + file, Err: err}
		}
	}
	var c Config
	hook := mapstructure.ComposeDecodeHookFunc(
		mapstructure.StringToTimeDurationHookFunc(),
		stringToSliceHook,
	)
	if err := v.UnmarshalExact(&c, viper.DecodeHook(hook)); err != nil {
		where := "configuration"
		if file != "" {
			where = "config file " + file
		}
		return nil, &index.Error{Code: index.Invalid, Msg: where + ": " + unknownKeyMessage(err), Hint: "every key is listed, with its default, in the grimoire.toml that `grimoire init` writes"}
	}
	if err := checkEnv(); err != nil {
		return nil, err
	}
	c.file = file
	// Paths in the file are relative to the file; paths given on the
	// command line or in the environment, to the current directory.
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	c.libraryFromFile = file != "" && len(c.Library) > 0
	if len(libraryFlag) > 0 || os.Getenv(envPrefix+"LIBRARY") != "" {
		c.libraryFromFile = false
		if len(libraryFlag) > 0 {
			c.Library = libraryFlag
		}
		for i, l := range c.Library {
			if c.Library[i], err = absPath(cwd, l); err != nil {
				return nil, err
			}
		}
	}
	if os.Getenv(envPrefix+"DB_PATH") != "" {
		if c.DBPath, err = absPath(cwd, c.DBPath); err != nil {
			return nil, err
		}
	}
	c.named = len(c.Library) > 0 || c.DBPath != ""
	base := cwd
	if file != "" {
		base = filepath.Dir(file)
	}
	if err := c.resolve(base); err != nil {
		return nil, err
	}
	return &c, nil
}

// stringToSliceHook lets GRIMOIRE_LIBRARY hold several folders, separated
// like PATH (":" on Unix, ";" on Windows).
func stringToSliceHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() == reflect.String && to.Kind() == reflect.Slice {
		s := data.(string)
		if s == "" {
			return []string{}, nil
		}
		return filepath.SplitList(s), nil
	}
	return data, nil
}

// unknownKeyMessage makes mapstructure's complaint about unknown keys name
// them plainly.
func unknownKeyMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "has invalid keys: "); i >= 0 {
		keys := strings.TrimSpace(msg[i+len("has invalid keys: "):])
		if j := strings.IndexByte(keys, '\n'); j >= 0 {
			keys = keys[:j]
		}
		return "unknown key " + keys
	}
	return msg
}

// checkEnv refuses GRIMOIRE_* variables that name no key: viper would
// silently ignore a typo.
func checkEnv() error {
	known := map[string]bool{"CONFIG": true, "TEST_CORPUS": true, "HTTP_TOKEN": true}
	for k := range defaults() {
		known[strings.ToUpper(strings.ReplaceAll(k, ".", "_"))] = true
	}
	var unknown []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if rest, ok := strings.CutPrefix(name, envPrefix); ok && !known[rest] && !strings.HasSuffix(rest, "_API_KEY") {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return (&index.Error{Code: index.Invalid, Msg: "unknown environment variable " + strings.Join(unknown, ", ")}).
			WithHint("they are named GRIMOIRE_<SECTION>_<KEY>, like GRIMOIRE_RETRIEVAL_MODE")
	}
	return nil
}

// requireLibrary is for the commands that scan the library.
func (c *Config) requireLibrary() error {
	if len(c.Library) == 0 {
		return (&index.Error{Code: index.Invalid, Msg: "no library folder configured"}).
			WithHint("set library in " + c.file + ", or pass --library DIR")
	}
	return nil
}

// resolve makes paths absolute (relative to the config file's folder) and
// fills the defaults that depend on other keys.
func (c *Config) resolve(base string) error {
	if len(c.Library) == 0 && c.file == "" {
		// No configuration at all: the current folder is the library.
		c.Library = []string{"."}
	}
	seen := map[string]bool{}
	roots := c.Library[:0]
	for _, l := range c.Library {
		p, err := absPath(base, l)
		if err != nil {
			return err
		}
		if !seen[p] {
			seen[p] = true
			roots = append(roots, p)
		}
	}
	c.Library = roots
	switch {
	case c.DBPath != "":
		p, err := absPath(base, c.DBPath)
		if err != nil {
			return err
		}
		c.DBPath = p
	case c.libraryFromFile:
		c.DBPath = filepath.Join(filepath.Dir(c.file), "grimoire.db")
	case len(c.Library) > 0:
		// A library named on the command line keeps its index inside
		// itself, whatever config file the current folder holds, so the
		// same --library always finds the same index.
		c.DBPath = filepath.Join(c.Library[0], ".grimoire", "grimoire.db")
	default:
		c.DBPath = filepath.Join(filepath.Dir(c.file), "grimoire.db")
	}
	if c.MaxFileSize < 0 {
		return index.Errorf(index.Invalid, "max_file_size_mb must not be negative")
	}
	switch c.Retrieval.Mode {
	case "hybrid", "fts", "vector":
	default:
		return index.Errorf(index.Invalid, "[retrieval] mode = %q: want \"hybrid\", \"fts\" or \"vector\"", c.Retrieval.Mode)
	}
	switch c.Retrieval.Fusion {
	case "auto", "rrf", "rerank":
	default:
		return index.Errorf(index.Invalid, "[retrieval] fusion = %q: want \"auto\", \"rrf\" or \"rerank\"", c.Retrieval.Fusion)
	}
	if err := c.embedConfig().Validate(); err != nil {
		return err
	}
	if err := c.llmConfig().Validate(); err != nil {
		return err
	}
	if c.Context.Concurrency < 1 || c.Context.Concurrency > 64 {
		return index.Errorf(index.Invalid, "[context] concurrency = %d: want 1 to 64", c.Context.Concurrency)
	}
	if c.Watch.Debounce <= 0 {
		return index.Errorf(index.Invalid, "[watch] debounce must be positive")
	}
	if c.Watch.RescanInterval < time.Minute {
		return index.Errorf(index.Invalid, "[watch] rescan_interval must be at least 1m")
	}
	return nil
}

func absPath(base, p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand %s: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}
