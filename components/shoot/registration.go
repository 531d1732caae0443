package shoot

import (
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/shootextensions"
)

// registration: the Shoot in its project namespace, before every part of its control plane.
// gardenlet reconciles an existing Shoot into its control plane, gardener-controller-manager
// installs the on-demand extensions a Shoot needs only once the Shoot exists
// (pkg/controllermanager/controller/controllerregistration/seed/reconciler.go at Gardener
// v1.120.0), and it flips hibernation and raises versions on the Shoot, from which the control
// plane follows. The Shoot is ready once it exists (engine/readiness); deleting the shoot runs
// the control plane's delete flow first and deletes the Shoot last, as gardenlet removes its
// finalizer after the delete flow.
func (b *builder) registration() error {
	if b.fromAPI {
		return nil // the user's Shoot: theirs to write
	}
	u := kube.Custom("core.gardener.cloud/v1beta1", "Shoot", ProjectNamespace(b.v.Project), b.name, nil, map[string]any{"spec": b.spec(b.onShoot())})
	annotations := map[string]string{}
	if d := b.hibernation.declared; d != "" {
		annotations[AnnotationHibernationDeclared] = d
	}
	if p := b.window.previous; p != "" {
		annotations[AnnotationPreviousWindow] = p
	}
	if d := b.lifetime.declared; d != "" {
		annotations[AnnotationExpirationTimestamp] = d
	}
	if len(annotations) > 0 {
		u.SetAnnotations(annotations)
	}
	objects := kube.On(b.seed.VirtualCluster, "", u)
	objects[0].Consume = b.operation.consumed()
	objects[0].Yield = b.yielded()
	b.add("shoot", "shoot", objects)
	return nil
}

// afterTheShoot makes every part of the control plane wait for the Shoot: those that wait for
// nothing else wait for it, the others come after those. Parts deleted in an order of their own
// (DeletionDependsOn) are deleted before it likewise.
func (b *builder) afterTheShoot() error {
	if b.fromAPI {
		return nil // no part renders the user's Shoot, which exists before its control plane
	}
	for i := range b.parts {
		p := &b.parts[i]
		if p.Name == "shoot" {
			continue
		}
		if len(p.DependsOn) == 0 {
			p.DependsOn = []string{"shoot"}
		}
		if p.DeletionDependsOn != nil && len(p.DeletionDependsOn) == 0 {
			p.DeletionDependsOn = []string{"shoot"}
		}
	}
	return nil
}

// shootObject is the Shoot as the extensions Cluster carries it (pkg/extensions/cluster.go at
// Gardener v1.120.0): its spec as gardener-apiserver holds it, with the defaults it fills in
// (apidefaults.go), which the Shoot the engine writes leaves out, its UID, and the status fields
// the engine reports that change only with the landscape or an operation (reportedStatus, status.uid
// and the Gardener version). gardenlet writes the Cluster at points of its flow (the start of an
// operation, after the Infrastructure, after the cluster identity, and its end), each time with the
// whole Shoot; the engine renders the Cluster once per plan, so it leaves out what changes on every
// status write (lastOperation with its progress and times, lastErrors, conditions,
// observedGeneration) and the metadata the API server keeps changing (resourceVersion,
// managedFields): the Cluster is then rewritten when the Shoot's spec, the hibernation or the
// exposure changes, not on the heartbeat of a report.
func (b *builder) shootObject() map[string]any {
	uid := b.shootUID()
	status := b.reportedStatus()
	status["uid"] = b.statusUID()
	status["gardener"] = map[string]any{"version": images.GardenerVersion}
	return map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"name": b.name, "namespace": ProjectNamespace(b.v.Project), "uid": uid},
		"spec":       b.spec(b.inControlPlane()),
		"status":     status,
	}
}

// shootView is what a rendering of the Shoot's spec takes from the decisions about the fields
// gardener-controller-manager changes: the Shoot as the engine writes it, or as the control
// plane (and the extensions Cluster's copy) follows it.
type shootView struct {
	v          Values
	hibernated bool
}

// onShoot is the Shoot as the engine writes it: the landscape's specification, without
// gardener-apiserver's defaults, with the live values of what gardener-controller-manager changes
// (hibernation, versions), except where the landscape changed them itself.
func (b *builder) onShoot() shootView {
	v := b.v
	if b.shootValues != nil {
		v = *b.shootValues
	}
	return shootView{v: v, hibernated: b.shootHibernated}
}

// inControlPlane is the Shoot as the control plane follows it: as gardener-apiserver holds it
// (with its defaults, builder.defaultAsTheAPI), or as gardener-controller-manager will have
// changed it by the evaluation time.
func (b *builder) inControlPlane() shootView {
	return shootView{v: b.v, hibernated: b.hibernated}
}

