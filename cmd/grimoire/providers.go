package main

import (
	"os"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model/llm"
	"github.com/grimoire-search/grimoire/model/rerank"
	"github.com/grimoire-search/grimoire/source/zotero"
	"github.com/grimoire-search/grimoire/watcher"
)

// settings is the configuration as the application service takes it.
func (c *Config) settings() app.Settings {
	x, r, ch, o := c.Context, c.Rerank, c.Chunking, c.OCR
	return app.Settings{
		Library:            c.Library,
		DBPath:             c.DBPath,
		MaxFileSize:        c.MaxFileSize << 20,
		Embedding:          c.Embedding,
		Context:            llm.Config{Provider: x.Provider, Model: x.Model, URL: x.URL, APIKeyEnv: x.APIKeyEnv},
		ContextConcurrency: x.Concurrency,
		Rerank:             rerank.Config{Provider: r.Provider, Model: r.Model, URL: r.URL, APIKeyEnv: r.APIKeyEnv},
		Retrieval:          c.retrieveOptions(),
		Chunking:           ingest.Chunking{ChunkTokens: ch.ChunkTokens, OverlapTokens: ch.OverlapTokens, SectionSplitTokens: ch.SectionSplitTokens},
		OCR: ingest.OCROptions{
			Off:         o.Enabled == "off",
			Tesseract:   o.Tesseract,
			Languages:   o.Languages,
			DPI:         o.DPI,
			Concurrency: o.Concurrency,
		},
		CalibrePrefer: c.Calibre.Prefer,
		ZoteroBaseDir: c.zoteroBaseDir(),
		Watch:         watcher.Options{Debounce: c.Watch.Debounce, RescanInterval: c.Watch.RescanInterval},
	}
}

// zoteroBaseDir is [zotero] base_dir, else the one the user's Zotero
// profile sets, which Zotero's own settings keep.
func (c *Config) zoteroBaseDir() string {
	if c.Zotero.BaseDir != "" {
		return c.Zotero.BaseDir
	}
	home, _ := os.UserHomeDir()
	return zotero.ProfileBaseDir(home, os.Getenv("APPDATA"))
}
