package cloudprofile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

var cluster = decode.Cluster{Name: "virtual"}

const local = `{
  "cluster": {"name": "virtual"},
  "type": "local",
  "kubernetes_version": [{"version": "1.33.1"}],
  "machine_image": [{"name": "local", "version": [{"version": "1.0.0"}]}],
  "machine_type": [{"name": "local", "cpu": "1", "memory": "1Gi"}],
  "region": [{"name": "local", "zones": ["0", "1", "2"]}]
}`

const aws = `{
  "cluster": {"name": "virtual"},
  "name": "aws",
  "type": "aws",
  "ca_bundle": "-----BEGIN CERTIFICATE-----\nMIIBgTCCASegAwIBAgIUM9izdHf+AOnRYmYbhA43eJuTM1cwCgYIKoZIzj0EAwIw\nFTETMBEGA1UEAwwKZXhhbXBsZS1jYTAgFw0yNjExMjYxNDQ3NDJaGA8yMTI2MTEw\nMjE0NDc0MlowFTETMBEGA1UEAwwKZXhhbXBsZS1jYTBZMBMGByqGSM49AgEGCCqG\nSM49AwEHA0IABHhYND9+lphKq3Hl8YSGptNw2Q4woWdUAkaCXy7GNngzJLWO1XOC\nR7XcGDaqu9UNhm15+kFglPfCl7Y3pekp8wmjUzBRMB0GA1UdDgQWBBQBUEiRqzfE\nOZOwSUhfnSoyFlh4xTAfBgNVHSMEGDAWgBQBUEiRqzfEOZOwSUhfnSoyFlh4xTAP\nBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQDAxbVhCiSw/P0asf4v\nzN3gISI1Xgx2jlaK8WGXkvfugwIgfZllHL4qXt03lBQeRbnaHXQY5Puku0bzMThh\n+CHQRqU=\n-----END CERTIFICATE-----\n",
  "kubernetes_version": [
    {"version": "1.33.1", "classification": "supported"},
    {"version": "1.32.5", "classification": "deprecated", "expiration_date": "2026-03-31T23:59:59+02:00"},
    {"version": "1.34.0", "classification": "preview"}
  ],
  "machine_image": [
    {"name": "gardenlinux", "update_strategy": "minor", "version": [
      {"version": "1592.1.0", "classification": "supported", "cri": ["containerd"], "architectures": ["amd64", "arm64"], "kubelet_version_constraint": ">= 1.30"},
      {"version": "1443.3.0", "classification": "deprecated", "expiration_date": "2026-01-31T00:00:00Z"}
    ]}
  ],
  "machine_type": [
    {"name": "m5.large", "cpu": "2", "memory": "8192Mi"},
    {"name": "m6g.xlarge", "cpu": "4", "gpu": "0", "memory": "16Gi", "architecture": "arm64", "usable": false,
     "storage": {"class": "standard", "type": "gp3", "min_size": "20Gi"}}
  ],
  "volume_type": [
    {"name": "gp3", "class": "standard", "min_size": "20Gi"},
    {"name": "io1", "class": "premium", "usable": false}
  ],
  "region": [
    {"name": "eu-central-1", "zones": ["eu-central-1a", "eu-central-1b", "eu-central-1c"], "labels": {"quality": "gold"}},
    {"name": "us-east-1"}
  ],
  "provider_config": {"apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1", "kind": "CloudProfileConfig",
    "machineImages": [{"name": "gardenlinux", "versions": [{"version": "1592.1.0", "regions": [{"name": "eu-central-1", "ami": "ami-1", "architecture": "amd64"}]}]}]}
}`

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "local"}, map[string]string{"local": local, "aws": aws})
}

func TestFacts(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "local", Config: rendertest.JSONConfigOf(t, Type, local)})
	require.NoError(t, err)
	assert.Equal(t, "local", out.Outputs["name"].AsString())
	u := out.Objects[0].Object
	// The CloudProfile is an output too: shoots embed it in their extensions Cluster
	// (pkg/extensions/cluster.go at Gardener v1.120.0).
	data, err := ctyjson.SimpleJSONValue{Value: out.Outputs["object"]}.MarshalJSON()
	require.NoError(t, err)
	var object decode.Object
	require.NoError(t, object.UnmarshalJSON(data))
	assert.Equal(t, decode.Object(u.Object), object)
	assert.Equal(t, "virtual", out.Objects[0].Cluster)
	assert.Equal(t, "core.gardener.cloud/v1beta1", u.GetAPIVersion())
	assert.Equal(t, "CloudProfile", u.GetKind())
	assert.Empty(t, u.GetNamespace(), "CloudProfile is cluster-scoped")
	spec := u.Object["spec"].(map[string]any)
	// Gardener's MachineImage in docs/api-reference/core.md: the update strategy defaults to major;
	// containerd and amd64 are Gardener's defaults.
	assert.Equal(t, []any{map[string]any{"name": "local", "updateStrategy": "major", "versions": []any{map[string]any{
		"version": "1.0.0", "cri": []any{map[string]any{"name": "containerd"}}, "architectures": []any{"amd64"},
	}}}}, spec["machineImages"])
	assert.Equal(t, []any{map[string]any{"name": "local", "cpu": "1", "gpu": "0", "memory": "1Gi", "architecture": "amd64", "usable": true}}, spec["machineTypes"])
	assert.Equal(t, []any{map[string]any{"name": "local", "zones": []any{map[string]any{"name": "0"}, map[string]any{"name": "1"}, map[string]any{"name": "2"}}}}, spec["regions"])
	assert.NotContains(t, spec, "volumeTypes")
}

