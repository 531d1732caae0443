// Package images is the catalog's image vector: for every container the components run, the
// repository and the default tag, which a landscape overrides per name (a mirror, a patched
// build, a pinned digest). Gardener ships the same idea as its images.yaml; Gardener's
// documentation names only the registry prefix of third-party copies (Gardener's "Component
// Checklist" docs/development/component-checklist.md), so repositories follow Gardener's published
// release registry and the upstream projects.
package images

import (
	"fmt"
	"sort"
	"strings"
)

// Image is one container image.
type Image struct {
	Repository string `json:"repository"`
	// Tag is the default tag; empty for images whose tag is the Kubernetes version of the
	// cluster they serve (kube-apiserver, kube-controller-manager).
	Tag string `json:"tag,omitempty"`
}

// String is the image reference: repository:tag, or repository@digest when the tag is a digest.
func (i Image) String() string {
	if strings.HasPrefix(i.Tag, "sha256:") {
		return i.Repository + "@" + i.Tag
	}
	return i.Repository + ":" + i.Tag
}

// GardenerVersion is the Gardener release whose component images the vector defaults to.
const GardenerVersion = "v1.120.0"

const (
	gardenerReleases = "europe-docker.pkg.dev/gardener-project/releases/gardener/"
	thirdParty       = "europe-docker.pkg.dev/gardener-project/releases/3rd/"
)

// The image names of the vector, one per container a component runs.
const (
	GardenerResourceManager     = "gardener-resource-manager"
	GardenerAPIServer           = "gardener-apiserver"
	GardenerAdmissionController = "gardener-admission-controller"
	GardenerControllerManager   = "gardener-controller-manager"
	GardenerScheduler           = "gardener-scheduler"
	EtcdDruid                   = "etcd-druid"
	EtcdWrapper                 = "etcd-wrapper"
	EtcdBackupRestore           = "etcd-backup-restore"
	VPAAdmissionController      = "vpa-admission-controller"
	VPARecommender              = "vpa-recommender"
	VPAUpdater                  = "vpa-updater"
	Istiod                      = "istio-istiod"
	IstioProxy                  = "istio-proxy"
	NginxIngressController      = "nginx-ingress-controller"
	IngressDefaultBackend       = "ingress-default-backend"
	KubeAPIServer               = "kube-apiserver"
	KubeControllerManager       = "kube-controller-manager"
	// The observability stack's images: the upstream projects', and credativ's forks Plutono
	// and Vali that Gardener runs.
	PrometheusOperator        = "prometheus-operator"
	PrometheusConfigReloader  = "prometheus-config-reloader"
	Prometheus                = "prometheus"
	Alertmanager              = "alertmanager"
	KubeStateMetrics          = "kube-state-metrics"
	Plutono                   = "plutono"
	PlutonoDashboardRefresher = "plutono-dashboard-refresher"
	Vali                      = "vali"
	// The shoot control plane's own images (VPN server, machine and cluster autoscaling).
	VPNServer                = "vpn-server"
	MachineControllerManager = "machine-controller-manager"
	ClusterAutoscaler        = "cluster-autoscaler"
	// Seed system components and the shoot control plane's scheduler.
	Gardenlet          = "gardenlet"
	DependencyWatchdog = "dependency-watchdog"
	Pause              = "pause"
	KubeScheduler      = "kube-scheduler"
	// EnvoyProxy is the HTTP CONNECT proxy beside a single vpn-seed-server (Gardener's "Reversed VPN
	// Tunnel" docs/development/reversed-vpn-tunnel.md).
	EnvoyProxy = "envoy-proxy"
	// APIServerProxy is the envoy on every shoot node that forwards the kubernetes Service's
	// address to the API server, and APIServerProxySidecar puts that address on the node's
	// loopback interface (images apiserver-proxy and apiserver-proxy-sidecar of
	// imagevector/containers.yaml in gardener/gardener v1.120.0).
	APIServerProxy        = "apiserver-proxy"
	APIServerProxySidecar = "apiserver-proxy-sidecar"
	// GardenerNodeAgent carries the node agent binary that worker nodes install (Gardener's "Gardener
	// Node Agent" docs/concepts/node-agent.md).
	GardenerNodeAgent = "gardener-node-agent"
	// Hyperkube carries the kubelet binary worker nodes install; tagged by the Kubernetes version.
	Hyperkube = "hyperkube"
	// The shoot system components' images (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go): CoreDNS, kube-proxy (tagged by the
	// worker pool's Kubernetes version), the reversed VPN client, metrics-server and the
	// node-local DNS cache.
	CoreDNS       = "coredns"
	KubeProxy     = "kube-proxy"
	VPNClient     = "vpn-client"
	MetricsServer = "metrics-server"
	NodeLocalDNS  = "node-local-dns"
	// AlpineConntrack runs kube-proxy's conntrack-fix sidecar (pkg/component/kubernetes/proxy in
	// gardener/gardener v1.120.0, image alpine-conntrack of its imagevector/containers.yaml).
	AlpineConntrack = "alpine-conntrack"
	// The shoot control plane's observability images besides the garden's (Gardener's "Priority
	// Classes" docs/development/priority-classes.md): blackbox-exporter probes the shoot's API server,
	// event-logger writes the shoot's and the control plane's events to its log (Gardener's "Logging"
	// docs/usage/observability/logging.md).
	BlackboxExporter = "blackbox-exporter"
	EventLogger      = "event-logger"
)

