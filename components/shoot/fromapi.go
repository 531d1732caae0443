package shoot

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// APIContext is what the engine reads besides the Shoot itself to deploy the control plane of
// a Shoot that a user created through the Gardener API, the things gardenlet takes from its seed
// and its garden rather than from the Shoot (pkg/gardenlet/operation/garden at Gardener
// v1.120.0): the project the Shoot's namespace belongs to, the seed, the garden's internal and
// default domains (the Secrets labelled gardener.cloud/role=internal-domain and default-domain in
// the virtual garden's garden namespace), the lifecycles the ControllerRegistrations declare for
// Extension types, and the handler of the Shoot's ExposureClass.
type APIContext struct {
	Project              string
	Seed                 SeedRef
	InternalDomain       *DNSDomain
	DefaultDomain        *DNSDomain
	ExtensionLifecycles  map[string]ExtensionLifecycle
	ExposureClassHandler string
	// CloudProfile is the profile the Shoot names as the garden holds it, which its extensions
	// Cluster embeds (nil: the Cluster carries the profile's name only).
	CloudProfile map[string]any
}

// RenderFromAPI renders the control plane of a Shoot that no shoot block declares, from the
// Shoot as the Gardener API holds it (with gardener-apiserver's defaults): the same parts a
// shoot block renders, without the Shoot itself, which is the user's. Its hibernation and
// versions are the Shoot's (gardener-controller-manager's schedules and maintenance change them
// there, and the plans predict that), and its life ends when its owner deletes it, not by a
// Quota computed here: gardener-controller-manager deletes an expired Shoot itself.
func RenderFromAPI(in render.Input, live *unstructured.Unstructured, c APIContext) (*render.Output, error) {
	v, err := ValuesFromShoot(live)
	if err != nil {
		return nil, fmt.Errorf("shoot %s/%s: %w", live.GetNamespace(), live.GetName(), err)
	}
	v.Project, v.Seed = c.Project, &c.Seed
	v.InternalDomain, v.DefaultDomain = c.InternalDomain, c.DefaultDomain
	v.ExtensionLifecycles, v.ExposureClassHandler = c.ExtensionLifecycles, c.ExposureClassHandler
	if c.CloudProfile != nil {
		v.CloudProfileObject = c.CloudProfile
	}
	if v.DNSDomain != "" && c.DefaultDomain != nil && v.DNSDomain == live.GetName()+"."+c.Project+"."+c.DefaultDomain.Domain {
		// gardener-apiserver writes the default domain into the Shoot (SetDefaults_Shoot and the
		// shootdns admission plugin): it is the default domain's, not one of the user's own.
		v.DNSDomain = ""
	}
	b, err := newBuilder(live.GetName(), v)
	if err != nil {
		return nil, err
	}
	b.fromAPI, b.apiShoot = true, live
	return b.render(in)
}

