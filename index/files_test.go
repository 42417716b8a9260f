package index

import (
	"context"
	"testing"
)

func TestFilesOf(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	same, other := SumBytes([]byte("same")), SumBytes([]byte("other"))
	err := w.Update(ctx, func(tx *Tx) error {
		for _, f := range []File{
			{Path: "/lib/b.epub", Root: "/lib", Hash: same, Size: 4, Inode: 7},
			{Path: "/lib/a.md", Root: "/lib", Hash: same, Size: 4, Inode: 8},
			{Path: "/lib/c.md", Root: "/lib", Hash: other, Size: 5},
		} {
			if _, err := tx.PutFile(ctx, f, Hash{}, "markdown"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := w.FilesOf(ctx, same)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != "/lib/a.md" || files[0].Inode != 8 || files[1].Root != "/lib" || files[1].Size != 4 {
		t.Errorf("FilesOf = %+v", files)
	}
	if files, err := w.FilesOf(ctx, SumBytes([]byte("none"))); err != nil || len(files) != 0 {
		t.Errorf("FilesOf an unknown content = %+v, %v", files, err)
	}
}