// prometheusOperatorVersion is the operator release; its config reloader must match it.
const prometheusOperatorVersion = "v0.82.2"

// Vector maps image names to images.
type Vector map[string]Image

// Default returns a fresh copy of the built-in vector.
func Default() Vector {
	return Vector{
		GardenerResourceManager:     {Repository: gardenerReleases + "resource-manager", Tag: GardenerVersion},
		GardenerAPIServer:           {Repository: gardenerReleases + "apiserver", Tag: GardenerVersion},
		GardenerAdmissionController: {Repository: gardenerReleases + "admission-controller", Tag: GardenerVersion},
		GardenerControllerManager:   {Repository: gardenerReleases + "controller-manager", Tag: GardenerVersion},
		GardenerScheduler:           {Repository: gardenerReleases + "scheduler", Tag: GardenerVersion},
		EtcdDruid:                   {Repository: gardenerReleases + "etcd-druid", Tag: "v0.30.1"},
		EtcdWrapper:                 {Repository: gardenerReleases + "etcd-wrapper", Tag: "v0.4.2"},
		EtcdBackupRestore:           {Repository: gardenerReleases + "etcdbrctl", Tag: "v0.33.0"},
		VPAAdmissionController:      {Repository: "registry.k8s.io/autoscaling/vpa-admission-controller", Tag: "1.3.1"},
		VPARecommender:              {Repository: "registry.k8s.io/autoscaling/vpa-recommender", Tag: "1.3.1"},
		VPAUpdater:                  {Repository: "registry.k8s.io/autoscaling/vpa-updater", Tag: "1.3.1"},
		Istiod:                      {Repository: thirdParty + "istio/pilot", Tag: "1.25.3-distroless"},
		IstioProxy:                  {Repository: thirdParty + "istio/proxyv2", Tag: "1.25.3-distroless"},
		NginxIngressController:      {Repository: "registry.k8s.io/ingress-nginx/controller-chroot", Tag: "v1.12.2"},
		IngressDefaultBackend:       {Repository: gardenerReleases + "ingress-default-backend", Tag: "0.23.0"},
		KubeAPIServer:               {Repository: "registry.k8s.io/kube-apiserver"},
		KubeControllerManager:       {Repository: "registry.k8s.io/kube-controller-manager"},
		PrometheusOperator:          {Repository: "quay.io/prometheus-operator/prometheus-operator", Tag: prometheusOperatorVersion},
		PrometheusConfigReloader:    {Repository: "quay.io/prometheus-operator/prometheus-config-reloader", Tag: prometheusOperatorVersion},
		Prometheus:                  {Repository: "quay.io/prometheus/prometheus", Tag: "v3.4.0"},
		Alertmanager:                {Repository: "quay.io/prometheus/alertmanager", Tag: "v0.28.1"},
		KubeStateMetrics:            {Repository: "registry.k8s.io/kube-state-metrics/kube-state-metrics", Tag: "v2.15.0"},
		Plutono:                     {Repository: thirdParty + "credativ/plutono", Tag: "v7.5.38"},
		// The sidecar that copies dashboard ConfigMaps into Plutono's dashboard directory.
		PlutonoDashboardRefresher: {Repository: "quay.io/kiwigrid/k8s-sidecar", Tag: "1.30.3"},
		Vali:                      {Repository: thirdParty + "credativ/vali", Tag: "v2.2.23"},
		Gardenlet:                 {Repository: gardenerReleases + "gardenlet", Tag: GardenerVersion},
		DependencyWatchdog:        {Repository: gardenerReleases + "dependency-watchdog", Tag: "v1.4.0"},
		// The reserve-excess-capacity placeholder pods only sleep.
		Pause:                    {Repository: "registry.k8s.io/pause", Tag: "3.10"},
		KubeScheduler:            {Repository: "registry.k8s.io/kube-scheduler"},
		VPNServer:                {Repository: gardenerReleases + "vpn-server", Tag: "0.38.0"},
		MachineControllerManager: {Repository: gardenerReleases + "machine-controller-manager", Tag: "v0.58.0"},
		ClusterAutoscaler:        {Repository: gardenerReleases + "autoscaler/cluster-autoscaler", Tag: "v1.32.0"},
		EnvoyProxy:               {Repository: thirdParty + "envoyproxy/envoy-distroless", Tag: "v1.34.1"},
		APIServerProxy:           {Repository: thirdParty + "envoyproxy/envoy-distroless", Tag: "v1.34.1"},
		APIServerProxySidecar:    {Repository: gardenerReleases + "apiserver-proxy", Tag: "v0.19.0"},
		GardenerNodeAgent:        {Repository: gardenerReleases + "node-agent", Tag: GardenerVersion},
		Hyperkube:                {Repository: "europe-docker.pkg.dev/gardener-project/releases/hyperkube"},
		CoreDNS:                  {Repository: "registry.k8s.io/coredns/coredns", Tag: "v1.12.1"},
		KubeProxy:                {Repository: "registry.k8s.io/kube-proxy"},
		VPNClient:                {Repository: gardenerReleases + "vpn-client", Tag: "0.38.0"},
		MetricsServer:            {Repository: "registry.k8s.io/metrics-server/metrics-server", Tag: "v0.7.2"},
		NodeLocalDNS:             {Repository: "registry.k8s.io/dns/k8s-dns-node-cache", Tag: "1.25.0"},
		AlpineConntrack:          {Repository: gardenerReleases + "alpine-conntrack", Tag: "3.21.3"},
		BlackboxExporter:         {Repository: "quay.io/prometheus/blackbox-exporter", Tag: "v0.26.0"},
		EventLogger:              {Repository: gardenerReleases + "event-logger", Tag: "v0.65.0"},
	}
}

