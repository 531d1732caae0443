package kubecontrollermanager

import (
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// workers are the worker counts of the controllers, each one --concurrent-<controller>-syncs flag,
// and the resource quota controller's resync period (Values and ControllerWorkers of
// pkg/component/kubernetes/controllermanager/controllermanager.go at Gardener v1.120.0). A count
// of 0 for namespace, resourceQuota or serviceAccountToken leaves the flag out and, in a cluster
// without workers, switches the controller off.
type workers struct {
	deployment, replicaSet, statefulSet           int
	endpoint, garbageCollector, serviceEndpoint   int
	namespace, resourceQuota, serviceAccountToken int
	resourceQuotaSyncPeriod                       string
}

// shootWorkers are Gardener's defaults, which a shoot's controller manager runs with: gardenlet
// sets no count of its own (DefaultKubeControllerManager in
// pkg/gardenlet/operation/botanist/kubecontrollermanager.go, the defaultControllerWorkers*
// constants of pkg/component/kubernetes/controllermanager/controllermanager.go at v1.120.0).
var shootWorkers = workers{
	deployment: 50, replicaSet: 50, statefulSet: 15,
	endpoint: 15, garbageCollector: 30, serviceEndpoint: 15,
	namespace: 30, resourceQuota: 15, serviceAccountToken: 15,
}

// gardenWorkers are the virtual garden's: gardener-operator raises the garbage collector, namespace
// and resource quota workers, resyncs quotas every minute and switches the serviceaccount-token
// controller off (newKubeControllerManager in pkg/operator/controller/garden/garden/components.go
// at v1.120.0).
func gardenWorkers() workers {
	w := shootWorkers
	w.garbageCollector, w.namespace, w.resourceQuota, w.serviceAccountToken = 250, 100, 100, 0
	w.resourceQuotaSyncPeriod = "1m0s"
	return w
}

// nodeControllers are switched off in a cluster without workers: they act on nodes, their volumes,
// their pod ranges and the endpoints of pods (computeCommand in
// pkg/component/kubernetes/controllermanager/controllermanager.go at v1.120.0).
var nodeControllers = []string{
	"attachdetach", "cloud-node-lifecycle", "endpoint", "ephemeral-volume", "nodeipam", "nodelifecycle",
	"persistentvolume-binder", "persistentvolume-expander", "pv-protection", "ttl",
}

// controllersFlag is the value of --controllers: every default controller and the two bootstrap
// token controllers, minus those switched off, each list sorted as Gardener sorts them (sets.List
// in computeCommand of pkg/component/kubernetes/controllermanager/controllermanager.go at v1.120.0):
// the node controllers and the controllers with no workers in a cluster without workers, and the
// controllers of every API runtimeConfig turns off for this Kubernetes version.
func controllersFlag(workerless bool, w workers, runtimeConfig map[string]bool, version string) string {
	enabled := []string{"*", "bootstrapsigner", "tokencleaner"}
	var disabled []string
	if workerless {
		disabled = append(disabled, nodeControllers...)
		for name, count := range map[string]int{"namespace": w.namespace, "resourcequota": w.resourceQuota, "serviceaccount-token": w.serviceAccountToken} {
			if count == 0 {
				disabled = append(disabled, name)
			}
		}
	}
	disabled = append(disabled, controllersOfDisabledAPIs(runtimeConfig, version)...)
	slices.Sort(disabled)
	disabled = slices.Compact(disabled)
	enabled = slices.DeleteFunc(enabled, func(c string) bool { return slices.Contains(disabled, c) })
	slices.Sort(enabled)

	flag := strings.Join(enabled, ",")
	if len(disabled) > 0 {
		flag += ",-" + strings.Join(disabled, ",-")
	}
	return flag
}

// versions is the range of Kubernetes versions a controller exists in for an API: from since
// (inclusive, "" for always) up to until (exclusive, "" for still).
type versions struct{ since, until string }

// contains reports whether version (MAJOR.MINOR.PATCH) is in the range.
func (r versions) contains(version string) bool {
	var bounds []string
	if r.since != "" {
		bounds = append(bounds, ">= "+r.since)
	}
	if r.until != "" {
		bounds = append(bounds, "< "+r.until)
	}
	if len(bounds) == 0 {
		return true
	}
	c, err := semver.NewConstraint(strings.Join(bounds, ", "))
	if err != nil {
		return false
	}
	v, err := semver.NewVersion(version)
	return err == nil && c.Check(v)
}

// apiControllers are the controllers that need an API group version, by the group's short name
// and version, in the Kubernetes versions that have them: when the API server's runtime config
// turns the API off, the controllers are switched off too (APIGroupControllerMap in
// pkg/utils/kubernetes/controllers.go at Gardener v1.120.0).
var apiControllers = map[string]map[string]versions{
	"internal/v1alpha1":             {"storage-version-gc": {}},
	"admissionregistration/v1beta1": {"validatingadmissionpolicy-status-controller": {"1.28", "1.30"}},
	"admissionregistration/v1":      {"validatingadmissionpolicy-status-controller": {"1.30", ""}},
	"apps/v1":                       {"daemonset": {}, "deployment": {}, "replicaset": {}, "statefulset": {}},
	"apps/v1beta1":                  {"disruption": {}},
	"authentication/v1":             {"attachdetach": {}, "persistentvolume-expander": {}},
	"authorization/v1":              {"csrapproving": {}},
	"autoscaling/v1":                {"horizontalpodautoscaling": {}},
	"autoscaling/v2":                {"horizontalpodautoscaling": {}},
	"batch/v1":                      {"cronjob": {}, "job": {}, "ttl-after-finished": {}},
	"certificates/v1":               {"csrapproving": {}, "csrcleaner": {}, "csrsigning": {}},
	"certificates/v1alpha1":         {"kube-apiserver-serving-clustertrustbundle-publisher-controller": {"1.32", ""}},
	"certificates/v1beta1":          {"csrsigning": {}},
	"coordination/v1":               {"nodelifecycle": {}, "storage-version-gc": {}},
	"discovery/v1":                  {"endpointslice": {}, "endpointslicemirroring": {}},
	"extensions/v1beta1":            {"disruption": {}},
	"networking/v1alpha1":           {"service-cidr-controller": {"1.29", "1.31"}},
	"networking/v1beta1":            {"service-cidr-controller": {"1.31", ""}},
	"policy/v1":                     {"disruption": {}},
	"rbac/v1":                       {"clusterrole-aggregation": {}},
	"resource/v1alpha2":             {"resource-claim-controller": {"", "1.31"}},
	"resource/v1alpha3":             {"resource-claim-controller": {"1.31", "1.32"}},
	"resource/v1beta1":              {"resource-claim-controller": {"1.32", ""}},
	"storage/v1":                    {"selinux-warning-controller": {"1.32", ""}},
	"storage/v1beta1":               {"volumeattributesclass-protection-controller": {"1.32", ""}},
	"storagemigration/v1alpha1":     {"storage-version-migrator-controller": {"1.30", ""}},
	"v1": {
		"attachdetach": {}, "bootstrapsigner": {}, "cloud-node": {}, "cloud-node-lifecycle": {}, "cronjob": {},
		"csrapproving": {}, "csrsigning": {}, "daemonset": {}, "deployment": {}, "disruption": {}, "endpoint": {},
		"endpointslice": {}, "endpointslicemirroring": {}, "ephemeral-volume": {}, "garbagecollector": {"", "1.30"},
		"horizontalpodautoscaling": {}, "job": {}, "legacy-service-account-token-cleaner": {"1.28", ""},
		"namespace": {}, "nodelifecycle": {}, "persistentvolume-binder": {}, "persistentvolume-expander": {},
		"podgc": {}, "pv-protection": {}, "pvc-protection": {}, "replicaset": {}, "replicationcontroller": {},
		"resource-claim-controller": {}, "resourcequota": {}, "root-ca-cert-publisher": {}, "route": {},
		"selinux-warning-controller": {"1.32", ""}, "service": {}, "service-cidr-controller": {"1.29", ""},
		"serviceaccount": {}, "serviceaccount-token": {}, "statefulset": {}, "taint-eviction-controller": {"1.29", ""},
		"tokencleaner": {}, "ttl": {}, "ttl-after-finished": {}, "volumeattributesclass-protection-controller": {"1.32", ""},
	},
}

// apiGroupSuffixes are cut from an API group to find it in apiControllers, the first one the key
// contains, so .k8s.io must come last (getTrimmedAPI in
// pkg/component/kubernetes/controllermanager/controllermanager.go at v1.120.0).
var apiGroupSuffixes = []string{".authorization.k8s.io", ".apiserver.k8s.io", ".k8s.io"}

// controllersOfDisabledAPIs are the controllers of the APIs runtimeConfig (group/version, as the
// kube-apiserver's --runtime-config keys them) turns off, in Kubernetes version.
func controllersOfDisabledAPIs(runtimeConfig map[string]bool, version string) []string {
	var off []string
	for api, enabled := range runtimeConfig {
		if enabled {
			continue
		}
		for _, suffix := range apiGroupSuffixes {
			if strings.Contains(api, suffix) {
				api = strings.Replace(api, suffix, "", 1)
				break
			}
		}
		for controller, in := range apiControllers[api] {
			if in.contains(version) {
				off = append(off, controller)
			}
		}
	}
	return off
}
