package shoot

import (
	"maps"
	"slices"
)

// cloneValues copies v deep enough that the fields maintenance changes (versions, feature gates,
// admission plugins) can change in the copy alone.
func cloneValues(v Values) Values {
	v.Kubernetes = cloneKubernetes(v.Kubernetes)
	v.Workers = slices.Clone(v.Workers)
	for i := range v.Workers {
		if img := v.Workers[i].MachineImage; img != nil {
			c := *img
			v.Workers[i].MachineImage = &c
		}
	}
	return v
}

// cloneKubernetes copies the Kubernetes settings whose feature gates and admission plugins
// maintenance removes.
func cloneKubernetes(k Kubernetes) Kubernetes {
	if a := k.KubeAPIServer; a != nil {
		c := *a
		c.FeatureGates = maps.Clone(a.FeatureGates)
		c.AdmissionPlugins = slices.Clone(a.AdmissionPlugins)
		k.KubeAPIServer = &c
	}
	if m := k.KubeControllerManager; m != nil {
		c := *m
		c.FeatureGates = maps.Clone(m.FeatureGates)
		k.KubeControllerManager = &c
	}
	if s := k.KubeScheduler; s != nil {
		c := *s
		c.FeatureGates = maps.Clone(s.FeatureGates)
		k.KubeScheduler = &c
	}
	if p := k.KubeProxy; p != nil {
		c := *p
		c.FeatureGates = maps.Clone(p.FeatureGates)
		k.KubeProxy = &c
	}
	return k
}
