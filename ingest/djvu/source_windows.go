package djvu

import (
	"os"
	"os/exec"
)

// pageSource is the document as ddjvu reads it: on Windows, which hands
// a child no descriptors but its standard ones, a named temporary file,
// removed when the drawing ends.
type pageSource struct {
	arg string
}

func newPageSource(data []byte) (*pageSource, error) {
	f, err := os.CreateTemp("", "grimoire-*.djvu")
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return &pageSource{arg: f.Name()}, nil
}

func (s *pageSource) pass(*exec.Cmd) {}

func (s *pageSource) close() { os.Remove(s.arg) }
