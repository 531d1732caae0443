package diag

import "testing"

// BenchmarkClosest measures a typical suggestion: a misspelt attribute against the attributes of
// a large schema.
func BenchmarkClosest(b *testing.B) {
	candidates := []string{
		"kubernetes_version", "machine_type", "machine_image", "minimum", "maximum", "zones", "region",
		"cloud_profile", "credentials_binding", "networking", "purpose", "hibernation", "maintenance",
		"addons", "dns", "extensions", "resources", "tolerations", "seed_selector", "control_plane",
		"kube_apiserver", "kube_controller_manager", "kube_scheduler", "kube_proxy", "kubelet",
		"system_components", "volume_type", "volume_size", "max_surge", "max_unavailable",
	}
	b.ReportAllocs()
	for b.Loop() {
		if Closest("kubernetes_versoin", candidates) != "kubernetes_version" {
			b.Fatal("no suggestion")
		}
	}
}