// spec is the Shoot's spec as the block declares it (Gardener's Shoot in
// docs/api-reference/core.md, Gardener's docs/api-reference/core.md).
func (b *builder) spec(view shootView) map[string]any {
	v := view.v
	spec := map[string]any{
		"region":   v.Region,
		"purpose":  v.Purpose,
		"seedName": b.seed.Name,
		"dns":      b.dnsSpec(v),
	}
	kind := v.CloudProfileKind
	// Only the reference: gardener-apiserver refuses a new Shoot that names both it and the
	// deprecated cloudProfileName (plugin/pkg/shoot/validator/admission.go at Gardener v1.120.0)
	// and fills in cloudProfileName itself from a CloudProfile reference on every write
	// (SyncCloudProfileFields in plugin/pkg/utils/cloudprofile.go). That copy is the server's:
	// the engine does not send the field, so it does not own it and plans no change to it.
	spec["cloudProfile"] = map[string]any{"kind": kind, "name": v.CloudProfile}
	// A workerless shoot has no infrastructure, so no credentials (Gardener's "Workerless Shoots"
	// docs/usage/shoot/shoot_workerless.md).
	if len(v.Workers) > 0 {
		set(spec, "credentialsBindingName", v.CredentialsBinding)
		set(spec, "secretBindingName", v.SecretBinding)
	}
	set(spec, "exposureClassName", v.ExposureClass)
	spec["kubernetes"] = kubernetesSpec(v.Kubernetes)
	spec["networking"] = b.networkingSpec(v)
	spec["provider"] = providerSpec(v)
	if m := v.Maintenance; m != nil {
		maint := map[string]any{"confineSpecUpdateRollout": m.ConfineSpecUpdateRollout}
		if a := m.AutoUpdate; a != nil {
			auto := map[string]any{"kubernetesVersion": a.KubernetesVersion}
			if len(v.Workers) > 0 { // a workerless Shoot has no images and must not say otherwise
				auto["machineImageVersion"] = a.MachineImageVersion
			}
			maint["autoUpdate"] = auto
		}
		if w := m.TimeWindow; w != nil {
			maint["timeWindow"] = map[string]any{"begin": w.Begin, "end": w.End}
		}
		spec["maintenance"] = maint
	}
	if h := v.Hibernation; h != nil {
		hib := map[string]any{"enabled": view.hibernated}
		var schedules []any
		for _, s := range h.Schedules {
			sch := map[string]any{}
			set(sch, "start", s.Start)
			set(sch, "end", s.End)
			set(sch, "location", s.Location)
			schedules = append(schedules, sch)
		}
		if schedules != nil {
			hib["schedules"] = schedules
		}
		spec["hibernation"] = hib
	}
	if b.tolerance != "" {
		spec["controlPlane"] = map[string]any{"highAvailability": map[string]any{"failureTolerance": map[string]any{"type": b.tolerance}}}
	}
	exts := make([]shootextensions.Extension, len(v.Extensions))
	for i, e := range v.Extensions {
		exts[i] = shootextensions.Extension{Type: e.Type, ProviderConfig: e.ProviderConfig, Disabled: e.Disabled}
	}
	if list := shootextensions.ShootSpecExtensions(exts); list != nil {
		spec["extensions"] = list
	}
	var tolerations []any
	for _, t := range v.Tolerations {
		tol := map[string]any{"key": t.Key}
		set(tol, "value", t.Value)
		tolerations = append(tolerations, tol)
	}
	if tolerations != nil {
		spec["tolerations"] = tolerations
	}
	if s := v.SystemComponents; s != nil {
		spec["systemComponents"] = map[string]any{
			"coreDNS":      map[string]any{"autoscaling": map[string]any{"mode": s.CoreDNSAutoscalingMode}},
			"nodeLocalDNS": map[string]any{"enabled": s.NodeLocalDNSEnabled},
		}
	}
	if a := v.Addons; a != nil {
		addons := map[string]any{}
		if d := a.KubernetesDashboard; d != nil {
			dash := map[string]any{"enabled": d.Enabled}
			set(dash, "authenticationMode", d.AuthenticationMode)
			addons["kubernetesDashboard"] = dash
		}
		if n := a.NginxIngress; n != nil {
			ngx := map[string]any{"enabled": n.Enabled}
			set(ngx, "externalTrafficPolicy", n.ExternalTrafficPolicy)
			if len(n.LoadBalancerSourceRanges) > 0 {
				ngx["loadBalancerSourceRanges"] = kube.AnyList(n.LoadBalancerSourceRanges)
			}
			if len(n.Config) > 0 {
				ngx["config"] = kube.AnyMap(n.Config)
			}
			addons["nginxIngress"] = ngx
		}
		if len(addons) > 0 {
			spec["addons"] = addons
		}
	}
	return spec
}

