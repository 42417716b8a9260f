package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/internal/suggest"
	"github.com/grimoire-search/grimoire/model/rerank"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/retrieve"
	"github.com/grimoire-search/grimoire/source/calibre"
	"github.com/grimoire-search/grimoire/watcher"
)

// Config is grimoire.toml. Every key has a default (see defaultConfig and
// the commented grimoire.toml at the repository root, which init's template
// renders from it).
type Config struct {
	Library     []string `mapstructure:"library"`
	DBPath      string   `mapstructure:"db_path"`
	MaxFileSize int64    `mapstructure:"max_file_size_mb"`
	LogLevel    string   `mapstructure:"log_level"`

	Embedding app.Embedding `mapstructure:"embedding"`
	Context   struct {
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
	Rerank struct {
		Provider  string `mapstructure:"provider"`
		Model     string `mapstructure:"model"`
		URL       string `mapstructure:"url"`
		APIKeyEnv string `mapstructure:"api_key_env"`
	} `mapstructure:"rerank"`
	Chunking struct {
		ChunkTokens        int `mapstructure:"chunk_tokens"`
		OverlapTokens      int `mapstructure:"overlap_tokens"`
		SectionSplitTokens int `mapstructure:"section_split_tokens"`
	} `mapstructure:"chunking"`
	Watch struct {
		Debounce       time.Duration `mapstructure:"debounce"`
		RescanInterval time.Duration `mapstructure:"rescan_interval"`
	} `mapstructure:"watch"`
	Calibre struct {
		Prefer []string `mapstructure:"prefer"`
	} `mapstructure:"calibre"`
	Zotero struct {
		// BaseDir is Zotero's base directory for linked attachments
		// (Settings → Files and Folders), which its database stores
		// relative paths against.
		BaseDir string `mapstructure:"base_dir"`
	} `mapstructure:"zotero"`
	OCR struct {
		Enabled     string   `mapstructure:"enabled"`
		Languages   []string `mapstructure:"languages"`
		DPI         int      `mapstructure:"dpi"`
		Concurrency int      `mapstructure:"concurrency"`
		Tesseract   string   `mapstructure:"tesseract"`
	} `mapstructure:"ocr"`
	Hook struct {
		Gate string `mapstructure:"gate"`
	} `mapstructure:"hook"`

	// file is the config file read, "" for none.
	file string
	// libraryFromFile: the library folders are the config file's (not
	// --library, GRIMOIRE_LIBRARY or the current folder).
	libraryFromFile bool
	// cwdLibrary: nothing named the library, so it is the current folder.
	cwdLibrary bool
	// named: the library or the index was named (config file, flag or
	// environment), rather than both defaulting to the current folder.
	named bool
	// indexNote warns that the library has two indexes and says which one
	// DBPath is; "" when it has one.
	indexNote string
}

// defaultConfig is the configuration before any file, environment
// variable or flag is read: the packages' own defaults, and the command's
// where no package decides (the log level, the providers).
func defaultConfig() Config {
	var c Config
	c.Library = []string{}
	c.MaxFileSize = reconcile.DefaultMaxFileSize >> 20
	c.LogLevel = "warn"
	c.Embedding.Provider = "builtin"
	c.Context.Provider = "none"
	c.Rerank.Provider = rerank.ProviderNone
	c.Context.Concurrency = ingest.DefaultContextConcurrency
	r := retrieve.ConfigDefaults()
	c.Retrieval.Mode, c.Retrieval.Fusion = r.Mode, r.Fusion
	c.Retrieval.RRFK, c.Retrieval.CandidatePool = r.RRFK, r.CandidatePool
	c.Retrieval.FTSWeight, c.Retrieval.VectorWeight = r.FTSWeight, r.VectorWeight
	ch := ingest.DefaultChunking()
	c.Chunking.ChunkTokens, c.Chunking.OverlapTokens, c.Chunking.SectionSplitTokens = ch.ChunkTokens, ch.OverlapTokens, ch.SectionSplitTokens
	c.Watch.Debounce, c.Watch.RescanInterval = watcher.DefaultDebounce, watcher.DefaultRescanInterval
	c.Calibre.Prefer = calibre.DefaultPrefer()
	c.OCR.Enabled, c.OCR.Languages, c.OCR.DPI = "auto", []string{}, ingest.DefaultOCRDPI
	c.Hook.Gate = retrieve.DefaultGate
	return c
}

// defaults are the built-in values of every key, named as viper names them
// ("section.key"): defaultConfig, flattened. They are also how viper
// learns the keys, so that GRIMOIRE_<SECTION>_<KEY> works for keys absent
// from the file.
func defaults() map[string]any {
	out := make(map[string]any)
	flattenKeys(reflect.ValueOf(defaultConfig()), "", out)
	return out
}

// flattenKeys puts every field of the struct v that has a key (a
// mapstructure tag) into out, under prefix and its key; a section's fields
// go under "section.".
func flattenKeys(v reflect.Value, prefix string, out map[string]any) {
	for i := range v.NumField() {
		key := v.Type().Field(i).Tag.Get("mapstructure")
		if key == "" {
			continue // not a key: what loading found out
		}
		if f := v.Field(i); f.Kind() == reflect.Struct {
			flattenKeys(f, prefix+key+".", out)
		} else {
			out[prefix+key] = f.Interface()
		}
	}
}

// retrieveOptions turns [retrieval] into the options retrieve.Open takes.
func (c *Config) retrieveOptions() retrieve.Options {
	o := retrieve.DefaultOptions()
	r := c.Retrieval
	o.Mode, o.RRFK, o.CandidatePool = r.Mode, r.RRFK, r.CandidatePool
	o.FTSWeight, o.VectorWeight = r.FTSWeight, r.VectorWeight
	o.Fusion = r.Fusion
	o.SourceTypes = ingest.Formats().Types()
	return o
}

// envPrefix is the prefix of environment overrides.
const envPrefix = "GRIMOIRE_"

// loadConfig finds and reads the configuration: --config or GRIMOIRE_CONFIG,
// else ./grimoire.toml when present, else the defaults. Environment
// variables override the file; the --library flag overrides both.
func loadConfig(configFlag string, libraryFlag []string, cwd string) (*Config, error) {
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
		if _, err := os.Stat(filepath.Join(cwd, "grimoire.toml")); err == nil {
			file = "grimoire.toml"
		}
	}
	if file != "" {
		file = inFolder(cwd, file)
		v.SetConfigFile(file)
		v.SetConfigType("toml")
		if err := v.ReadInConfig(); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, (&fault.Error{Code: fault.Invalid, Msg: "config file " + file + " does not exist"}).
					WithHint("`grimoire init` writes one, or leave out --config to use the defaults")
			}
			return nil, &fault.Error{Code: fault.Invalid, Msg: "config file " + file, Err: err}
		}
	}
	if err := checkKeys(v, file); err != nil {
		return nil, err
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
		return nil, &fault.Error{Code: fault.Invalid, Msg: where + ": " + unknownKeyMessage(err), Hint: "every key is listed, with its default, in the grimoire.toml that `grimoire init` writes"}
	}
	if err := checkEnv(); err != nil {
		return nil, err
	}
	c.file = file
	// Paths in the file are relative to the file; paths given on the
	// command line or in the environment, to the current directory.
	var err error
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

