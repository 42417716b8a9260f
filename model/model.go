// Package model names the models grimoire uses, for what it stores: the
// stamp of the embedding model whose vectors an index holds, and of the
// chat model and prompts that wrote its contexts. The providers themselves
// live below it: embed (embedders), llm (chat models for contexts), rerank
// (cross-encoders) and modelserver (the HTTP client they share).
package model

import "fmt"

// Stamp identifies the embedding model whose vectors the index holds.
type Stamp struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Dim      int    `json:"dim"`
	Prefix   string `json:"prefix,omitempty"`
}

func (s Stamp) String() string {
	return fmt.Sprintf("%s/%s (%d dimensions)", s.Provider, s.Model, s.Dim)
}

// ContextStamp names the model and prompts that wrote the chunk contexts.
type ContextStamp struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Prompt   string `json:"prompt"`
}
