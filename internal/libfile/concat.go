package libfile

import (
	"context"
	"fmt"
	"io"
	"io/fs"
)

// Part is one file of a book made of several (an mdBook's chapters, a
// Zotero item's attachments), as a stat saw it below its library folder.
type Part struct {
	Root, Path string
	Info       Info
}

// Concat gives head, then each part's bytes in turn, each opened as Open
// opens it when the read reaches it: a part that is not what the stat saw
// any more (written to, replaced, a link now) fails the read with
// ErrChanged or the error Open gives.
func Concat(ctx context.Context, head []byte, parts []Part) io.ReadCloser {
	return &concat{ctx: ctx, head: head, parts: parts}
}

type concat struct {
	ctx   context.Context
	head  []byte
	parts []Part
	next  int // the part to open next
	cur   *File
	r     io.Reader
	err   error
}

func (c *concat) Read(p []byte) (int, error) {
	for {
		if c.err != nil {
			return 0, c.err
		}
		if len(c.head) > 0 {
			n := copy(p, c.head)
			c.head = c.head[n:]
			return n, nil
		}
		if c.cur == nil {
			if c.next == len(c.parts) {
				return 0, io.EOF
			}
			m := c.parts[c.next]
			c.next++
			f, err := Open(m.Root, m.Path, Want{Size: m.Info.Size, Dev: m.Info.Dev, Ino: m.Info.Ino})
			if err != nil {
				c.err = err
				continue
			}
			c.cur, c.r = f, f.Reader(c.ctx)
		}
		n, err := c.r.Read(p)
		if err == io.EOF {
			c.err = c.finish()
			if n > 0 || c.err != nil {
				return n, c.err
			}
			continue
		}
		if err != nil {
			c.cur.Close()
			c.cur, c.err = nil, err
		}
		return n, err
	}
}

// finish closes the part read to its end, checking it was not written to
// meanwhile.
func (c *concat) finish() error {
	f := c.cur
	c.cur = nil
	defer f.Close()
	before := f.Info()
	after, err := f.Stat()
	if err != nil {
		return err
	}
	if after.Size != before.Size || !after.ModTime.Equal(before.ModTime) {
		return &fs.PathError{Op: "read", Path: c.parts[c.next-1].Path, Err: fmt.Errorf("%w (written to while it was read)", ErrChanged)}
	}
	return nil
}

// Close releases the file a read stopped in, if any.
func (c *concat) Close() error {
	if c.cur != nil {
		return c.cur.Close()
	}
	return nil
}
