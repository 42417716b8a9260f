// Package index owns grimoire's SQLite index: the schema and its migrations,
// the single writer with its cross-process lock, read-only readers, full-text
// and vector storage, and the stamps of the models whose work it holds. It
// stores the library's values (package library) and marks SQLite's
// corruption errors as fault.Damaged where they leave it.
//
// Everything above this package reads and writes the index through it; it
// knows nothing about file formats.
package index
