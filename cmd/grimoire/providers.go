package main

import (
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/model/llm"
	"github.com/grimoire-search/grimoire/model/rerank"
)

// embedConfig is the [embedding] section as package embed takes it.
func (c *Config) embedConfig() embed.Config { return c.Embedding.config() }

// config is the section as package embed takes it. Either prefix set
// replaces both of the model family's.
func (e embeddingSection) config() embed.Config {
	var prefixes *embed.Prefixes
	if e.QueryPrefix != "" || e.DocumentPrefix != "" {
		prefixes = &embed.Prefixes{Query: e.QueryPrefix, Document: e.DocumentPrefix}
	}
	return embed.Config{Provider: e.Provider, Model: e.Model, URL: e.URL, APIKeyEnv: e.APIKeyEnv, Prefixes: prefixes}
}

// llmConfig is the [context] section as package llm takes it.
func (c *Config) llmConfig() llm.Config {
	x := c.Context
	return llm.Config{Provider: x.Provider, Model: x.Model, URL: x.URL, APIKeyEnv: x.APIKeyEnv}
}

// rerankConfig is the [rerank] section as package rerank takes it.
func (c *Config) rerankConfig() rerank.Config {
	r := c.Rerank
	return rerank.Config{Provider: r.Provider, Model: r.Model, URL: r.URL, APIKeyEnv: r.APIKeyEnv}
}