func kubernetesSpec(k Kubernetes) map[string]any {
	out := map[string]any{"version": k.Version}
	if k.EnableStaticTokenKubeconfig != nil {
		out["enableStaticTokenKubeconfig"] = *k.EnableStaticTokenKubeconfig
	}
	if k.VerticalPodAutoscalerEnabled != nil {
		out["verticalPodAutoscaler"] = map[string]any{"enabled": *k.VerticalPodAutoscalerEnabled}
	}
	if a := k.KubeAPIServer; a != nil {
		api := map[string]any{}
		if len(a.APIAudiences) > 0 {
			api["apiAudiences"] = kube.AnyList(a.APIAudiences)
		}
		set(api, "eventTTL", a.EventTTL)
		if a.EnableAnonymousAuthentication != nil {
			api["enableAnonymousAuthentication"] = *a.EnableAnonymousAuthentication
		}
		if len(a.RuntimeConfig) > 0 {
			rc := map[string]any{}
			for key, val := range a.RuntimeConfig {
				rc[key] = val
			}
			api["runtimeConfig"] = rc
		}
		if a.AuditPolicyConfigMap != "" {
			api["auditConfig"] = map[string]any{"auditPolicy": map[string]any{"configMapRef": map[string]any{"name": a.AuditPolicyConfigMap}}}
		}
		if a.MaxTokenExpiration != "" {
			api["serviceAccountConfig"] = map[string]any{"maxTokenExpiration": a.MaxTokenExpiration}
		}
		if a.StructuredAuthenticationConfigMap != "" {
			api["structuredAuthentication"] = map[string]any{"configMapName": a.StructuredAuthenticationConfigMap}
		}
		if a.StructuredAuthorizationConfigMap != "" {
			api["structuredAuthorization"] = map[string]any{"configMapName": a.StructuredAuthorizationConfigMap}
		}
		if len(a.EncryptedResources) > 0 {
			api["encryptionConfig"] = map[string]any{"resources": kube.AnyList(a.EncryptedResources)}
		}
		if len(a.FeatureGates) > 0 {
			api["featureGates"] = kube.AnyMap(a.FeatureGates)
		}
		var plugins []any
		for _, p := range a.AdmissionPlugins {
			plugin := map[string]any{"name": p.Name}
			if p.Disabled {
				plugin["disabled"] = true
			}
			if p.Config != nil {
				plugin["config"] = p.Config
			}
			set(plugin, "kubeconfigSecretName", p.KubeconfigSecretName)
			plugins = append(plugins, plugin)
		}
		if plugins != nil {
			api["admissionPlugins"] = plugins
		}
		if len(api) > 0 {
			out["kubeAPIServer"] = api
		}
	}
	if c := k.KubeControllerManager; c != nil {
		kcm := map[string]any{}
		if c.NodeCIDRMaskSize != nil {
			kcm["nodeCIDRMaskSize"] = int64(*c.NodeCIDRMaskSize)
		}
		set(kcm, "nodeMonitorGracePeriod", c.NodeMonitorGracePeriod)
		if len(c.FeatureGates) > 0 {
			kcm["featureGates"] = kube.AnyMap(c.FeatureGates)
		}
		if len(kcm) > 0 {
			out["kubeControllerManager"] = kcm
		}
	}
	if s := k.KubeScheduler; s != nil {
		sched := map[string]any{}
		set(sched, "profile", s.Profile)
		if len(s.FeatureGates) > 0 {
			sched["featureGates"] = kube.AnyMap(s.FeatureGates)
		}
		out["kubeScheduler"] = sched
	}
	if p := k.KubeProxy; p != nil {
		proxy := map[string]any{"enabled": p.Enabled}
		set(proxy, "mode", p.Mode)
		if len(p.FeatureGates) > 0 {
			proxy["featureGates"] = kube.AnyMap(p.FeatureGates)
		}
		out["kubeProxy"] = proxy
	}
	return out
}

func (b *builder) networkingSpec(v Values) map[string]any {
	out := map[string]any{"services": b.services}
	if n := v.Networking; n != nil && len(n.IPFamilies) > 0 {
		out["ipFamilies"] = kube.AnyList(n.IPFamilies)
	}
	if len(v.Workers) == 0 {
		// Without nodes there are no pod or node networks and no CNI (Gardener's docs, "Workerless
		// Shoots", docs/usage/shoot/shoot_workerless.md); Gardener forbids them on a workerless Shoot
		// (validateNetworking in pkg/apis/core/validation/shoot.go at v1.120.0).
		return out
	}
	set(out, "pods", b.pods)
	set(out, "nodes", b.nodes)
	if n := v.Networking; n != nil {
		set(out, "type", n.Type)
		if n.ProviderConfig != nil {
			out["providerConfig"] = n.ProviderConfig
		}
	}
	return out
}