// checkKeys refuses what the decoder would refuse less helpfully: keys
// grimoire does not have (naming the nearest of their section), and
// durations that are not Go durations (a bare number would be taken as
// nanoseconds).
func checkKeys(v *viper.Viper, file string) error {
	where := "configuration: "
	if file != "" {
		where = "config file " + file + ": "
	}
	known := defaults()
	if msg := unknownKeys(v.AllKeys(), known); msg != "" {
		return (&fault.Error{Code: fault.Invalid, Msg: where + msg}).
			WithHint("every key is listed, with its default, in the grimoire.toml that `grimoire init` writes")
	}
	for _, k := range slices.Sorted(maps.Keys(known)) {
		if _, ok := known[k].(time.Duration); !ok {
			continue
		}
		if err := checkDuration(k, v.Get(k), where); err != nil {
			return err
		}
	}
	return nil
}

// unknownKeys describes the keys among keys that known lacks, each with
// the nearest known key of its section; "" when there are none.
func unknownKeys(keys []string, known map[string]any) string {
	sections := make(map[string][]string) // section → its keys; "" for the top level
	for k := range known {
		sec, key := splitKey(k)
		sections[sec] = append(sections[sec], key)
	}
	var msgs []string
	badSections := make(map[string]bool)
	for _, k := range slices.Sorted(slices.Values(keys)) {
		if _, ok := known[k]; ok {
			continue
		}
		sec, key := splitKey(k)
		if _, ok := sections[sec]; !ok {
			if !badSections[sec] {
				badSections[sec] = true
				msgs = append(msgs, unknownSection(sec, sections))
			}
			continue
		}
		msgs = append(msgs, unknownKey(sec, key, sections))
	}
	return strings.Join(msgs, "; ")
}

