package shoot

import (
	"slices"
	"time"

	"github.com/declarative-gardener/gardener/components/shootsystem"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The control plane of a shoot is rendered from the Shoot as the Gardener API holds it: with the
// fields the landscape leaves out filled in as gardener-apiserver fills them in when the Shoot is
// written. A control plane rendered before the Shoot exists (or offline) from the landscape's
// values is then the one rendered from the live Shoot afterwards (RenderFromAPI), and a second
// plan after the first apply has nothing to change. The Shoot itself is written with the
// landscape's values alone (builder.shootValues): the engine sends no defaulted field, so that it
// never owns one.
//
// What gardener-apiserver fills in (at Gardener v1.120.0), as far as the control plane reads it:
//
//   - the defaulting functions SetObjectDefaults_Shoot (pkg/apis/core/v1beta1/zz_generated.defaults.go):
//     SetDefaults_Shoot, SetDefaults_KubeAPIServerConfig, SetDefaults_Networking,
//     SetDefaults_Maintenance, SetDefaults_Worker and SetDefaults_NginxIngress
//     (pkg/apis/core/v1beta1/defaults_shoot.go);
//   - durations as metav1.Duration serialises them ("1h" reads back as "1h0m0s");
//   - a random maintenance time window (SetDefaults_Maintenance), which no landscape can know: the
//     control plane takes the live Shoot's, read when the Shoot exists (builder.defaultWindow).
//
// Its default-on mutating admission plugins (plugin/pkg/plugins.go DefaultOnPlugins) change
// nothing else the control plane reads of a Shoot the shoot block writes: ShootDNS
// (plugin/pkg/shoot/dns/admission.go) assigns a domain and a primary provider, which the block
// always sends; ShootValidator (plugin/pkg/shoot/validator/admission.go) completes partial
// Kubernetes versions, machine images and the pod and service networks, which the block sends in
// full; ShootResourceReservation (plugin/pkg/shoot/resourcereservation/admission.go) sets the
// kubelet's kubeReserved, which the control plane does not render. ShootTolerationRestriction
// and ShootExposureClass add tolerations from the Project, the plugin's configuration and the
// ExposureClass (plugin/pkg/shoot/tolerationrestriction/admission.go,
// plugin/pkg/shoot/exposureclass/admission.go), which the shoot block does not see; the extensions
// Cluster's copy of the Shoot lacks them (docs/behaviours.md, "Control planes from the Shoot").

// Gardener's defaults (pkg/apis/core/v1beta1/defaults_shoot.go, types_shoot.go and
// constants/types_constants.go at v1.120.0).
const (
	defaultPurpose                = "evaluation"
	defaultEventTTL               = time.Hour
	defaultNodeMonitorGracePeriod = 40 * time.Second
	defaultSchedulingProfile      = "balanced"
	defaultDashboardAuthMode      = "token"
	defaultExternalTrafficPolicy  = "Cluster"
	defaultArchitecture           = "amd64"
	defaultCRI                    = "containerd"
	defaultWorkerMaxSurge         = "1"
	defaultWorkerMaxUnavailable   = "0"
	coreDNSHorizontal             = "horizontal"
	coreDNSClusterProportional    = "cluster-proportional"
	// tolerationProtected is the toleration SetDefaults_Shoot gives every Shoot in the garden
	// namespace (SeedTaintProtected).
	tolerationProtected = "seed.gardener.cloud/protected"
	// kubeletMaxPods is the kubelet's default maxPods, which the node CIDR mask size is computed
	// from (calculateDefaultNodeCIDRMaskSize); the shoot block sets no kubelet configuration.
	kubeletMaxPods = 110
)

// withAPIDefaults returns v with what gardener-apiserver's defaulting fills into the Shoot that
// spec writes for v in namespace, and with durations as the API returns them. v itself is not
// changed. It is idempotent: a Shoot read from the API (ValuesFromShoot) comes back unchanged.
func withAPIDefaults(v Values, namespace string) Values {
	v = cloneValues(v)
	workers := len(v.Workers) > 0
	if v.Purpose == "" {
		v.Purpose = defaultPurpose
	}
	// SetDefaults_Shoot: Shoots in the garden namespace tolerate protected seeds (addTolerations).
	if namespace == "garden" && !slices.ContainsFunc(v.Tolerations, func(t Toleration) bool { return t.Key == tolerationProtected && t.Value == "" }) {
		v.Tolerations = append(slices.Clone(v.Tolerations), Toleration{Key: tolerationProtected})
	}
	v.Kubernetes = kubernetesDefaults(v, workers)
	maintenance := Maintenance{}
	if v.Maintenance != nil {
		maintenance = *v.Maintenance
	}
	if maintenance.AutoUpdate == nil {
		// kubernetesVersion true; machineImageVersion true for a Shoot with workers, left out
		// (false) for a workerless one.
		maintenance.AutoUpdate = &AutoUpdate{KubernetesVersion: true, MachineImageVersion: workers}
	}
	v.Maintenance = &maintenance
	networking := Networking{}
	if v.Networking != nil {
		networking = *v.Networking
	}
	if len(networking.IPFamilies) == 0 { // SetDefaults_Networking
		networking.IPFamilies = []string{"IPv4"}
	}
	v.Networking = &networking
	for i := range v.Workers { // SetDefaults_Shoot and SetDefaults_Worker
		w := &v.Workers[i]
		if w.Architecture == "" {
			w.Architecture = defaultArchitecture
		}
		if w.CRI == nil {
			w.CRI = &struct {
				Name string `json:"name"`
			}{Name: defaultCRI}
		}
		if w.MaxSurge == "" {
			w.MaxSurge = defaultWorkerMaxSurge
		}
		if w.MaxUnavailable == "" {
			w.MaxUnavailable = defaultWorkerMaxUnavailable
		}
		if w.SystemComponentsAllowed == nil {
			allow := true
			w.SystemComponentsAllowed = &allow
		}
	}
	if workers {
		if v.Provider.SSHAccessEnabled == nil {
			enabled := true
			v.Provider.SSHAccessEnabled = &enabled
		}
		system := SystemComponents{}
		if v.SystemComponents != nil {
			system = *v.SystemComponents
		}
		if system.CoreDNSAutoscalingMode != coreDNSHorizontal && system.CoreDNSAutoscalingMode != coreDNSClusterProportional {
			system.CoreDNSAutoscalingMode = coreDNSHorizontal
		}
		v.SystemComponents = &system
	}
	v.Addons = addonsDefaults(v.Addons, workers)
	return v
}

// kubernetesDefaults are .spec.kubernetes's defaults: SetDefaults_KubeAPIServerConfig on the
// kube-apiserver settings every Shoot gets, and for a Shoot with workers those of its
// kube-controller-manager, kube-scheduler and kube-proxy (SetDefaults_Shoot). v.Kubernetes is a
// copy (cloneValues).
func kubernetesDefaults(v Values, workers bool) Kubernetes {
	k := v.Kubernetes
	if k.KubeAPIServer == nil {
		k.KubeAPIServer = &KubeAPIServer{}
	}
	if k.KubeAPIServer.EnableAnonymousAuthentication == nil {
		anonymous := false
		k.KubeAPIServer.EnableAnonymousAuthentication = &anonymous
	}
	k.KubeAPIServer.EventTTL = apiDuration(k.KubeAPIServer.EventTTL, defaultEventTTL)
	k.KubeAPIServer.MaxTokenExpiration = apiDuration(k.KubeAPIServer.MaxTokenExpiration, 0)
	if k.KubeControllerManager != nil { // its duration reads back as the API writes it
		k.KubeControllerManager.NodeMonitorGracePeriod = apiDuration(k.KubeControllerManager.NodeMonitorGracePeriod, 0)
	}
	if !workers {
		return k
	}
	if k.KubeControllerManager == nil {
		k.KubeControllerManager = &struct {
			NodeCIDRMaskSize       *int32          `json:"node_cidr_mask_size"`
			NodeMonitorGracePeriod string          `json:"node_monitor_grace_period"`
			FeatureGates           map[string]bool `json:"feature_gates"`
		}{}
	}
	if k.KubeControllerManager.NodeCIDRMaskSize == nil {
		size := nodeCIDRMaskSize(v.Networking)
		k.KubeControllerManager.NodeCIDRMaskSize = &size
	}
	k.KubeControllerManager.NodeMonitorGracePeriod = apiDuration(k.KubeControllerManager.NodeMonitorGracePeriod, defaultNodeMonitorGracePeriod)
	if k.KubeScheduler == nil {
		k.KubeScheduler = &struct {
			Profile      string          `json:"profile"`
			FeatureGates map[string]bool `json:"feature_gates"`
		}{}
	}
	if k.KubeScheduler.Profile == "" {
		k.KubeScheduler.Profile = defaultSchedulingProfile
	}
	if k.KubeProxy == nil {
		k.KubeProxy = &KubeProxy{Enabled: true}
	}
	if k.KubeProxy.Mode == "" {
		k.KubeProxy.Mode = shootsystem.ModeIPTables
	}
	return k
}

// nodeCIDRMaskSize is calculateDefaultNodeCIDRMaskSize: 64 on an IPv6 single-stack network,
// otherwise the smallest range with twice as many addresses as the kubelet's default maxPods.
func nodeCIDRMaskSize(n *Networking) int32 {
	if n != nil && len(n.IPFamilies) == 1 && n.IPFamilies[0] == "IPv6" {
		return 64
	}
	bits := int32(0)
	for 1<<bits < 2*kubeletMaxPods {
		bits++
	}
	return 32 - bits
}

// addonsDefaults are .spec.addons's: a Shoot with workers gets the kubernetesDashboard addon's
// authentication mode (SetDefaults_Shoot), an nginxIngress addon its external traffic policy
// (SetDefaults_NginxIngress).
func addonsDefaults(a *Addons, workers bool) *Addons {
	if a == nil && !workers {
		return nil
	}
	out := Addons{}
	if a != nil {
		out = *a
	}
	if workers {
		dashboard := struct {
			Enabled            bool   `json:"enabled"`
			AuthenticationMode string `json:"authentication_mode"`
		}{}
		if out.KubernetesDashboard != nil {
			dashboard = *out.KubernetesDashboard
		}
		if dashboard.AuthenticationMode == "" {
			dashboard.AuthenticationMode = defaultDashboardAuthMode
		}
		out.KubernetesDashboard = &dashboard
	}
	if n := out.NginxIngress; n != nil && n.ExternalTrafficPolicy == "" {
		c := *n
		c.ExternalTrafficPolicy = defaultExternalTrafficPolicy
		out.NginxIngress = &c
	}
	return &out
}

// apiDuration is a duration as gardener-apiserver returns it, metav1.Duration's
// time.Duration.String(): "1h" reads back as "1h0m0s". An empty one is def ("" for none); one
// that does not parse is left as it is (validation refuses it).
func apiDuration(s string, def time.Duration) string {
	if s == "" {
		if def == 0 {
			return ""
		}
		return def.String()
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return d.String()
}

// defaultAsTheAPI makes the control plane's values those of the Shoot as the Gardener API holds
// it (withAPIDefaults), while the Shoot is written with the landscape's (b.shootValues). The
// maintenance time window that gardener-apiserver picks at random for a Shoot without one is the
// live Shoot's, once it exists; before, the control plane refers to it with render.LiveValue
// markers, which the plan fills in once the Shoot exists and apply reads after writing it (every
// part of the control plane comes after the Shoot).
func (b *builder) defaultAsTheAPI() {
	if b.shootValues == nil {
		s := cloneValues(b.v)
		b.shootValues = &s
	}
	b.v = withAPIDefaults(b.v, ProjectNamespace(b.v.Project))
	if m := b.v.Maintenance; m.TimeWindow == nil || m.TimeWindow.Begin == "" || m.TimeWindow.End == "" {
		m.TimeWindow = b.defaultWindow()
	}
}

// defaultWindow is the maintenance time window gardener-apiserver picked for the Shoot
// (SetDefaults_Maintenance): the live Shoot's (decideWindow), or markers for it.
func (b *builder) defaultWindow() *struct {
	Begin string `json:"begin"`
	End   string `json:"end"`
} {
	w := b.window.window
	if w.Begin == "" || w.End == "" {
		ref := render.LiveRef{
			Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots",
			Namespace: ProjectNamespace(b.v.Project), Name: b.name,
		}
		ref.Paths = []string{"spec.maintenance.timeWindow.begin"}
		w.Begin = render.LiveValue(ref)
		ref.Paths = []string{"spec.maintenance.timeWindow.end"}
		w.End = render.LiveValue(ref)
	}
	return &struct {
		Begin string `json:"begin"`
		End   string `json:"end"`
	}{Begin: w.Begin, End: w.End}
}
