package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The tools' schemas are generated from the Go types of their arguments and
// results, then made portable: clients differ in the JSON Schema they take,
// and strict ones (the MCP Inspector's --strict check, OpenAI-style strict
// tool use, Gemini) refuse a type that is a list. Go's generator writes
// ["null", "integer"] for a pointer and ["null", "array"] for a slice; here
// every value has one type, and a value that may be missing is not
// required. The results match: null fields are left out (withoutNulls), so
// the CLI's JSON and the tools' structured content differ only in that a
// null there is absent here.

// schemas sets a tool's input schema from In and its output schema from
// Out, made portable.
func schemas[In, Out any]() mcpgo.ToolOption {
	return func(t *mcpgo.Tool) {
		var gen mcpgo.Tool
		mcpgo.WithInputSchema[In]()(&gen)
		mcpgo.WithOutputSchema[Out]()(&gen)
		// Marshalling generated schemas cannot fail; the test of the
		// schemas a server lists would catch a schema left as it was.
		out, _ := json.Marshal(gen.OutputSchema)
		t.InputSchema.Type = ""
		t.RawInputSchema = portable(gen.RawInputSchema)
		t.RawOutputSchema = portable(out)
	}
}

// typeEnum lists the book types the format registry knows as the values
// of a tool's "type" argument, so the schema never lags behind the formats.
func typeEnum(types []string) mcpgo.ToolOption {
	return func(t *mcpgo.Tool) {
		if len(types) == 0 {
			return
		}
		var s map[string]any
		if err := json.Unmarshal(t.RawInputSchema, &s); err != nil {
			return
		}
		props, _ := s["properties"].(map[string]any)
		typ, ok := props["type"].(map[string]any)
		if !ok {
			return
		}
		typ["enum"] = types
		if out, err := json.Marshal(s); err == nil {
			t.RawInputSchema = out
		}
	}
}

// orList joins names as a sentence does: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// portable rewrites a JSON schema so that every type is a single one: a
// "null" alternative is dropped, and the property is then not required.
func portable(raw json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return raw
	}
	makePortable(s)
	out, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return out
}

func makePortable(s map[string]any) (nullable bool) {
	if types, ok := s["type"].([]any); ok {
		var kept []any
		for _, t := range types {
			if t == "null" {
				nullable = true
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == 1 {
			s["type"] = kept[0]
		} else {
			s["type"] = kept
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		required, _ := s["required"].([]any)
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok && makePortable(ps) {
				required = slices.DeleteFunc(required, func(r any) bool { return r == name })
			}
		}
		if len(required) == 0 {
			delete(s, "required")
		} else {
			s["required"] = required
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		makePortable(items)
	}
	return nullable
}

// withoutNulls returns v as JSON data without its null fields, as the
// portable schemas describe it.
func withoutNulls(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var data any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&data); err != nil {
		return v
	}
	return dropNulls(data)
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}