// unknownKey says that section (or the top level) has no key named key.
func unknownKey(section, key string, sections map[string][]string) string {
	msg := fmt.Sprintf("unknown key %q", key)
	if section != "" {
		msg += " in [" + section + "]"
	} else if _, ok := sections[key]; ok {
		return fmt.Sprintf("%q is a section: write it as [%s] with its keys below", key, key)
	}
	if near := suggest.Closest(key, sections[section], 3); len(near) > 0 {
		msg += ": did you mean " + suggest.List(near) + "?"
	}
	return msg
}

// unknownSection says that there is no [section].
func unknownSection(section string, sections map[string][]string) string {
	var names []string
	for s := range sections {
		if s != "" {
			names = append(names, s)
		}
	}
	msg := fmt.Sprintf("unknown section [%s]", section)
	if near := suggest.Closest(section, names, 3); len(near) > 0 {
		for i, n := range near {
			near[i] = "[" + n + "]"
		}
		msg += ": did you mean " + strings.Join(near, " or ") + "?"
	}
	return msg
}

// splitKey splits viper's "section.key" into its section ("" for a
// top-level key) and key.
func splitKey(k string) (section, key string) {
	if sec, key, ok := strings.Cut(k, "."); ok {
		return sec, key
	}
	return "", k
}

// checkDuration refuses a value of the duration key k that is not a Go
// duration, naming the environment variable when one set it.
func checkDuration(k string, val any, where string) error {
	switch x := val.(type) {
	case time.Duration:
		return nil
	case string:
		if _, err := time.ParseDuration(x); err == nil {
			return nil
		}
		val = strconv.Quote(x)
	}
	name := strings.ToUpper(envPrefix + strings.ReplaceAll(k, ".", "_"))
	if _, set := os.LookupEnv(name); set {
		where = name + "="
	} else if sec, key := splitKey(k); sec != "" {
		where += "[" + sec + "] " + key + " = "
	} else {
		where += key + " = "
	}
	return (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("%s%v is not a duration", where, val)}).
		WithHint("use a Go duration such as 500ms, 2s or 1m30s")
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
		return (&fault.Error{Code: fault.Invalid, Msg: "unknown environment variable " + strings.Join(unknown, ", ")}).
			WithHint("they are named GRIMOIRE_<SECTION>_<KEY>, like GRIMOIRE_RETRIEVAL_MODE")
	}
	return nil
}

// requireLibrary is for the commands that scan the library. A library
// that is the current folder only because nothing named one is refused
// when it is a home folder or a file system's root, whose scan would take
// in everything below; else, while it has no index yet, the command says
// on note which folder it takes.
func (c *Config) requireLibrary(ctx context.Context, note io.Writer) error {
	if len(c.Library) == 0 {
		return (&fault.Error{Code: fault.Invalid, Msg: "no library folder configured"}).
			WithHint("set library in " + c.file + ", or pass --library DIR")
	}
	if c.cwdLibrary {
		dir := c.Library[0]
		if what := sweepingFolder(dir); what != "" {
			return (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("the current folder %s is %s, and no library is named: grimoire would index everything below it", dir, what)}).
				WithHint(fmt.Sprintf("run it in the folder of your books, or name this one: --library %s, or library in grimoire.toml", dir))
		}
		if !exists(c.DBPath) {
			fmt.Fprintf(note, "grimoire: library: %s (the current folder; --library or grimoire.toml names another)\n", dir)
		}
	}
	return c.requireFolders(ctx)
}

