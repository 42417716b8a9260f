package embed

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
)

// Prefixes are the texts an embedding model was trained to see before a
// query and before a document. Such a model ranks noticeably worse without
// them, and vectors made with and without them do not compare, so the scheme
// is part of the index stamp.
type Prefixes struct {
	// Scheme names the pair (Info.Prefix); "" when there are none. Change
	// it whenever the texts change.
	Scheme string
	// Query goes before every query, Document before every document.
	Query, Document string
}

// The known schemes. The texts are those of the models' own documentation.
var (
	nomicPrefixes = Prefixes{Scheme: "nomic", Query: "search_query: ", Document: "search_document: "}
	e5Prefixes    = Prefixes{Scheme: "e5", Query: "query: ", Document: "passage: "}
	// Instruction-tuned e5 (multilingual-e5-large-instruct, e5-mistral)
	// take a task instruction on queries only.
	e5InstructPrefixes = Prefixes{Scheme: "e5-instruct",
		Query: "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "}
	// BGE v1/v1.5 English models, and the models trained on their recipe
	// (mxbai-embed-large, snowflake-arctic-embed v1), instruct queries only.
	bgePrefixes   = Prefixes{Scheme: "bge", Query: "Represent this sentence for searching relevant passages: "}
	bgeZhPrefixes = Prefixes{Scheme: "bge-zh", Query: "为这个句子生成表示以用于检索相关文章："}
	arcticV2      = Prefixes{Scheme: "arctic-v2", Query: "query: "}
	gemmaPrefixes = Prefixes{Scheme: "embeddinggemma", Query: "task: search result | query: ", Document: "title: none | text: "}
	qwen3Prefixes = Prefixes{Scheme: "qwen3",
		Query: "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"}
)

var knownPrefixes = []Prefixes{nomicPrefixes, e5Prefixes, e5InstructPrefixes, bgePrefixes, bgeZhPrefixes, arcticV2, gemmaPrefixes, qwen3Prefixes}

var (
	e5Word  = regexp.MustCompile(`(^|[^a-z0-9])e5([^a-z0-9]|$)`)
	bgeWord = regexp.MustCompile(`(^|[^a-z0-9])bge([^a-z0-9]|$)`)
	zhWord  = regexp.MustCompile(`(^|[^a-z0-9])zh([^a-z0-9]|$)`)
)

// PrefixesFor returns the prefixes of a model, known by its name ("nomic-
// embed-text", "hf.co/intfloat/multilingual-e5-large:Q8_0"); none for a model
// it does not know, and for those trained without any (bge-m3, all-minilm).
func PrefixesFor(model string) Prefixes {
	n := strings.ToLower(model)
	if i := strings.LastIndexByte(n, ':'); i > strings.LastIndexByte(n, '/') {
		n = n[:i] // the tag: "latest", "v1.5", "q8_0"
	}
	switch {
	case strings.Contains(n, "nomic-embed-text"):
		return nomicPrefixes
	case strings.Contains(n, "bge-m3"), strings.Contains(n, "reranker"):
		return Prefixes{}
	case e5Word.MatchString(n) && (strings.Contains(n, "instruct") || strings.Contains(n, "mistral")):
		return e5InstructPrefixes
	case e5Word.MatchString(n):
		return e5Prefixes
	case strings.Contains(n, "arctic-embed2"), strings.Contains(n, "arctic-embed-l-v2"), strings.Contains(n, "arctic-embed-m-v2"):
		return arcticV2
	case strings.Contains(n, "arctic-embed"), strings.Contains(n, "mxbai-embed-large"):
		return bgePrefixes
	case bgeWord.MatchString(n) && zhWord.MatchString(n):
		return bgeZhPrefixes
	case bgeWord.MatchString(n):
		return bgePrefixes
	case strings.Contains(n, "embeddinggemma"):
		return gemmaPrefixes
	case strings.Contains(n, "qwen3-embedding"):
		return qwen3Prefixes
	}
	return Prefixes{}
}

// resolvePrefixes returns the prefixes to use: the override if set, else the
// model's. An override's Scheme is derived from its texts, so that the stamp
// changes whenever they do: the name of a known scheme with the same texts,
// else "custom-" and a hash of them.
func resolvePrefixes(model string, override *Prefixes) Prefixes {
	if override == nil {
		return PrefixesFor(model)
	}
	p := Prefixes{Query: override.Query, Document: override.Document}
	if p.Query == "" && p.Document == "" {
		return p
	}
	for _, k := range knownPrefixes {
		if k.Query == p.Query && k.Document == p.Document {
			return k
		}
	}
	h := fnv.New64a()
	h.Write([]byte(p.Query))
	h.Write([]byte{0})
	h.Write([]byte(p.Document))
	p.Scheme = fmt.Sprintf("custom-%016x", h.Sum64())
	return p
}
