// Package embed turns text into vectors for the vector arm of search. It holds
// the providers (the built-in embedder here; Ollama and OpenAI-compatible
// servers beside it) behind one small interface.
package embed

import "context"

// Info identifies an embedding model. It is stamped into the index on first
// use, so that vectors of different models are never compared.
type Info struct {
	// Provider is ProviderBuiltin, ProviderOllama or ProviderOpenAI.
	Provider string
	// Model names the model and, for the built-in embedder, the version of
	// its algorithm: any change that alters vectors must change Model.
	Model string
	// Dim is the length of every vector the model returns.
	Dim int
	// Prefix names the query/document prefix scheme applied ("" for none).
	Prefix string
	// ContextLength is the longest text the model takes, in its own tokens
	// and counting the document prefix; 0 when unknown. A longer text is
	// refused with a *TooLongError, never cut. It is not part of the stamp:
	// it sizes chunks, it does not change vectors.
	ContextLength int
}

// Embedder embeds documents and queries. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Info describes the model; it does not change over the embedder's life.
	Info() Info
	// EmbedDocuments returns one unit-length vector of Info().Dim per text,
	// in order. An error means no vector of the batch is usable.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the unit-length vector of a search query.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}