// sweepingFolder says what dir is when it is the user's home folder or
// the root of a file system (a volume's, on Windows); "" when neither.
func sweepingFolder(dir string) string {
	if filepath.Dir(dir) == dir {
		return "the root of a file system"
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	hi, herr := os.Stat(home)
	di, derr := os.Stat(dir)
	if herr == nil && derr == nil && os.SameFile(hi, di) {
		return "your home folder"
	}
	return ""
}

// requireFolders refuses a library folder that does not exist, unless the
// index knows it: a misspelt --library would otherwise get an empty
// library and an index made inside a new folder, or, beside an index
// named by db_path, have the real library's books held as "no longer a
// library folder" and pruned by --prune. A missing folder the index knows
// is an unmounted drive, whose books the evidence rules keep.
func (c *Config) requireFolders(ctx context.Context) error {
	for _, l := range c.Library {
		fi, err := os.Stat(l)
		notFolder := err == nil && !fi.IsDir()
		if !errors.Is(err, fs.ErrNotExist) && !notFolder {
			continue
		}
		if c.indexKnows(ctx, l) {
			continue
		}
		if notFolder {
			return (&fault.Error{Code: fault.Invalid, Msg: "library " + l + " is a file, not a folder"}).
				WithHint("give the folder that holds your books; nothing was written")
		}
		return (&fault.Error{Code: fault.NotFound, Msg: "library folder " + l + " does not exist"}).
			WithHint("check the spelling, or create the folder and put your books in it; nothing was written")
	}
	return nil
}

// indexKnows reports whether the index remembers folder as a library
// folder. An index it cannot read answers yes: the command then meets the
// index's own error, and the evidence rules hold what a pass cannot see.
func (c *Config) indexKnows(ctx context.Context, folder string) bool {
	if _, err := os.Stat(c.DBPath); err != nil {
		return false
	}
	known, err := index.RemembersFolder(ctx, c.DBPath, folder)
	return known || err != nil
}

// resolve makes paths absolute (relative to the config file's folder) and
// fills the defaults that depend on other keys.
func (c *Config) resolve(base string) error {
	if len(c.Library) == 0 && c.file == "" {
		// No configuration at all: the current folder is the library.
		c.Library = []string{"."}
		c.cwdLibrary = true
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
	if c.DBPath != "" {
		p, err := absPath(base, c.DBPath)
		if err != nil {
			return err
		}
		c.DBPath = p
	} else {
		c.DBPath, c.indexNote = c.libraryIndex()
	}
	if c.MaxFileSize < 0 {
		return fault.Errorf(fault.Invalid, "max_file_size_mb must not be negative")
	}
	if err := c.retrieveOptions().Validate(); err != nil {
		return fault.Errorf(fault.Invalid, "[retrieval] %v", err)
	}
	if err := c.Embedding.Config().Validate(); err != nil {
		return err
	}
	if err := c.settings().Context.Validate(); err != nil {
		return err
	}
	if err := c.settings().Rerank.Validate(); err != nil {
		return err
	}
	if c.Context.Concurrency < 1 || c.Context.Concurrency > 64 {
		return fault.Errorf(fault.Invalid, "[context] concurrency = %d: want 1 to 64", c.Context.Concurrency)
	}
	if c.Watch.Debounce <= 0 {
		return fault.Errorf(fault.Invalid, "[watch] debounce must be positive")
	}
	if c.Watch.RescanInterval < time.Minute {
		return fault.Errorf(fault.Invalid, "[watch] rescan_interval must be at least 1m")
	}
	if err := c.checkOCR(base); err != nil {
		return err
	}
	if _, err := retrieve.GateNamed(c.Hook.Gate); err != nil {
		return fault.Errorf(fault.Invalid, "[hook] gate: %v", err)
	}
	return c.checkCalibrePrefer()
}

// checkOCR checks the [ocr] section.
func (c *Config) checkOCR(base string) error {
	switch c.OCR.Enabled {
	case "auto", "off":
	default:
		return fault.Errorf(fault.Invalid, `[ocr] enabled = %q: want "auto" (use tesseract when it is installed) or "off"`, c.OCR.Enabled)
	}
	if c.OCR.DPI < 70 || c.OCR.DPI > 1200 {
		return fault.Errorf(fault.Invalid, "[ocr] dpi = %d: want 70 to 1200 (300 suits most scans)", c.OCR.DPI)
	}
	if c.OCR.Concurrency < 0 || c.OCR.Concurrency > 64 {
		return fault.Errorf(fault.Invalid, "[ocr] concurrency = %d: want 0 (one page per CPU) to 64", c.OCR.Concurrency)
	}
	for _, l := range c.OCR.Languages {
		if l == "" || strings.ContainsAny(l, "+/\\ ") {
			return fault.Errorf(fault.Invalid, `[ocr] languages: %q is not a tesseract language name (as "eng", "deu", "chi_sim")`, l)
		}
	}
	if c.OCR.Tesseract != "" && strings.ContainsRune(c.OCR.Tesseract, filepath.Separator) {
		p, err := absPath(base, c.OCR.Tesseract)
		if err != nil {
			return err
		}
		c.OCR.Tesseract = p
	}
	if c.Zotero.BaseDir != "" {
		p, err := absPath(base, c.Zotero.BaseDir)
		if err != nil {
			return err
		}
		c.Zotero.BaseDir = p
	}
	return nil
}

// checkCalibrePrefer checks that [calibre] prefer names formats grimoire
// reads, and writes them as the index names them.
func (c *Config) checkCalibrePrefer() error {
	types := ingest.Formats().Types()
	for i, t := range c.Calibre.Prefer {
		t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "."))
		if !slices.Contains(types, t) {
			msg := fmt.Sprintf("[calibre] prefer: %q is not a format grimoire reads", c.Calibre.Prefer[i])
			if near := suggest.Closest(t, types, 3); len(near) > 0 {
				msg += ": did you mean " + suggest.List(near) + "?"
			}
			return fault.Errorf(fault.Invalid, "%s", msg)
		}
		c.Calibre.Prefer[i] = t
	}
	return nil
}

