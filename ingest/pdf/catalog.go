package pdf

import "github.com/grimoire-search/grimoire/ingest/doc"

// infoCatalog is what the Info dictionary says of a document beyond its
// title and author.
type infoCatalog struct {
	subject, keywords string
}

// catalog returns the catalogue the Info gives: the subject as a tag, the
// keywords split into tags. Its creation date is not the publication
// date: a converted or reprinted book is made long after. Keywords are
// often junk (a generator's name, a sentence, a list of hundreds): the
// catalogue's caps keep a few short ones at most.
func (i infoCatalog) catalog() doc.Catalog {
	var c doc.Catalog
	c.AddTag(cleanMeta(i.subject))
	c.AddKeywords(cleanMeta(i.keywords))
	return c.Clean()
}
