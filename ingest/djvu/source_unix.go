//go:build !windows

package djvu

import (
	"os"
	"os/exec"
)

// pageSource is the document as ddjvu reads it: a temporary file removed
// as soon as it is made and handed down as descriptor 3, so a grimoire
// killed while it draws leaves no copy of the book behind; the system
// frees the file when its last descriptor closes.
type pageSource struct {
	f   *os.File
	arg string
}

func newPageSource(data []byte) (*pageSource, error) {
	f, err := os.CreateTemp("", "grimoire-*.djvu")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	// The first of ExtraFiles is the child's descriptor 3.
	return &pageSource{f: f, arg: "/dev/fd/3"}, nil
}

// pass hands the file to cmd. ddjvu seeks in it from the start; the
// children run one at a time, so sharing its offset is safe.
func (s *pageSource) pass(cmd *exec.Cmd) {
	cmd.ExtraFiles = []*os.File{s.f}
}

func (s *pageSource) close() { s.f.Close() }
