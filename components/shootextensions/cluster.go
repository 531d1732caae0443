package shootextensions

import "github.com/declarative-gardener/gardener/components/internal/kube"

// coreAPIVersion is the version of the objects the Cluster carries: all Gardener components use
// core.gardener.cloud/v1beta1 (Gardener's "Cluster" docs/extensions/cluster.md).
const coreAPIVersion = "core.gardener.cloud/v1beta1"

func (r resolved) cloudProfile() map[string]any {
	if r.CloudProfile != nil {
		return deepCopy(r.CloudProfile)
	}
	return map[string]any{"apiVersion": coreAPIVersion, "kind": "CloudProfile", "metadata": map[string]any{"name": r.CloudProfileName}}
}

func (r resolved) seed() map[string]any {
	if r.Seed != nil {
		return deepCopy(r.Seed)
	}
	return map[string]any{"apiVersion": coreAPIVersion, "kind": "Seed", "metadata": map[string]any{"name": r.SeedName}}
}

// shoot is the given Shoot, or one built from the values with the fields extensions commonly
// read (Gardener's docs/extensions/cluster.md): provider, region, networking, Kubernetes version,
// DNS domain, extensions.
func (r resolved) shoot() map[string]any {
	if r.Shoot != nil {
		return deepCopy(r.Shoot)
	}
	var workers []any
	for _, w := range r.Workers {
		worker := map[string]any{
			"name":    w.Name,
			"machine": map[string]any{"type": w.MachineType, "image": map[string]any{"name": w.ImageName, "version": w.ImageVersion}, "architecture": or(w.Architecture, "amd64")},
			"minimum": int64(w.Minimum),
			"maximum": int64(w.Maximum),
		}
		if len(w.Zones) > 0 {
			worker["zones"] = kube.AnyList(w.Zones)
		}
		workers = append(workers, worker)
	}
	provider := map[string]any{"type": r.Provider.Type}
	if workers != nil {
		provider["workers"] = workers
	}
	if r.Provider.InfrastructureConfig != nil {
		provider["infrastructureConfig"] = deepCopy(r.Provider.InfrastructureConfig)
	}
	if r.Provider.ControlPlaneConfig != nil {
		provider["controlPlaneConfig"] = deepCopy(r.Provider.ControlPlaneConfig)
	}
	spec := map[string]any{"provider": provider, "region": r.Provider.Region}
	if r.KubernetesVersion != "" {
		spec["kubernetes"] = map[string]any{"version": r.KubernetesVersion}
	}
	if r.Purpose != "" {
		spec["purpose"] = r.Purpose
	}
	if r.CloudProfileName != "" {
		spec["cloudProfile"] = map[string]any{"kind": "CloudProfile", "name": r.CloudProfileName}
	}
	if r.SeedName != "" {
		spec["seedName"] = r.SeedName
	}
	if n := r.Networking; n.Type != "" {
		networking := map[string]any{"type": n.Type, "ipFamilies": kube.AnyList(n.IPFamilies)}
		for k, v := range map[string]string{"pods": n.Pods, "services": n.Services, "nodes": n.Nodes} {
			if v != "" {
				networking[k] = v
			}
		}
		if n.ProviderConfig != nil {
			networking["providerConfig"] = deepCopy(n.ProviderConfig)
		}
		spec["networking"] = networking
	}
	if r.DNS.Domain != "" {
		spec["dns"] = map[string]any{"domain": r.DNS.Domain}
	}
	if extensions := ShootSpecExtensions(r.Extensions); extensions != nil {
		spec["extensions"] = extensions
	}
	metadata := map[string]any{"name": r.Name, "namespace": "garden-" + r.Project}
	if r.UID != "" {
		metadata["uid"] = r.UID
	}
	return map[string]any{"apiVersion": coreAPIVersion, "kind": "Shoot", "metadata": metadata, "spec": spec}
}

// ShootSpecExtensions are extensions as a Shoot's .spec.extensions lists them (Gardener's Extension
// in docs/api-reference/core.md): the type, disabled only when set, the provider configuration
// (copied) when there is one; nil for none.
func ShootSpecExtensions(exts []Extension) []any {
	var out []any
	for _, e := range exts {
		ext := map[string]any{"type": e.Type}
		if e.Disabled {
			ext["disabled"] = true
		}
		if e.ProviderConfig != nil {
			ext["providerConfig"] = deepCopy(e.ProviderConfig)
		}
		out = append(out, ext)
	}
	return out
}
