package embed

import (
	"fmt"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/modelserver"
)

// Kinds of failure of the server-backed embedders; match them with
// errors.Is. All but ErrTooLong mean that no text will embed until the user
// acts, so a run should stop on them rather than fail book after book; they
// are fault.Invalid, as mistakes in the configuration are.
var (
	// ErrUnreachable: nothing answers at the configured URL.
	ErrUnreachable = modelserver.ErrUnreachable
	// ErrModelNotFound: the server does not have the configured model. The
	// error says how to get it; nothing is ever downloaded by grimoire.
	ErrModelNotFound = modelserver.ErrModelNotFound
	// ErrUnauthorized: the server refused the API key, or wants one.
	ErrUnauthorized = modelserver.ErrUnauthorized
	// ErrNotEmbeddingModel: the configured model is a chat model.
	ErrNotEmbeddingModel error = fault.Errorf(fault.Invalid, "not an embedding model")
	// ErrTooLong: a text is longer than the model's context. The error is a
	// *TooLongError naming the texts; split them and embed again.
	ErrTooLong = modelserver.ErrTooLong
)

// TooLongError reports the texts of a call that are longer than the model
// takes. The server refused them (it was told not to truncate); no vector of
// the call is returned.
type TooLongError struct {
	// Indexes are the positions, in the texts passed to EmbedDocuments,
	// of the texts that are too long, ascending; [0] for EmbedQuery.
	Indexes []int
	// Limit is the model's context in tokens, when known; else 0.
	Limit int
	// Err is the server's refusal.
	Err error

	query bool // from EmbedQuery
}

func (e *TooLongError) Error() string {
	what, fix := "the query is", "shorten the query"
	if !e.query {
		fix = "split the text, or lower [chunking] chunk_tokens"
		switch {
		case len(e.Indexes) == 1:
			what = fmt.Sprintf("text %d is", e.Indexes[0])
		case len(e.Indexes) > 1:
			what = fmt.Sprintf("%d texts (the first is text %d) are", len(e.Indexes), e.Indexes[0])
		default:
			what = "a text is"
		}
	}
	limit := "the model's context"
	if e.Limit > 0 {
		limit = fmt.Sprintf("the model's context of %d tokens", e.Limit)
	}
	s := fmt.Sprintf("%s longer than %s", what, limit)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s + " — " + fix
}

// Is matches ErrTooLong.
func (e *TooLongError) Is(target error) bool { return target == ErrTooLong }

// Unwrap returns the server's refusal.
func (e *TooLongError) Unwrap() error { return e.Err }
