// Package index owns grimoire's SQLite index: the schema and its migrations,
// the domain types (Book, Chapter, Section, Chunk, File and the content Hash),
// the single writer with its cross-process lock, read-only readers, full-text
// and vector storage, and the embedding-model stamp.
//
// Everything above this package reads and writes the index through it; it
// knows nothing about file formats.
package index