// ValuesFromShoot reads a Shoot's spec (core.gardener.cloud/v1beta1, Gardener's Shoot in
// docs/api-reference/core.md) into the values a shoot block declares: the inverse of spec. What
// a shoot block takes from elsewhere (project, seed, domains, extension lifecycles) is left
// empty.
func ValuesFromShoot(live *unstructured.Unstructured) (Values, error) {
	spec, ok := live.Object["spec"].(map[string]any)
	if !ok {
		return Values{}, fmt.Errorf("the Shoot has no spec")
	}
	s := reader{m: spec}
	v := Values{
		Name:               live.GetName(),
		Region:             s.str("region"),
		Purpose:            s.str("purpose"),
		CredentialsBinding: s.str("credentialsBindingName"),
		SecretBinding:      s.str("secretBindingName"),
		ExposureClass:      s.str("exposureClassName"),
		DNSDomain:          s.str("dns", "domain"),
	}
	v.CloudProfile, v.CloudProfileKind = s.str("cloudProfile", "name"), s.str("cloudProfile", "kind")
	if v.CloudProfile == "" {
		v.CloudProfile, v.CloudProfileKind = s.str("cloudProfileName"), "CloudProfile"
	}
	for _, p := range s.list("dns", "providers") {
		if p := (reader{m: p}); p.boolean("primary") {
			v.DNSProvider = &struct {
				Type      string `json:"type"`
				SecretRef string `json:"secret_ref"`
			}{Type: p.str("type"), SecretRef: p.str("secretName")}
		}
	}
	v.Kubernetes = kubernetesFromSpec(s.sub("kubernetes"))
	if n := s.sub("networking"); n.m != nil {
		v.Networking = &Networking{Type: n.str("type"), Pods: n.str("pods"), Nodes: n.str("nodes"), Services: n.str("services"),
			IPFamilies: n.strs("ipFamilies"), ProviderConfig: n.obj("providerConfig")}
	}
	p := s.sub("provider")
	v.Provider = Provider{Type: p.str("type"), InfrastructureConfig: p.obj("infrastructureConfig"), ControlPlaneConfig: p.obj("controlPlaneConfig")}
	if ssh, ok := p.opt("workersSettings", "sshAccess", "enabled"); ok {
		v.Provider.SSHAccessEnabled = &ssh
	}
	for _, w := range p.list("workers") {
		worker, err := workerFromSpec(reader{m: w})
		if err != nil {
			return Values{}, err
		}
		v.Workers = append(v.Workers, worker)
	}
	if m := s.sub("maintenance"); m.m != nil {
		v.Maintenance = &Maintenance{ConfineSpecUpdateRollout: m.boolean("confineSpecUpdateRollout")}
		if a := m.sub("autoUpdate"); a.m != nil {
			v.Maintenance.AutoUpdate = &AutoUpdate{KubernetesVersion: a.boolean("kubernetesVersion"), MachineImageVersion: a.boolean("machineImageVersion")}
		}
		if w := m.sub("timeWindow"); w.m != nil {
			v.Maintenance.TimeWindow = &struct {
				Begin string `json:"begin"`
				End   string `json:"end"`
			}{Begin: w.str("begin"), End: w.str("end")}
		}
	}
	if h := s.sub("hibernation"); h.m != nil {
		v.Hibernation = &Hibernation{Enabled: h.boolean("enabled")}
		for _, sch := range h.list("schedules") {
			r := reader{m: sch}
			v.Hibernation.Schedules = append(v.Hibernation.Schedules, struct {
				Start    string `json:"start"`
				End      string `json:"end"`
				Location string `json:"location"`
			}{Start: r.str("start"), End: r.str("end"), Location: r.str("location")})
		}
	}
	if t := s.str("controlPlane", "highAvailability", "failureTolerance", "type"); t != "" {
		v.ControlPlane = &ControlPlane{HighAvailability: &struct {
			FailureTolerance string `json:"failure_tolerance"`
		}{FailureTolerance: t}}
	}
	for _, e := range s.list("extensions") {
		r := reader{m: e}
		v.Extensions = append(v.Extensions, Extension{Type: r.str("type"), ProviderConfig: r.obj("providerConfig"), Disabled: r.boolean("disabled")})
	}
	for _, t := range s.list("tolerations") {
		r := reader{m: t}
		v.Tolerations = append(v.Tolerations, Toleration{Key: r.str("key"), Value: r.str("value")})
	}
	if sc := s.sub("systemComponents"); sc.m != nil {
		v.SystemComponents = &SystemComponents{CoreDNSAutoscalingMode: sc.str("coreDNS", "autoscaling", "mode"), NodeLocalDNSEnabled: sc.boolean("nodeLocalDNS", "enabled")}
	}
	if a := s.sub("addons"); a.m != nil {
		v.Addons = &Addons{}
		if d := a.sub("kubernetesDashboard"); d.m != nil {
			v.Addons.KubernetesDashboard = &struct {
				Enabled            bool   `json:"enabled"`
				AuthenticationMode string `json:"authentication_mode"`
			}{Enabled: d.boolean("enabled"), AuthenticationMode: d.str("authenticationMode")}
		}
		if n := a.sub("nginxIngress"); n.m != nil {
			v.Addons.NginxIngress = &struct {
				Enabled                  bool              `json:"enabled"`
				LoadBalancerSourceRanges []string          `json:"load_balancer_source_ranges"`
				Config                   map[string]string `json:"config"`
				ExternalTrafficPolicy    string            `json:"external_traffic_policy"`
			}{Enabled: n.boolean("enabled"), LoadBalancerSourceRanges: n.strs("loadBalancerSourceRanges"),
				Config: n.strMap("config"), ExternalTrafficPolicy: n.str("externalTrafficPolicy")}
		}
	}
	return v, nil
}

