// Package controllerdeployment renders the controller_deployment component: a
// ControllerDeployment (core.gardener.cloud/v1, cluster-scoped, Gardener's "Core V1"
// docs/api-reference/core-v1.md) with the Helm chart and values that deploy an extension controller
// to seeds. ControllerRegistrations refer to it by name, so it comes before them (Gardener's
// docs/concepts/apiserver-admission-plugins.md, Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md).
package controllerdeployment

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the ControllerDeployment. The v1 API has the helm field
// (Gardener's ControllerDeployment in docs/api-reference/core-v1.md); the local stand-in serves v1
// and v1beta1 and stores both.
const (
	APIVersion = "core.gardener.cloud/v1"
	Kind       = "ControllerDeployment"
)

// gzipMagic starts every gzip stream; a chart archive is a gzipped tar (Gardener's
// HelmControllerDeployment in docs/api-reference/core-v1.md).
var gzipMagic = []byte{0x1f, 0x8b}

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the deployment's name; Render defaults it to the instance name.
	Name string `json:"name"`
	// ChartArchive is the path of a chart .tgz, relative to the landscape directory. Render reads
	// it into RawChart; Objects does no file I/O and refuses it.
	ChartArchive string `json:"chart_archive"`
	// RawChart is the base64-encoded, gzipped tar of the chart (Gardener's HelmControllerDeployment in
	// docs/api-reference/core-v1.md).
	RawChart string `json:"raw_chart"`
	// OCIRepository is where to pull the chart from (Gardener's OCIRepository in
	// docs/api-reference/core-v1.md).
	OCIRepository *OCIRepository `json:"oci_repository"`
	// HelmValues are the chart values.
	HelmValues map[string]any `json:"values"`
}

// OCIRepository points at a chart in an OCI registry: Ref alone, or Repository with Tag or
// Digest (Gardener's OCIRepository in docs/api-reference/core-v1.md).
type OCIRepository struct {
	// Ref is the full artifact reference, such as registry.example.com/charts/foo:1.0.0.
	Ref        string `json:"ref"`
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	// Digest, sha256:<hex>, wins over Tag.
	Digest string `json:"digest"`
}

// Type is the controller_deployment component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one controller_deployment instance, reading chart_archive if set; its output is
// the deployment's name.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	if err := gardenapi.Named(in, "controller deployment", &v.Name, nil); err != nil {
		return nil, err
	}
	if v.ChartArchive != "" {
		if v.RawChart != "" {
			return nil, fmt.Errorf("controller deployment %s: set chart_archive or raw_chart, not both", v.Name)
		}
		if strings.Contains(v.ChartArchive, render.UnknownString) {
			return nil, fmt.Errorf("controller deployment %s: the path of chart_archive %w", v.Name, render.ErrDeferred)
		}
		raw, err := ReadChart(in.Files(), v.ChartArchive)
		if err != nil {
			return nil, fmt.Errorf("controller deployment %s: %w", v.Name, err)
		}
		v.RawChart, v.ChartArchive = raw, ""
	}
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return gardenapi.Output(objs, v.Name, ""), nil
}

// ReadChart reads a chart archive the landscape names, through paths, and returns it base64
// encoded, as rawChart carries it.
func ReadChart(paths *landscapefs.Dir, path string) (string, error) {
	data, err := paths.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("chart archive %s: %w", path, err)
	}
	if !bytes.HasPrefix(data, gzipMagic) {
		return "", fmt.Errorf("chart archive %s is not gzip-compressed; expected a .tgz such as helm package writes", path)
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// Objects renders the ControllerDeployment with exactly one chart source: RawChart or
// OCIRepository.
func Objects(v Values) ([]render.Object, error) {
	if err := gardenapi.ValidateName("controller deployment", v.Name); err != nil {
		return nil, err
	}
	if v.ChartArchive != "" {
		return nil, fmt.Errorf("controller deployment %s: chart_archive is read by Render; pass the chart as RawChart", v.Name)
	}
	helm := map[string]any{}
	switch {
	case v.RawChart != "" && v.OCIRepository != nil:
		return nil, fmt.Errorf("controller deployment %s: set exactly one of a raw chart and an OCI repository, not both", v.Name)
	case v.RawChart != "":
		if _, err := base64.StdEncoding.DecodeString(v.RawChart); err != nil {
			return nil, fmt.Errorf("controller deployment %s: raw chart is not base64: %w", v.Name, err)
		}
		helm["rawChart"] = v.RawChart
	case v.OCIRepository != nil:
		oci, err := ociRepository(*v.OCIRepository)
		if err != nil {
			return nil, fmt.Errorf("controller deployment %s: %w", v.Name, err)
		}
		helm["ociRepository"] = oci
	default:
		return nil, fmt.Errorf("controller deployment %s: set exactly one of a raw chart and an OCI repository; none is set", v.Name)
	}
	if len(v.HelmValues) > 0 {
		values, err := gardenapi.Normalise(v.HelmValues)
		if err != nil {
			return nil, fmt.Errorf("controller deployment %s: values: %w", v.Name, err)
		}
		helm["values"] = values
	}
	u := kube.Custom(APIVersion, Kind, "", v.Name, nil, map[string]any{"helm": helm})
	return kube.On(v.Cluster.Name, "", u), nil
}

// ociRepository renders helm.ociRepository: ref alone, or repository with a tag, a digest or both
// (the digest wins, Gardener's OCIRepository in docs/api-reference/core-v1.md).
func ociRepository(o OCIRepository) (map[string]any, error) {
	if o.Ref != "" {
		if o.Repository != "" || o.Tag != "" || o.Digest != "" {
			return nil, errors.New("an OCI repository has either ref or repository with tag or digest, not both")
		}
		return map[string]any{"ref": o.Ref}, nil
	}
	if o.Repository == "" {
		return nil, errors.New("an OCI repository needs ref, or repository with tag or digest")
	}
	if o.Tag == "" && o.Digest == "" {
		return nil, fmt.Errorf("OCI repository %s needs a tag or a digest", o.Repository)
	}
	out := map[string]any{"repository": o.Repository}
	if o.Tag != "" {
		out["tag"] = o.Tag
	}
	if o.Digest != "" {
		if !strings.HasPrefix(o.Digest, "sha256:") { // Gardener's OCIRepository in docs/api-reference/core-v1.md
			return nil, fmt.Errorf("OCI digest %q does not start with sha256:", o.Digest)
		}
		out["digest"] = o.Digest
	}
	return out, nil
}
