package modelserver

import "testing"

func TestParseTEIInfo(t *testing.T) {
	body := `{"model_id":"BAAI/bge-reranker-v2-m3","model_sha":null,"model_dtype":"float16",
	"model_type":{"reranker":{"id2label":{"0":"LABEL_0"},"label2id":{"LABEL_0":0}}},"max_concurrent_requests":512,
	"max_input_length":8192,"max_batch_tokens":16384,"max_batch_requests":null,"max_client_batch_size":32,
	"auto_truncate":false,"tokenization_workers":4,"version":"1.7.0","sha":null,"docker_label":null}`
	m, err := parseTEIInfo([]byte(body))
	want := TEIModel{ID: "BAAI/bge-reranker-v2-m3", Kind: "reranker", MaxInputLength: 8192, MaxClientBatchSize: 32}
	if err != nil || m != want {
		t.Errorf("got %+v, %v; want %+v", m, err, want)
	}
	for _, bad := range []string{`{}`, `{"model_id":"x","model_type":{}}`, `{"model_id":"x","model_type":{"a":1,"b":2}}`, `[]`} {
		if m, err := parseTEIInfo([]byte(bad)); err == nil {
			t.Errorf("%s: %+v, no error", bad, m)
		}
	}
}

func FuzzParseTEIInfo(f *testing.F) {
	f.Add([]byte(`{"model_id":"m","model_type":{"embedding":{"pooling":"cls"}},"max_input_length":-5,"max_client_batch_size":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseTEIInfo(b)
		if err == nil && (m.ID == "" || m.Kind == "" || m.MaxInputLength < 0 || m.MaxClientBatchSize < 0) {
			t.Fatalf("parsed %+v", m)
		}
	})
}