// kubernetesFromSpec reads .spec.kubernetes: the inverse of kubernetesSpec.
func kubernetesFromSpec(k reader) Kubernetes {
	out := Kubernetes{Version: k.str("version")}
	if b, ok := k.opt("enableStaticTokenKubeconfig"); ok {
		out.EnableStaticTokenKubeconfig = &b
	}
	if b, ok := k.opt("verticalPodAutoscaler", "enabled"); ok {
		out.VerticalPodAutoscalerEnabled = &b
	}
	if a := k.sub("kubeAPIServer"); a.m != nil {
		api := &KubeAPIServer{
			APIAudiences: a.strs("apiAudiences"), EventTTL: a.str("eventTTL"),
			AuditPolicyConfigMap:              a.str("auditConfig", "auditPolicy", "configMapRef", "name"),
			MaxTokenExpiration:                a.str("serviceAccountConfig", "maxTokenExpiration"),
			StructuredAuthenticationConfigMap: a.str("structuredAuthentication", "configMapName"),
			StructuredAuthorizationConfigMap:  a.str("structuredAuthorization", "configMapName"),
			EncryptedResources:                a.strs("encryptionConfig", "resources"),
			FeatureGates:                      a.boolMap("featureGates"),
			RuntimeConfig:                     a.boolMap("runtimeConfig"),
		}
		if b, ok := a.opt("enableAnonymousAuthentication"); ok {
			api.EnableAnonymousAuthentication = &b
		}
		for _, p := range a.list("admissionPlugins") {
			r := reader{m: p}
			api.AdmissionPlugins = append(api.AdmissionPlugins, struct {
				Name                 string `json:"name"`
				Config               any    `json:"config"`
				Disabled             bool   `json:"disabled"`
				KubeconfigSecretName string `json:"kubeconfig_secret_name"`
			}{Name: r.str("name"), Config: r.m["config"], Disabled: r.boolean("disabled"), KubeconfigSecretName: r.str("kubeconfigSecretName")})
		}
		out.KubeAPIServer = api
	}
	if c := k.sub("kubeControllerManager"); c.m != nil {
		out.KubeControllerManager = &struct {
			NodeCIDRMaskSize       *int32          `json:"node_cidr_mask_size"`
			NodeMonitorGracePeriod string          `json:"node_monitor_grace_period"`
			FeatureGates           map[string]bool `json:"feature_gates"`
		}{NodeMonitorGracePeriod: c.str("nodeMonitorGracePeriod"), FeatureGates: c.boolMap("featureGates")}
		if n, ok := c.integer("nodeCIDRMaskSize"); ok {
			size := int32(n)
			out.KubeControllerManager.NodeCIDRMaskSize = &size
		}
	}
	if s := k.sub("kubeScheduler"); s.m != nil {
		out.KubeScheduler = &struct {
			Profile      string          `json:"profile"`
			FeatureGates map[string]bool `json:"feature_gates"`
		}{Profile: s.str("profile"), FeatureGates: s.boolMap("featureGates")}
	}
	if p := k.sub("kubeProxy"); p.m != nil {
		enabled, ok := p.opt("enabled")
		out.KubeProxy = &KubeProxy{Enabled: enabled || !ok, Mode: p.str("mode"), FeatureGates: p.boolMap("featureGates")}
	}
	return out
}

