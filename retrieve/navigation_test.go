package retrieve

import "testing"

// TestPassagesThatPointElsewhereComeLast: a table of contents, a page list
// with dot leaders and a cover hold the question's words densely, yet come
// after every passage that says something, and only when there is room.
func TestPassagesThatPointElsewhereComeLast(t *testing.T) {
	v := unit(0, 0, 0, 1)
	guide := book{
		title: "Zero Trust Guide", author: "Ann Rose", typ: "pdf",
		chapters: []string{"Zero Trust Guide", "Contents", "Front matter", "1 Basics", "1 Basics", "1 Basics", "2 Tenets"},
		chunks: []string{
			"Cover Image",
			"1 Zero trust basics 2 Zero trust tenets 3 Zero trust deployments",
			"1 Zero trust basics ........ 3 2 Zero trust tenets ........ 7 3 Zero trust deployments ........ 12",
			"Zero trust moves defenses from static, network-based perimeters to users, assets, and resources.",
			"An enterprise that adopts zero trust grants no implicit trust to assets based on their location.",
			"Authentication and authorization are discrete functions, performed before trust is given to a session.",
			"Every request to a resource is checked again, and access is granted per session, in zero trust.",
		},
		vecs: [][]float32{v, v, v, v, v, v, v},
	}
	// A note whose whole text is its title says what it says.
	note := book{title: "Zero trust", typ: "markdown", chunks: []string{"Zero trust"}, vecs: [][]float32{v}}
	w := newIndex(t, []book{guide, note})
	pointers := map[string]bool{guide.chunks[0]: true, guide.chunks[1]: true, guide.chunks[2]: true}
	for _, mode := range []string{FTS, Hybrid} {
		s := New(&w.DB, fakeEmbedder{}, Options{Mode: mode, Dim: 4})
		hits := search(t, s, Query{Text: "zero trust", Limit: 10})
		if len(hits) != 8 {
			t.Fatalf("%s: %d hits, want all 8 passages", mode, len(hits))
		}
		for i, h := range hits {
			if want := i >= 5; pointers[h.Text] != want {
				t.Errorf("%s: hit %d is %q", mode, i+1, h.Text)
			}
		}
		for _, h := range search(t, s, Query{Text: "zero trust", Limit: 3}) {
			if pointers[h.Text] {
				t.Errorf("%s, limit 3: %q took a place", mode, h.Text)
			}
		}
	}
}
