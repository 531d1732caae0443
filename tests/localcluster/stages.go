package localcluster

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

//go:embed stages/gardener.yaml.tmpl
var gardenerStagesTemplate string

// ExtensionKinds are the extensions.gardener.cloud/v1alpha1 kinds whose objects kwok reports as
// reconciled (Gardener's docs/api-reference/extensions.md).
var ExtensionKinds = []string{
	"BackupBucket", "BackupEntry", "Bastion", "ContainerRuntime", "ControlPlane", "DNSRecord",
	"Extension", "Infrastructure", "Network", "OperatingSystemConfig", "Worker",
}

// stage is one kwok Stage document together with the kind it acts on, so the helper can run only
// the stages whose CustomResourceDefinition is established.
type stage struct {
	gvk  schema.GroupVersionKind
	yaml []byte
}

// gardenerStages renders the Gardener custom resource stages.
func gardenerStages() ([]stage, error) {
	tmpl, err := template.New("stages").Delims("[[", "]]").
		Funcs(template.FuncMap{"lower": strings.ToLower}).
		Parse(gardenerStagesTemplate)
	if err != nil {
		return nil, fmt.Errorf("gardener stages template: %w", err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, map[string]any{"ExtensionKinds": ExtensionKinds}); err != nil {
		return nil, fmt.Errorf("gardener stages template: %w", err)
	}
	var stages []stage
	for _, doc := range splitYAMLDocuments(out.Bytes()) {
		var head struct {
			Spec struct {
				ResourceRef struct {
					APIGroup string `json:"apiGroup"`
					Kind     string `json:"kind"`
				} `json:"resourceRef"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("gardener stage: %w", err)
		}
		gv, err := schema.ParseGroupVersion(head.Spec.ResourceRef.APIGroup)
		if err != nil {
			return nil, fmt.Errorf("gardener stage resourceRef: %w", err)
		}
		stages = append(stages, stage{gvk: gv.WithKind(head.Spec.ResourceRef.Kind), yaml: doc})
	}
	return stages, nil
}

// splitYAMLDocuments splits a multi-document YAML stream and drops documents holding only comments
// or whitespace.
func splitYAMLDocuments(data []byte) [][]byte {
	var docs [][]byte
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		if hasContent(doc) {
			docs = append(docs, bytes.TrimLeft(doc, "-\n"))
		}
	}
	return docs
}

func hasContent(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return true
		}
	}
	return false
}

// joinYAMLDocuments joins documents into one multi-document stream.
func joinYAMLDocuments(docs [][]byte) []byte {
	return bytes.Join(docs, []byte("\n---\n"))
}