// libraryIndex is where the library's index is when db_path does not say:
// .grimoire/grimoire.db inside the first library folder, however the
// library was named (--library, a config file, the current folder), so
// that every way of naming it finds the same index. An older grimoire kept
// the index of a config file's library beside the file, as grimoire.db;
// such an index goes on being used while it is the only one (moving it
// could pull it from under a running writer or reader). When both exist,
// the one written last is used and note says so.
func (c *Config) libraryIndex() (path, note string) {
	home := filepath.Dir(c.file) // no library: only the file names anything
	if len(c.Library) > 0 {
		home = c.Library[0]
	}
	current := filepath.Join(home, ".grimoire", "grimoire.db")
	var older []string
	if c.file != "" && (c.libraryFromFile || len(c.Library) == 0) {
		older = append(older, filepath.Join(filepath.Dir(c.file), "grimoire.db"))
	}
	// A config file in the library folder put it there, and --library
	// must find it as well as the file does.
	older = append(older, filepath.Join(home, "grimoire.db"))
	old := ""
	for _, p := range older {
		if isSQLite(p) {
			old = p
			break
		}
	}
	switch {
	case old == "":
		return current, ""
	case !exists(current):
		return old, ""
	}
	used, unused := current, old
	if lastWritten(old).After(lastWritten(current)) {
		used, unused = old, current
	}
	return used, fmt.Sprintf("this library has two indexes: using %s (written last), not %s; "+
		"delete the one you do not want (with its -wal and -shm files), or set db_path in grimoire.toml to choose", used, unused)
}

// isSQLite reports whether path is a regular file that begins as an SQLite
// database does: a grimoire.db that is not an index is none of ours.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return string(head) == "SQLite format 3\x00"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// lastWritten is when the index at path was last written: its file's or
// its write-ahead log's modification time, whichever is later. Readers
// change neither.
func lastWritten(path string) time.Time {
	var t time.Time
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
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
