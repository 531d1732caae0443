package observability

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/crds"
)

// TestCRDsAreValid runs the API server's own CRD validation (structural schema included) on
// every CRD the component installs.
func TestCRDsAreValid(t *testing.T) {
	for _, name := range CRDs {
		t.Run(name, func(t *testing.T) {
			crd, err := crds.Get(name)
			require.NoError(t, err)
			crd = crd.DeepCopy()
			apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
			internal := &apiextensions.CustomResourceDefinition{}
			require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil))
			errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal)
			assert.Empty(t, errs, "%v", errs.ToAggregate())
			assert.NotNil(t, crd.Spec.Versions[0].Subresources.Status, "status subresource")
		})
	}
}

// validator checks custom resources against the embedded CRDs' schemas.
type validator struct {
	structural map[string]*structuralschema.Structural
	schemas    map[string]validation.SchemaValidator
}

func newValidator(t *testing.T) *validator {
	t.Helper()
	v := &validator{structural: map[string]*structuralschema.Structural{}, schemas: map[string]validation.SchemaValidator{}}
	for _, name := range CRDs {
		crd, err := crds.Get(name)
		require.NoError(t, err)
		for _, ver := range crd.Spec.Versions {
			internal := &apiextensions.JSONSchemaProps{}
			require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(ver.Schema.OpenAPIV3Schema, internal, nil))
			s, err := structuralschema.NewStructural(internal)
			require.NoError(t, err)
			sv, _, err := validation.NewSchemaValidator(internal)
			require.NoError(t, err)
			key := crd.Spec.Group + "/" + ver.Name + "/" + crd.Spec.Names.Kind
			v.structural[key], v.schemas[key] = s, sv
		}
	}
	return v
}

// check asserts that obj is a kind of the CRDs, has no field the schema would prune and no
// value it would reject.
func (v *validator) check(t *testing.T, obj map[string]any) {
	t.Helper()
	u := unstructured.Unstructured{Object: obj}
	key := u.GetAPIVersion() + "/" + u.GetKind()
	require.Contains(t, v.schemas, key)
	obj = runtime.DeepCopyJSON(obj)
	pruned := pruning.PruneWithOptions(obj, v.structural[key], true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	assert.Empty(t, pruned, "%s %s: fields unknown to the CRD", key, u.GetName())
	assert.Empty(t, validation.ValidateCustomResource(field.NewPath(""), obj, v.schemas[key]), "%s %s", key, u.GetName())
}

// TestCustomResourcesValidateAgainstCRDs checks every rendered custom resource of the default and
// the customised configuration against the embedded CRDs.
func TestCustomResourcesValidateAgainstCRDs(t *testing.T) {
	v := newValidator(t)
	n := 0
	for _, extra := range []map[string]cty.Value{nil, customised} {
		for _, o := range render1(t, extra) {
			if o.Object.GroupVersionKind().Group == "monitoring.coreos.com" {
				v.check(t, o.Object.Object)
				n++
			}
		}
	}
	assert.Equal(t, 5+2, n, "default: 2 Prometheus, ScrapeConfig, Alertmanager, ServiceMonitor; customised: Prometheus, ServiceMonitor")
}

// documentedExamples are the extension objects of the garden observability documentation
// (Gardener's "Gardener Operator" docs/concepts/operator.md), which the CRDs must accept as
// written.
const documentedExamples = `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  labels:
    prometheus: garden
  name: garden-my-component
  namespace: garden
spec:
  selector:
    matchLabels:
      app: my-component
  endpoints:
  - metricRelabelings:
    - action: keep
      regex: ^(metric1|metric2)$
      sourceLabels:
      - __name__
    port: metrics
---
apiVersion: monitoring.coreos.com/v1alpha1
kind: AlertmanagerConfig
metadata:
  name: config
  namespace: garden
  labels:
    alertmanager: garden
spec:
  route:
    receiver: dev-null
    groupBy:
    - alertname
    - landscape
    routes:
    - continue: true
      groupWait: 3m
      groupInterval: 5m
      repeatInterval: 12h
      routes:
      - receiver: ops
        matchers:
        - name: severity
          value: warning
          matchType: =
        - name: topology
          value: garden
          matchType: =
  receivers:
  - name: dev-null
  - name: ops
    slackConfigs:
    - apiURL: https://slack.example.com/api
      channel: ops
      username: Gardener-Alertmanager
      iconEmoji: ":alert:"
      title: "[{{ .Status | toUpper }}] Gardener Alert(s)"
      text: "{{ range .Alerts }}*{{ .Annotations.summary }}*{{ end }}"
      sendResolved: true
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  labels:
    prometheus: garden
  name: garden-my-component
  namespace: garden
spec:
  groups:
  - name: my-component.rules
    rules:
    - alert: MyComponentDown
      expr: absent(up{job="my-component"} == 1)
      for: 15m
      labels:
        severity: warning
        topology: garden
      annotations:
        summary: my-component is down
`

func TestDocumentedExamplesValidate(t *testing.T) {
	v := newValidator(t)
	for _, doc := range strings.Split(documentedExamples, "\n---\n") {
		obj := map[string]any{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &obj))
		v.check(t, obj)
	}
}