func providerSpec(v Values) map[string]any {
	p := v.Provider
	out := map[string]any{"type": p.Type}
	if p.InfrastructureConfig != nil {
		out["infrastructureConfig"] = p.InfrastructureConfig
	}
	if p.ControlPlaneConfig != nil {
		out["controlPlaneConfig"] = p.ControlPlaneConfig
	}
	// SSH reaches worker nodes; gardener-apiserver forbids workersSettings on a workerless Shoot
	// (validateProvider in pkg/apis/core/validation/shoot.go at v1.120.0), and ssh_access_enabled
	// has a default, so it is left out there rather than refused.
	if p.SSHAccessEnabled != nil && len(v.Workers) > 0 {
		out["workersSettings"] = map[string]any{"sshAccess": map[string]any{"enabled": *p.SSHAccessEnabled}}
	}
	var workers []any
	for _, w := range v.Workers {
		machine := map[string]any{"type": w.MachineType}
		set(machine, "architecture", w.Architecture)
		if i := w.MachineImage; i != nil {
			img := map[string]any{"name": i.Name}
			set(img, "version", i.Version)
			machine["image"] = img
		}
		worker := map[string]any{"name": w.Name, "machine": machine, "minimum": int64(w.Minimum), "maximum": int64(w.Maximum)}
		set(worker, "maxSurge", w.MaxSurge)
		set(worker, "maxUnavailable", w.MaxUnavailable)
		if len(w.Zones) > 0 {
			worker["zones"] = kube.AnyList(w.Zones)
		}
		if len(w.Labels) > 0 {
			worker["labels"] = kube.AnyMap(w.Labels)
		}
		if len(w.Annotations) > 0 {
			worker["annotations"] = kube.AnyMap(w.Annotations)
		}
		if w.KubernetesVersion != "" {
			worker["kubernetes"] = map[string]any{"version": w.KubernetesVersion}
		}
		if w.SystemComponentsAllowed != nil {
			worker["systemComponents"] = map[string]any{"allow": *w.SystemComponentsAllowed}
		}
		if w.ProviderConfig != nil {
			worker["providerConfig"] = w.ProviderConfig
		}
		if v := w.Volume; v != nil {
			vol := map[string]any{"size": v.Size}
			set(vol, "type", v.Type)
			worker["volume"] = vol
		}
		var taints []any
		for _, t := range w.Taints {
			taint := map[string]any{"key": t.Key, "effect": t.Effect}
			set(taint, "value", t.Value)
			taints = append(taints, taint)
		}
		if taints != nil {
			worker["taints"] = taints
		}
		if c := w.CRI; c != nil {
			worker["cri"] = map[string]any{"name": c.Name}
		}
		workers = append(workers, worker)
	}
	if workers != nil {
		out["workers"] = workers
	}
	return out
}

// set puts a non-empty string into m.
func set(m map[string]any, key, value string) {
	if value != "" {
		m[key] = value
	}
}

// dnsSpec is .spec.dns: the domain and the shoot's own DNS provider, primary (Gardener's Shoot in
// docs/api-reference/core.md).
func (b *builder) dnsSpec(v Values) map[string]any {
	dns := map[string]any{"domain": b.domain()}
	if p := v.DNSProvider; p != nil {
		dns["providers"] = []any{map[string]any{"type": p.Type, "secretName": p.SecretRef, "primary": true}}
	}
	return dns
}

// yielded are the Shoot's fields the engine writes with the live Shoot's values because
// gardener-controller-manager decides them (render.Object.Yield): spec.hibernation.enabled
// between the landscape's own changes, and the versions its maintenance raised above the
// landscape's. A write of the Shoot that finds them changed since the plan read them leaves
// them as they are now.
func (b *builder) yielded() []string {
	var paths []string
	if b.hibernation.onShootIsLive {
		paths = append(paths, "spec.hibernation.enabled")
	}
	shoot := b.onShoot().v
	if shoot.Kubernetes.Version != b.declared.Kubernetes.Version {
		paths = append(paths, "spec.kubernetes.version")
	}
	for i, w := range shoot.Workers {
		if i >= len(b.declared.Workers) {
			break
		}
		declared := b.declared.Workers[i]
		pool := "spec.provider.workers[name=" + w.Name + "]"
		if w.MachineImage != nil && (declared.MachineImage == nil || declared.MachineImage.Version != w.MachineImage.Version) {
			paths = append(paths, pool+".machine.image.version")
		}
		if w.KubernetesVersion != declared.KubernetesVersion {
			paths = append(paths, pool+".kubernetes.version")
		}
	}
	return paths
}