func TestCanonicalForms(t *testing.T) {
	v := rendertest.ValuesOf[Values](t, Type, `{"cluster": {"name": "virtual"}, "name": "p", "type": "t",
		"kubernetes_version": [{"version": "1.33.1", "expiration_date": "2026-03-31T23:59:59+02:00"}],
		"machine_image": [{"name": "i", "version": [{"version": "1"}]}],
		"machine_type": [{"name": "m", "cpu": "2000m", "memory": "16384Mi"}],
		"region": [{"name": "r"}]}`)
	v.ProviderConfig = map[string]any{"count": float64(3)}
	objs, err := Objects(v)
	require.NoError(t, err)
	spec := objs[0].Object.Object["spec"].(map[string]any)
	assert.Equal(t, "2026-03-31T21:59:59Z", spec["kubernetes"].(map[string]any)["versions"].([]any)[0].(map[string]any)["expirationDate"])
	mt := spec["machineTypes"].([]any)[0].(map[string]any)
	assert.Equal(t, "2", mt["cpu"])
	assert.Equal(t, "16Gi", mt["memory"])
	assert.Equal(t, map[string]any{"count": int64(3)}, spec["providerConfig"])
}

func TestErrors(t *testing.T) {
	valid := func() Values {
		return rendertest.ValuesOf[Values](t, Type, `{"name": "p", "type": "t",
			"kubernetes_version": [{"version": "1.33.1"}],
			"machine_image": [{"name": "i", "version": [{"version": "1"}]}],
			"machine_type": [{"name": "m", "cpu": "1", "memory": "1Gi"}],
			"region": [{"name": "r"}]}`)
	}
	tests := []struct {
		name   string
		change func(*Values)
		want   string
	}{
		{"no type", func(v *Values) { v.Type = "" }, "type is required"},
		{"no Kubernetes version", func(v *Values) { v.KubernetesVersions = nil }, "at least one Kubernetes version is required"},
		{"bad Kubernetes version", func(v *Values) { v.KubernetesVersions[0].Version = "v1.33" }, `the Kubernetes version "v1.33" is not of the form 1.33.1`},
		{"repeated Kubernetes version", func(v *Values) { v.KubernetesVersions = append(v.KubernetesVersions, v.KubernetesVersions[0]) }, "the Kubernetes version 1.33.1 is given twice"},
		{"bad classification", func(v *Values) { v.KubernetesVersions[0].Classification = "stable" }, `classification "stable" is not one of preview, supported, deprecated`},
		{"bad expiration", func(v *Values) { v.KubernetesVersions[0].ExpirationDate = "tomorrow" }, `expiration date "tomorrow" is not an RFC 3339 time`},
		{"no machine image", func(v *Values) { v.MachineImages = nil }, "at least one machine image is required"},
		{"image without versions", func(v *Values) { v.MachineImages[0].Versions = nil }, "machine image i: at least one version is required"},
		{"bad update strategy", func(v *Values) { v.MachineImages[0].UpdateStrategy = "all" }, `update strategy "all" is not one of patch, minor, major`},
		{"bad CRI", func(v *Values) { v.MachineImages[0].Versions[0].CRI = []string{"docker"} }, `CRI "docker" is not supported`},
		{"repeated image version", func(v *Values) {
			v.MachineImages[0].Versions = append(v.MachineImages[0].Versions, v.MachineImages[0].Versions[0])
		}, "machine image i: version 1 is given twice"},
		{"no machine type", func(v *Values) { v.MachineTypes = nil }, "at least one machine type is required"},
		{"machine type without memory", func(v *Values) { v.MachineTypes[0].Memory = "" }, "machine type m: memory is required"},
		{"bad cpu", func(v *Values) { v.MachineTypes[0].CPU = "two" }, `cpu "two" is not a quantity`},
		{"storage without type", func(v *Values) { v.MachineTypes[0].Storage = &MachineTypeStorage{Class: "standard"} }, "storage needs a class and a type"},
		{"volume type without class", func(v *Values) { v.VolumeTypes = []VolumeType{{Name: "v"}} }, "a volume type needs a name and a class"},
		{"no region", func(v *Values) { v.Regions = nil }, "at least one region is required"},
		{"repeated zone", func(v *Values) { v.Regions[0].Zones = []string{"a", "a"} }, "region r: zone a is given twice"},
		{"repeated region", func(v *Values) { v.Regions = append(v.Regions, v.Regions[0]) }, "region r is given twice"},
		{"bad name", func(v *Values) { v.Name = "P" }, `cloud profile name "P" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := valid()
			tt.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
