// yaml-reader reads YAML files the way Helm and Argo CD do and prints what they read as canonical
// JSON, one line per file, for labcheck's differential test (tests/labcheck/yaml_readers.rs):
//
//	{"file":"a.yaml","values":{...}|null,"values_error":"...","documents":[...],"documents_error":"..."}
//
// "values" is Helm's reading of a values file (helm.sh/helm/v4 pkg/chart/common ReadValues:
// sigs.k8s.io/yaml.Unmarshal into a map); "documents" is Argo CD's reading of a manifest file
// (gitops-engine pkg/utils/kube SplitYAMLToString: apimachinery's YAML-or-JSON decoder, documents
// that are empty or null dropped, each then read with sigs.k8s.io/yaml.Unmarshal).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

type reading struct {
	File           string `json:"file"`
	Values         any    `json:"values"`
	ValuesError    string `json:"values_error,omitempty"`
	Documents      []any  `json:"documents"`
	DocumentsError string `json:"documents_error,omitempty"`
}

func main() {
	out := json.NewEncoder(os.Stdout)
	for _, file := range os.Args[1:] {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		r := reading{File: file, Documents: []any{}}
		// Helm: `err = yaml.Unmarshal(data, &vals)` with vals a map[string]any.
		var vals map[string]any
		if err := yaml.Unmarshal(data, &vals); err != nil {
			r.ValuesError = err.Error()
		} else {
			r.Values = vals
		}
		docs, err := splitYAML(data)
		if err != nil {
			r.DocumentsError = err.Error()
		}
		r.Documents = append(r.Documents, docs...)
		if err := out.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

// splitYAML is gitops-engine's SplitYAMLToString followed by SplitYAML's yaml.Unmarshal, into
// `any` rather than an Unstructured so that a document that is not an object still shows.
func splitYAML(data []byte) ([]any, error) {
	d := kubeyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var docs []any
	for {
		ext := runtime.RawExtension{}
		if err := d.Decode(&ext); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return docs, fmt.Errorf("failed to unmarshal manifest: %w", err)
		}
		ext.Raw = bytes.TrimSpace(ext.Raw)
		if len(ext.Raw) == 0 || bytes.Equal(ext.Raw, []byte("null")) {
			continue
		}
		var doc any
		if err := yaml.Unmarshal(ext.Raw, &doc); err != nil {
			return docs, fmt.Errorf("failed to unmarshal manifest: %w", err)
		}
		docs = append(docs, doc)
	}
}