// Override returns a copy of v with images replaced: each value is "repository:tag",
// "repository@sha256:..." or a bare tag (keeping the repository). Unknown names are an error,
// so that a misspelt override does not silently change nothing.
func (v Vector) Override(overrides map[string]string) (Vector, error) {
	out := make(Vector, len(v))
	for k, i := range v {
		out[k] = i
	}
	names := make([]string, 0, len(overrides))
	for n := range overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		cur, ok := out[name]
		if !ok {
			return nil, fmt.Errorf("image %q is not in the image vector; known images: %s", name, strings.Join(v.Names(), ", "))
		}
		img, err := parse(overrides[name], cur)
		if err != nil {
			return nil, fmt.Errorf("image %q: %w", name, err)
		}
		out[name] = img
	}
	return out, nil
}

func parse(ref string, cur Image) (Image, error) {
	if ref == "" {
		return Image{}, fmt.Errorf("empty image reference")
	}
	if repo, digest, ok := strings.Cut(ref, "@"); ok {
		return Image{Repository: repo, Tag: digest}, nil
	}
	slash := strings.LastIndex(ref, "/")
	if colon := strings.LastIndex(ref, ":"); colon > slash {
		return Image{Repository: ref[:colon], Tag: ref[colon+1:]}, nil
	}
	if slash < 0 {
		return Image{Repository: cur.Repository, Tag: ref}, nil // a bare tag
	}
	return Image{}, fmt.Errorf("%q has no tag; write repository:tag or repository@sha256:digest", ref)
}

// Image returns the reference of a named image. version is the Kubernetes version for images
// tagged by it (kube-apiserver, kube-controller-manager) and ignored for the others. An unknown
// name is an error of the calling component, not of the landscape.
func (v Vector) Image(name, version string) (string, error) {
	i, ok := v[name]
	if !ok {
		return "", fmt.Errorf("image %q is not in the image vector", name)
	}
	if i.Tag == "" {
		if version == "" {
			return "", fmt.Errorf("image %q is tagged by Kubernetes version, and none was given", name)
		}
		i.Tag = "v" + strings.TrimPrefix(version, "v")
	}
	return i.String(), nil
}

// Names lists the vector's image names, sorted.
func (v Vector) Names() []string {
	out := make([]string, 0, len(v))
	for n := range v {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Resolve applies a component's overrides to the default vector and returns the references of
// the named images (without a target version), by name.
func Resolve(overrides map[string]string, names ...string) (map[string]string, error) {
	v, err := Default().Override(overrides)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		ref, err := v.Image(name, "")
		if err != nil {
			return nil, err
		}
		out[name] = ref
	}
	return out, nil
}

// Of applies a component's overrides to the default vector and returns the reference of one
// image, for the Kubernetes version given where the image depends on it ("" otherwise).
func Of(overrides map[string]string, name, version string) (string, error) {
	v, err := Default().Override(overrides)
	if err != nil {
		return "", err
	}
	return v.Image(name, version)
}
