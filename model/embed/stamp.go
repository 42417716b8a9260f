package embed

import "github.com/grimoire-search/grimoire/model"

// Stamp is how the index records the model: what must be equal for two
// vectors to be compared. ContextLength is left out; it sizes chunks and
// does not change vectors.
func (i Info) Stamp() model.Stamp {
	return model.Stamp{Provider: i.Provider, Model: i.Model, Dim: i.Dim, Prefix: i.Prefix}
}