// workerFromSpec reads one worker pool: the inverse of providerSpec's.
func workerFromSpec(r reader) (Worker, error) {
	w := Worker{
		Name: r.str("name"), MachineType: r.str("machine", "type"), Architecture: r.str("machine", "architecture"),
		MaxSurge: r.intOrString("maxSurge"), MaxUnavailable: r.intOrString("maxUnavailable"),
		Zones: r.strs("zones"), Labels: r.strMap("labels"), Annotations: r.strMap("annotations"),
		KubernetesVersion: r.str("kubernetes", "version"), ProviderConfig: r.obj("providerConfig"),
	}
	minimum, _ := r.integer("minimum")
	maximum, _ := r.integer("maximum")
	w.Minimum, w.Maximum = int32(minimum), int32(maximum)
	if b, ok := r.opt("systemComponents", "allow"); ok {
		w.SystemComponentsAllowed = &b
	}
	if i := r.sub("machine", "image"); i.m != nil {
		w.MachineImage = &struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}{Name: i.str("name"), Version: i.str("version")}
	}
	if vol := r.sub("volume"); vol.m != nil {
		w.Volume = &struct {
			Type string `json:"type"`
			Size string `json:"size"`
		}{Type: vol.str("type"), Size: vol.str("size")}
	}
	for _, t := range r.list("taints") {
		tr := reader{m: t}
		w.Taints = append(w.Taints, struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Effect string `json:"effect"`
		}{Key: tr.str("key"), Value: tr.str("value"), Effect: tr.str("effect")})
	}
	if c := r.str("cri", "name"); c != "" {
		w.CRI = &struct {
			Name string `json:"name"`
		}{Name: c}
	}
	if w.Name == "" {
		return Worker{}, fmt.Errorf("a worker pool has no name")
	}
	return w, nil
}

// reader reads fields of a decoded JSON object; absent and mistyped fields read as zero, since
// gardener-apiserver validated the object.
type reader struct{ m map[string]any }

func (r reader) get(path ...string) (any, bool) {
	var cur any = r.m
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func (r reader) sub(path ...string) reader {
	v, _ := r.get(path...)
	m, _ := v.(map[string]any)
	return reader{m: m}
}

func (r reader) str(path ...string) string {
	v, _ := r.get(path...)
	s, _ := v.(string)
	return s
}

func (r reader) opt(path ...string) (value, ok bool) {
	v, _ := r.get(path...)
	b, ok := v.(bool)
	return b, ok
}

func (r reader) boolean(path ...string) bool {
	b, _ := r.opt(path...)
	return b
}

func (r reader) integer(path ...string) (int64, bool) {
	v, _ := r.get(path...)
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// intOrString reads an IntOrString (a worker pool's maxSurge) as the shoot block writes it.
func (r reader) intOrString(path ...string) string {
	if n, ok := r.integer(path...); ok {
		return fmt.Sprint(n)
	}
	return r.str(path...)
}

func (r reader) obj(path ...string) map[string]any {
	return r.sub(path...).m
}

func (r reader) list(path ...string) []map[string]any {
	v, _ := r.get(path...)
	items, _ := v.([]any)
	var out []map[string]any
	for _, i := range items {
		if m, ok := i.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func (r reader) strs(path ...string) []string {
	v, _ := r.get(path...)
	items, _ := v.([]any)
	var out []string
	for _, i := range items {
		if s, ok := i.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (r reader) strMap(path ...string) map[string]string {
	m := r.obj(path...)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func (r reader) boolMap(path ...string) map[string]bool {
	m := r.obj(path...)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]bool, len(m))
	for k, v := range m {
		if b, ok := v.(bool); ok {
			out[k] = b
		}
	}
	return out
}

// ProjectOfNamespace is the project whose Shoots live in namespace by Gardener's naming
// (garden-<project>, and garden for the project garden); false for other namespaces, which only
// a Project's spec.namespace can tell.
func ProjectOfNamespace(namespace string) (string, bool) {
	if namespace == "garden" {
		return "garden", true
	}
	if p, ok := strings.CutPrefix(namespace, "garden-"); ok && p != "" {
		return p, true
	}
	return "", false
}
