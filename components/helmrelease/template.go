package helmrelease

import (
	"fmt"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
)

// KubeVersion is the Kubernetes version templates see as .Capabilities.KubeVersion: the
// version the landscapes' clusters run, instead of helm's built-in default (1.20).
const KubeVersion = "v1.35.0"

// rendered is what the offline install produced.
type rendered struct {
	// crds are the crds/ files of the chart and its enabled subcharts, applied first.
	crds []chart.CRD
	// manifests are the templates' objects that are not hooks, in Helm's install order.
	manifests []releaseutil.Manifest
	// hooks are all the chart's hooks, of every event.
	hooks []*release.Hook
}

// template renders ch the way `helm template` (an install dry run in client-only mode) does:
// subchart conditions and imports, values coalesced with the chart's defaults and checked
// against its schema, .Release and .Capabilities set for a first install, templates rendered
// without a cluster, then split into hooks and manifests in install order. It uses helm's
// building blocks rather than its install action, which would pull helm's storage drivers,
// registry client and kubectl into the binary for code paths a pure render never takes.
func template(ch *chart.Chart, releaseName, namespace string, vals map[string]any) (*rendered, error) {
	if err := chartutil.ValidateReleaseName(releaseName); err != nil {
		return nil, fmt.Errorf("release name %q: %w", releaseName, err)
	}
	if ch.Metadata.Type != "" && ch.Metadata.Type != "application" {
		return nil, fmt.Errorf("chart %s: has type %s and cannot be installed", ch.Name(), ch.Metadata.Type)
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return nil, fmt.Errorf("chart %s: dependencies: %w", ch.Name(), err)
	}
	caps, err := capabilities(ch)
	if err != nil {
		return nil, err
	}
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart %s: requires kubeVersion %s, which does not include %s", ch.Name(), ch.Metadata.KubeVersion, KubeVersion)
	}
	opts := chartutil.ReleaseOptions{Name: releaseName, Namespace: namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(ch, vals, opts, caps, false)
	if err != nil {
		return nil, fmt.Errorf("chart %s: values: %w", ch.Name(), err)
	}
	// helm's engine without a cluster: lookup returns nothing and DNS lookups are off.
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, fmt.Errorf("chart %s: rendering: %w", ch.Name(), err)
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") { // text for a terminal, not objects
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("chart %s: rendered templates: %w", ch.Name(), err)
	}
	return &rendered{crds: ch.CRDObjects(), manifests: manifests, hooks: hooks}, nil
}

// capabilities are what templates see as .Capabilities: helm's built-in API versions plus the
// group/versions (and group/version/kinds) of the chart's crds/, which `helm install` creates
// before rendering, so that templates testing for them (a common way to render custom
// resources only where their definition exists) see them; KubeVersion; and helm's version
// without the Go version, which would make the output depend on the toolchain.
func capabilities(ch *chart.Chart) (*chartutil.Capabilities, error) {
	kv, err := chartutil.ParseKubeVersion(KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetes version %s: %w", KubeVersion, err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	caps.HelmVersion.GoVersion = ""
	seen := map[string]bool{}
	for _, v := range caps.APIVersions {
		seen[v] = true
	}
	var extra []string
	for _, c := range ch.CRDObjects() {
		objs, err := parseYAML(c.File.Data)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %s: %w", ch.Name(), c.Filename, err)
		}
		for _, o := range objs {
			d, ok := crdOf(o)
			if !ok {
				continue
			}
			for _, v := range d.versions {
				for _, s := range []string{d.group + "/" + v, d.group + "/" + v + "/" + d.kind} {
					if !seen[s] {
						seen[s] = true
						extra = append(extra, s)
					}
				}
			}
		}
	}
	sort.Strings(extra)
	caps.APIVersions = append(append(chartutil.VersionSet{}, caps.APIVersions...), extra...)
	return caps, nil
}
