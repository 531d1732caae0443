package shootextensions

import (
	"encoding/base64"
	"fmt"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/engine/render"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// The purposes of an OperatingSystemConfig (Gardener's "OperatingSystemConfig"
// docs/extensions/resources/operatingsystemconfig.md).
const (
	PurposeProvision = "provision"
	PurposeReconcile = "reconcile"
)

// OperatingSystemConfigName names a pool's OperatingSystemConfig of a purpose: <pool>-original
// for reconcile, like Gardener's documented example pool-01-original (Gardener's
// docs/extensions/resources/operatingsystemconfig.md), and <pool>-init for provision, whose user
// data starts gardener-node-init (Gardener's docs/extensions/resources/operatingsystemconfig.md).
func OperatingSystemConfigName(pool, purpose string) string {
	if purpose == PurposeProvision {
		return pool + "-init"
	}
	return pool + "-original"
}

// UserDataSecretName is the Secret the OS extension writes the provision config's user data to,
// osc-result-<config> with key cloud_config (Gardener's
// docs/extensions/resources/operatingsystemconfig.md); the Worker points the machines at it.
func UserDataSecretName(pool string) string {
	return "osc-result-" + OperatingSystemConfigName(pool, PurposeProvision)
}

// NodeAgentSecretName is the Secret in the control-plane namespace with gardener-node-agent's
// configuration for a pool (key config.yaml: the API server endpoint, its CA and the bootstrap
// credentials, Gardener's "Gardener Node Agent" docs/concepts/node-agent.md). The shoot composite
// provides it; changing it rolls the pool's nodes (Gardener's "Worker"
// docs/extensions/resources/worker.md).
func NodeAgentSecretName(pool string) string { return "gardener-node-agent-" + pool }

// Paths on the node (Gardener's docs/concepts/node-agent.md).
const (
	nodeAgentDir    = "/var/lib/gardener-node-agent"
	nodeAgentBinary = "/opt/bin/gardener-node-agent"
	kubeletBinary   = "/opt/bin/kubelet"
	kubeletConfig   = "/var/lib/kubelet/config/kubelet"
)

// OperatingSystemConfigs are two per worker pool: provision, whose user data bootstraps
// gardener-node-agent, and reconcile, the configuration gardener-node-agent keeps applied
// (Gardener's docs/extensions/resources/operatingsystemconfig.md, docs/concepts/node-agent.md).
// None for workerless shoots.
func OperatingSystemConfigs(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil || len(r.Workers) == 0 {
		return nil, err
	}
	vector := images.Default()
	agent, err := vector.Image(images.GardenerNodeAgent, "")
	if err != nil {
		return nil, err
	}
	var out []render.Object
	for _, w := range r.Workers {
		version := or(w.KubernetesVersion, r.KubernetesVersion)
		if version == "" {
			return nil, fmt.Errorf("shoot %s/%s: worker pool %q: no Kubernetes version", r.Project, r.Name, w.Name)
		}
		kubelet, err := vector.Image(images.Hyperkube, version)
		if err != nil {
			return nil, err
		}
		base := func(purpose string) map[string]any {
			return map[string]any{
				"type":    w.ImageName, // the OS extension is registered for the machine image (Gardener's docs/extensions/resources/operatingsystemconfig.md)
				"purpose": purpose,
				// containerd is the default and only CRI (Gardener's Worker in docs/api-reference/core.md).
				"criConfig": map[string]any{"name": "containerd", "cgroupDriver": "systemd"},
			}
		}
		agentFiles := []any{
			map[string]any{"path": nodeAgentBinary, "permissions": int64(0o755), "content": map[string]any{
				"imageRef": map[string]any{"image": agent, "filePathInImage": "/gardener-node-agent"},
			}},
			map[string]any{"path": nodeAgentDir + "/config.yaml", "permissions": int64(0o600), "content": map[string]any{
				"secretRef": map[string]any{"name": NodeAgentSecretName(w.Name), "dataKey": "config.yaml"},
			}},
		}
		provision := base(PurposeProvision)
		provision["units"] = []any{
			unit("gardener-node-init.service", "[Unit]\nDescription=Downloads and starts gardener-node-agent\nAfter=network-online.target\nWants=network-online.target\n\n[Service]\nType=oneshot\nExecStart="+nodeAgentDir+"/init.sh\n\n[Install]\nWantedBy=multi-user.target\n"),
			agentUnit(),
		}
		provision["files"] = append([]any{
			map[string]any{"path": nodeAgentDir + "/init.sh", "permissions": int64(0o755), "content": map[string]any{
				"inline": inlineContent(initScript),
			}},
		}, agentFiles...)

		reconcile := base(PurposeReconcile)
		reconcile["units"] = []any{
			agentUnit(),
			unit("kubelet.service", "[Unit]\nDescription=kubelet\nAfter=containerd.service\n\n[Service]\nRestart=always\nRestartSec=5\nExecStart="+kubeletBinary+" --config="+kubeletConfig+" --kubeconfig=/var/lib/kubelet/kubeconfig-real --bootstrap-kubeconfig=/var/lib/kubelet/kubeconfig-bootstrap --container-runtime-endpoint=unix:///run/containerd/containerd.sock\n\n[Install]\nWantedBy=multi-user.target\n"),
		}
		reconcile["files"] = append([]any{
			map[string]any{"path": kubeletBinary, "permissions": int64(0o755), "content": map[string]any{
				"imageRef": map[string]any{"image": kubelet, "filePathInImage": "/kubelet"},
			}},
			map[string]any{"path": kubeletConfig, "permissions": int64(0o644), "content": map[string]any{
				"inline": inlineContent(kubeletConfiguration),
			}},
		}, agentFiles...)
		out = append(out,
			r.object("OperatingSystemConfig", r.namespace, OperatingSystemConfigName(w.Name, PurposeProvision), provision),
			r.object("OperatingSystemConfig", r.namespace, OperatingSystemConfigName(w.Name, PurposeReconcile), reconcile),
		)
	}
	return out, nil
}

// inlineContent is a file's inline content as gardenlet writes it into an OperatingSystemConfig:
// base64-encoded with the encoding "b64" (pkg/component/extensions/operatingsystemconfig/nodeinit
// and original/components/kubelet in gardener/gardener v1.120.0). The encoding is a required field
// of the OperatingSystemConfig CRD.
func inlineContent(data string) map[string]any {
	return map[string]any{"encoding": "b64", "data": base64.StdEncoding.EncodeToString([]byte(data))}
}

// initScript only starts gardener-node-agent, which then installs everything else (Gardener's
// docs/concepts/node-agent.md).
const initScript = `#!/bin/bash
set -euo pipefail
systemctl daemon-reload
systemctl enable gardener-node-agent.service
systemctl restart gardener-node-agent.service
`

// kubeletConfiguration carries the Shoot's documented kubelet defaults (Gardener's KubeletConfig in
// docs/api-reference/core.md).
const kubeletConfiguration = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
authorization:
  mode: Webhook
cgroupDriver: systemd
containerLogMaxSize: 100Mi
cpuManagerPolicy: none
evictionHard:
  imagefs.available: 5%
  imagefs.inodesFree: 5%
  memory.available: 100Mi
  nodefs.available: 5%
  nodefs.inodesFree: 5%
evictionMaxPodGracePeriod: 90
evictionPressureTransitionPeriod: 4m0s
evictionSoft:
  imagefs.available: 10%
  imagefs.inodesFree: 10%
  memory.available: 200Mi
  nodefs.available: 10%
  nodefs.inodesFree: 10%
evictionSoftGracePeriod:
  imagefs.available: 1m30s
  imagefs.inodesFree: 1m30s
  memory.available: 1m30s
  nodefs.available: 1m30s
  nodefs.inodesFree: 1m30s
failSwapOn: true
imageGCHighThresholdPercent: 50
imageGCLowThresholdPercent: 40
maxPods: 110
registryBurst: 10
registryPullQPS: 5
serializeImagePulls: true
`

func unit(name, content string) map[string]any {
	return map[string]any{"name": name, "command": "start", "enable": true, "content": content}
}

func agentUnit() map[string]any {
	return unit("gardener-node-agent.service", "[Unit]\nDescription=Gardener Node Agent\nAfter=network-online.target\n\n[Service]\nLimitMEMLOCK=infinity\nExecStart="+nodeAgentBinary+" --config-dir="+nodeAgentDir+"\nRestart=always\nRestartSec=5\n\n[Install]\nWantedBy=multi-user.target\n")
}

// poolLabels are the Node labels of a pool: Gardener's (Gardener's
// docs/extensions/resources/worker.md, "ContainerRuntime"
// docs/extensions/resources/containerruntime.md) and the user's.
func poolLabels(w WorkerPool) map[string]any {
	l := map[string]any{
		"node.kubernetes.io/role":                 "node",
		"worker.gardener.cloud/cri-name":          "containerd",
		"worker.gardener.cloud/pool":              w.Name,
		"worker.gardener.cloud/system-components": fmt.Sprint(w.SystemComponents == nil || *w.SystemComponents),
	}
	for _, t := range w.ContainerRuntimes {
		l["containerruntime.worker.gardener.cloud/"+t] = "true"
	}
	for k, v := range w.Labels {
		l[k] = v
	}
	return l
}

// Worker is the shoot's Worker, named like the shoot (Gardener's
// docs/extensions/resources/worker.md); none for workerless shoots.
func Worker(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil || len(r.Workers) == 0 {
		return nil, err
	}
	var pools []any
	for _, w := range r.Workers {
		p := map[string]any{
			"name":                w.Name,
			"machineType":         w.MachineType,
			"machineImage":        map[string]any{"name": w.ImageName, "version": w.ImageVersion},
			"architecture":        or(w.Architecture, "amd64"),
			"minimum":             int64(w.Minimum),
			"maximum":             int64(w.Maximum),
			"maxSurge":            intOrPercent(w.MaxSurge, "1"),
			"maxUnavailable":      intOrPercent(w.MaxUnavailable, "0"),
			"labels":              poolLabels(w),
			"nodeAgentSecretName": NodeAgentSecretName(w.Name),
			"userDataSecretRef":   map[string]any{"name": UserDataSecretName(w.Name), "key": "cloud_config"},
		}
		if version := or(w.KubernetesVersion, r.KubernetesVersion); version != "" {
			p["kubernetesVersion"] = version
		}
		if len(w.Zones) > 0 {
			p["zones"] = kube.AnyList(w.Zones)
		}
		if len(w.Annotations) > 0 {
			p["annotations"] = kube.AnyMap(w.Annotations)
		}
		if len(w.Taints) > 0 {
			var taints []any
			for _, t := range w.Taints {
				taint := map[string]any{"key": t.Key, "effect": t.Effect}
				if t.Value != "" {
					taint["value"] = t.Value
				}
				taints = append(taints, taint)
			}
			p["taints"] = taints
		}
		if w.VolumeSize != "" {
			vol := map[string]any{"size": w.VolumeSize}
			if w.VolumeType != "" {
				vol["type"] = w.VolumeType
			}
			p["volume"] = vol
		}
		if w.ProviderConfig != nil {
			p["providerConfig"] = deepCopy(w.ProviderConfig)
		}
		pools = append(pools, p)
	}
	spec := map[string]any{
		"type":      r.Provider.Type,
		"region":    r.Provider.Region,
		"secretRef": r.secretRef(r.Provider.CredentialsSecretName),
		"pools":     pools,
	}
	if s := r.Provider.InfrastructureProviderStatus; s != nil {
		spec["infrastructureProviderStatus"] = deepCopy(s)
	}
	return []render.Object{r.object("Worker", r.namespace, r.Name, spec)}, nil
}
