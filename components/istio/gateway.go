package istio

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// What Gardener's istio-ingress chart renders for every gateway
// (pkg/component/networking/istio/charts/istio/istio-ingress at Gardener v1.120.0).
const (
	// ingressVersion is the chart's app.kubernetes.io/version label value and canonicalRevision
	// the pods' service.istio.io/canonical-revision.
	ingressVersion    = "1.25.1"
	canonicalRevision = "1.25"
	// serviceAccountSuffix names the gateway's ServiceAccount: istio-ingressgateway-service-account.
	serviceAccountSuffix = "-service-account"
	// The gateway's autoscaling: 2 to 9 replicas (on a multi-zone cluster the zone-spanning
	// gateways 2 to 6 per zone, pkg/component/shared/istio.go), by CPU and memory use of 80 %.
	defaultMinReplicas = 2
	defaultMaxReplicas = 9
	replicasPerZoneMin = 2
	replicasPerZoneMax = 6
	// proxyConfig tunes Envoy: four worker threads, quick protocol detection, and a high
	// limit of downstream connections.
	proxyConfig = "concurrency: 4\nprotocolDetectionTimeout: 100ms\nruntimeValues:\n  \"overload.global_downstream_max_connections\": \"750000\""
	// envoyFilterBufferLimit bounds each connection's buffers (32 KiB); the keepalive times are
	// in seconds.
	envoyFilterBufferLimit = 32768
	keepaliveIdle          = 55
	keepaliveInterval      = 55
	// VPNPort is the gateway port vpn-shoot and the kube-apiserver's VPN sidecars connect to by
	// HTTP CONNECT (GatewayPort in pkg/component/networking/vpn/seedserver at Gardener v1.120.0).
	VPNPort int32 = 8132
)

// Labels and annotations of a gateway's namespace (pkg/component/networking/istio/istiod.go at
// Gardener v1.120.0).
const (
	LabelRole                      = "gardener.cloud/role"
	RoleIstioIngress               = "istio-ingress"
	roleExposureClassHandlerPrefix = "exposureclass-handler"
	labelExposureClassHandlerName  = "handler.exposureclass.gardener.cloud/name"
	// ZoneKey is the label whose value names a default gateway's zone (ingressgateway--zone--<zone>).
	ZoneKey                    = "istio"
	labelPodSecurityEnforce    = "pod-security.kubernetes.io/enforce"
	labelConsiderHA            = "high-availability-config.resources.gardener.cloud/consider"
	annotationHAZones          = "high-availability-config.resources.gardener.cloud/zones"
	annotationHAZonePinning    = "high-availability-config.resources.gardener.cloud/zone-pinning"
	labelVersion               = "app.kubernetes.io/version"
	annotationFromWorldToPorts = "networking.resources.gardener.cloud/from-world-to-ports"
	annotationNamespaceSel     = "networking.resources.gardener.cloud/namespace-selectors"
	annotationNamespaceAlias   = "networking.resources.gardener.cloud/pod-label-selector-namespace-alias"
	annotationScrapePorts      = "networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports"
)

// gatewayObjects renders one ingress gateway as Gardener's istio-ingress chart does: its namespace
// with gardenlet's labels, the ServiceAccount, the Role that lets the gateway (and istiod) read TLS
// Secrets there, the Envoy Deployment with its HorizontalPodAutoscaler and PodDisruptionBudget, the
// Service, the EnvoyFilter that bounds buffers and keeps connections alive, and, for a gateway that
// carries the reversed VPN, its Gateway and EnvoyFilters. gw has its defaults applied.
func gatewayObjects(v Values, gw Gateway, image string) []runtime.Object {
	ns, name, labels := gw.Namespace, gw.Name, gw.Labels
	versioned := maps.Clone(labels)
	versioned[labelVersion] = ingressVersion
	sds := name + "-sds"
	minReplicas, maxReplicas := gatewayReplicas(v, gw)
	svcMeta := metav1.ObjectMeta{Namespace: ns, Name: name, Labels: versioned, Annotations: gatewayServiceAnnotations()}
	maps.Copy(svcMeta.Annotations, gw.LoadBalancerAnnotations)
	deployment := kube.Deployment(metav1.ObjectMeta{Namespace: ns, Name: name, Labels: versioned}, labels, minReplicas, gatewayPod(v, gw, image))
	// The HorizontalPodAutoscaler owns the replicas: Gardener starts the Deployment at the
	// minimum, and gardener-resource-manager keeps the count the autoscaler set; the engine leaves
	// the field out instead, so that the first apply creates one replica and the autoscaler raises
	// it, and no apply fights the autoscaler.
	deployment.Spec.Replicas = nil
	deployment.Spec.RevisionHistoryLimit = ptr.To[int32](1)
	deployment.Spec.Strategy = kube.SurgeFirst()
	deployment.Spec.Template.Labels = gatewayPodLabels(gw)
	deployment.Spec.Template.Annotations = map[string]string{"sidecar.istio.io/inject": "false", "proxy.istio.io/config": gatewayProxyConfig(v)}
	out := []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: gatewayNamespaceLabels(gw), Annotations: gatewayNamespaceAnnotations(v, gw)}},
		// The proxy never talks to the Kubernetes API; it authenticates to istiod with the
		// projected istio-token.
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + serviceAccountSuffix, Labels: versioned}, AutomountServiceAccountToken: ptr.To(false)},
		// Gateways with TLS termination read their certificates (credentialName) from Secrets
		// in their own namespace, through istiod, which checks that the gateway may read them.
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sds, Labels: labels},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "watch", "list"}}},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sds, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sds},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.ServiceAccountKind, Name: name + serviceAccountSuffix},
				// istiod's ClusterRole reads no Secrets (istiod.go); it reads the gateway's here.
				{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: IstiodName},
			},
		},
		deployment,
		&autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: versioned},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
				MinReplicas:    ptr.To(minReplicas),
				MaxReplicas:    maxReplicas,
				Metrics:        []autoscalingv2.MetricSpec{utilization(corev1.ResourceCPU), utilization(corev1.ResourceMemory)},
				Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
					ScaleDown: onePodPer(1800),
					ScaleUp:   onePodPer(60),
				},
			},
		},
		&policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable:               ptr.To(intstr.FromInt32(1)),
				Selector:                   &metav1.LabelSelector{MatchLabels: labels},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		&corev1.Service{
			ObjectMeta: svcMeta,
			Spec: corev1.ServiceSpec{
				Type:     gw.ServiceType,
				Selector: labels,
				Ports:    servicePorts(gw.Ports),
			},
		},
	}
	return out
}

// gatewayReplicas are the autoscaler's bounds.
func gatewayReplicas(v Values, gw Gateway) (int32, int32) {
	if gw.Zone == "" && len(v.Zones) > 1 {
		n := int32(len(v.Zones))
		return replicasPerZoneMin * n, replicasPerZoneMax * n
	}
	return defaultMinReplicas, defaultMaxReplicas
}

func utilization(name corev1.ResourceName) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: name, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
	}}
}

// onePodPer scales by at most one pod per period, after as long a stabilisation window.
func onePodPer(seconds int32) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To(seconds),
		Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: seconds}},
	}
}

// gatewayNamespaceLabels are the labels gardenlet keeps on a gateway's namespace: no injection,
// the istio-ingress role (or an ExposureClass handler's, with its name), the zone label of a
// zonal gateway, the baseline Pod Security level and the high-availability webhook's opt-in.
func gatewayNamespaceLabels(gw Gateway) map[string]string {
	l := map[string]string{
		"istio-operator-managed": "Reconcile",
		"istio-injection":        "disabled",
		LabelRole:                RoleIstioIngress,
		labelPodSecurityEnforce:  "baseline",
		labelConsiderHA:          "true",
	}
	if role := gw.Labels[LabelRole]; strings.HasPrefix(role, roleExposureClassHandlerPrefix) {
		l[LabelRole] = role
	}
	if handler, ok := gw.Labels[labelExposureClassHandlerName]; ok {
		l[labelExposureClassHandlerName] = handler
	}
	if zone, ok := gw.Labels[ZoneKey]; ok {
		l[ZoneKey] = zone
	}
	return l
}

// gatewayNamespaceAnnotations pin the gateway's pods to its zone, or spread them over the
// cluster's zones, through gardener-resource-manager's high-availability webhook.
func gatewayNamespaceAnnotations(v Values, gw Gateway) map[string]string {
	zones := v.Zones
	if gw.Zone != "" {
		zones = []string{gw.Zone}
	}
	a := map[string]string{annotationHAZones: strings.Join(zones, ",")}
	if len(zones) == 1 {
		a[annotationHAZonePinning] = "true"
	}
	return a
}

// gatewayServiceAnnotations let the world reach the gateway's VPN and API server ports, let
// the gateway reach extensions', shoots' and the garden namespace's Services, name the gateways'
// namespaces' alias, and let the seed's Prometheus scrape the proxy's merged metrics port.
func gatewayServiceAnnotations() map[string]string {
	port := func(n int) map[string]any { return map[string]any{"port": n, "protocol": "TCP"} }
	world, _ := json.Marshal([]any{port(8132), port(8443), port(9443)}) // plain values never fail
	namespaces, _ := json.Marshal([]any{
		map[string]any{"matchLabels": map[string]string{LabelRole: "extension"}},
		map[string]any{"matchLabels": map[string]string{LabelRole: "shoot"}},
		map[string]any{"matchLabels": map[string]string{"kubernetes.io/metadata.name": "garden"}},
	})
	scrape, _ := json.Marshal([]any{port(15020)})
	return map[string]string{
		annotationFromWorldToPorts: string(world),
		annotationNamespaceSel:     string(namespaces),
		annotationNamespaceAlias:   "all-istio-ingresses",
		annotationScrapePorts:      string(scrape),
	}
}

// gatewayPodLabels are the selector labels, the egress labels of the gateway's pods (DNS,
// istiod, the garden's nginx-ingress controller, the runtime cluster's API server, the VPN servers
// of a VPN gateway, and what the composite adds, such as the API servers the gateway forwards to)
// and Istio's canonical service labels.
func gatewayPodLabels(gw Gateway) map[string]string {
	l := maps.Clone(gw.Labels)
	maps.Copy(l, map[string]string{
		"networking.gardener.cloud/to-dns":                                               "allowed",
		"networking.resources.gardener.cloud/to-istio-system-istiod-tcp-15012":           "allowed",
		"networking.resources.gardener.cloud/to-garden-nginx-ingress-controller-tcp-443": "allowed",
		"networking.gardener.cloud/to-runtime-apiserver":                                 "allowed",
	})
	if gw.VPN {
		l["networking.resources.gardener.cloud/to-all-shoots-vpn-seed-server-tcp-1194"] = "allowed"
		for i := range 2 {
			l[fmt.Sprintf("networking.resources.gardener.cloud/to-all-shoots-vpn-seed-server-%d-tcp-1194", i)] = "allowed"
		}
	}
	maps.Copy(l, gw.NetworkPolicyLabels)
	l["service.istio.io/canonical-name"] = "istio-ingressgateway"
	l["service.istio.io/canonical-revision"] = canonicalRevision
	return l
}

// gatewayProxyConfig is the proxy's configuration annotation, and istiod's address when it does
// not run in the default namespace.
func gatewayProxyConfig(v Values) string {
	if v.Namespace == DefaultNamespace {
		return proxyConfig
	}
	return proxyConfig + "\ndiscoveryAddress: " + DiscoveryAddress(v.Namespace)
}

// servicePorts are the gateway's ports, as given.
func servicePorts(ports []Port) []corev1.ServicePort {
	out := make([]corev1.ServicePort, 0, len(ports))
	for _, p := range ports {
		out = append(out, corev1.ServicePort{Name: p.Name, Port: p.Port, TargetPort: intstr.FromInt32(p.TargetPort)})
	}
	return out
}

// gatewayPod runs Envoy as a router (no sidecar), configured and issued certificates by istiod,
// with the chart's requests and memory limit. Zone pinning and spreading come from
// gardener-resource-manager's high-availability webhook, which reads the namespace's annotations.
func gatewayPod(v Values, gw Gateway, image string) corev1.PodSpec {
	var ports []corev1.ContainerPort
	for _, p := range gw.Ports {
		ports = append(ports, corev1.ContainerPort{ContainerPort: p.TargetPort, Protocol: corev1.ProtocolTCP})
	}
	optional := func(name, secret string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret, Optional: ptr.To(true)}}}
	}
	empty := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	}
	return corev1.PodSpec{
		ServiceAccountName: gw.Name + serviceAccountSuffix,
		PriorityClassName:  v.PriorityClassName,
		SecurityContext:    kube.NonRootPodOwningVolumes(istioUser),
		Containers: []corev1.Container{{
			Name:            "istio-proxy",
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			SecurityContext: containerSecurity(),
			Ports:           ports,
			Args: []string{
				"proxy", "router",
				"--domain=" + gw.Namespace + ".svc." + v.TrustDomain,
				"--proxyLogLevel=info",
				"--proxyComponentLogLevel=misc:error",
				"--log_output_level=default:info,ads:error",
			},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz/ready", Port: intstr.FromInt32(StatusPort), Scheme: corev1.URISchemeHTTP}},
				InitialDelaySeconds: 1, PeriodSeconds: 2, SuccessThreshold: 1, TimeoutSeconds: 1, FailureThreshold: 30,
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m"), corev1.ResourceMemory: resource.MustParse("600Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4800Mi")},
			},
			Env: gatewayEnv(v, gw),
			VolumeMounts: []corev1.VolumeMount{
				{Name: "workload-socket", MountPath: "/var/run/secrets/workload-spiffe-uds"},
				{Name: "credential-socket", MountPath: "/var/run/secrets/credential-uds"},
				{Name: "workload-certs", MountPath: "/var/run/secrets/workload-spiffe-credentials"},
				{Name: "istio-envoy", MountPath: "/etc/istio/proxy"},
				{Name: "config-volume", MountPath: "/etc/istio/config"},
				{Name: "istiod-ca-cert", MountPath: "/var/run/secrets/istio"},
				{Name: "istio-token", MountPath: "/var/run/secrets/tokens", ReadOnly: true},
				{Name: "istio-data", MountPath: "/var/lib/istio/data"},
				{Name: "podinfo", MountPath: "/etc/istio/pod"},
				{Name: "ingressgateway-certs", MountPath: "/etc/istio/ingressgateway-certs", ReadOnly: true},
				{Name: "ingressgateway-ca-certs", MountPath: "/etc/istio/ingressgateway-ca-certs", ReadOnly: true},
			},
		}},
		Volumes: []corev1.Volume{
			empty("workload-socket"),
			empty("credential-socket"),
			empty("workload-certs"),
			// istiod publishes its root certificate in every namespace under this name.
			{Name: "istiod-ca-cert", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "istio-ca-root-cert"},
			}}},
			{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
				{Path: "annotations", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations"}},
			}}}},
			empty("istio-envoy"),
			empty("istio-data"),
			istioTokenVolume(),
			{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: meshConfigMap}, Optional: ptr.To(true),
			}}},
			optional("ingressgateway-certs", "istio-ingressgateway-certs"),
			optional("ingressgateway-ca-certs", "istio-ingressgateway-ca-certs"),
		},
	}
}

// gatewayEnv tells the proxy agent where istiod is, who it is, and which mesh it belongs to.
func gatewayEnv(v Values, gw Gateway) []corev1.EnvVar {
	return []corev1.EnvVar{
		{Name: "JWT_POLICY", Value: "third-party-jwt"},
		{Name: "PILOT_CERT_PROVIDER", Value: "istiod"},
		{Name: "CA_ADDR", Value: DiscoveryAddress(v.Namespace)},
		fieldEnv("NODE_NAME", "spec.nodeName"),
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		fieldEnv("INSTANCE_IP", "status.podIP"),
		fieldEnv("HOST_IP", "status.hostIP"),
		{Name: "ISTIO_CPU_LIMIT", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}},
		fieldEnv("SERVICE_ACCOUNT", "spec.serviceAccountName"),
		{Name: "ISTIO_META_WORKLOAD_NAME", Value: gw.Name},
		{Name: "ISTIO_META_OWNER", Value: fmt.Sprintf("kubernetes://apis/apps/v1/namespaces/%s/deployments/%s", gw.Namespace, gw.Name)},
		{Name: "ISTIO_META_MESH_ID", Value: v.TrustDomain},
		{Name: "TRUST_DOMAIN", Value: v.TrustDomain},
		{Name: "ISTIO_META_UNPRIVILEGED_POD", Value: "true"},
		{Name: "ISTIO_META_CLUSTER_ID", Value: "Kubernetes"},
		{Name: "ISTIO_META_NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
	}
}

// keepalive is a TCP socket option Envoy sets on the gateway's listening sockets, as level, name
// and value: SO_KEEPALIVE on, TCP_KEEPIDLE and TCP_KEEPINTVL in seconds. Some load balancers open
// connections without keepalive, which silently time out when they live long.
func keepalive(level, name, value int) map[string]any {
	return map[string]any{"level": int64(level), "name": int64(name), "int_value": int64(value), "state": "STATE_LISTENING"}
}

// envoyFilterObjects are the EnvoyFilter istio-ingressgateway, which bounds every port's
// connection buffers and turns on TCP keepalive towards the load balancer, and, for a VPN gateway,
// the Gateway reversed-vpn-auth-server that opens the VPN port and the EnvoyFilters that route
// HTTP CONNECT requests on it to the VPN server (or the API server socket) their Reversed-VPN
// header names and accept HTTP/1.0 CONNECTs there (the chart's envoy-filter.yaml,
// vpn-gateway.yaml and vpn-envoy-filter.yaml at Gardener v1.120.0).
func envoyFilterObjects(gw Gateway) []map[string]any {
	var patches []any
	for _, p := range gw.Ports {
		port := int64(p.TargetPort)
		buffer := map[string]any{"operation": "MERGE", "value": map[string]any{"per_connection_buffer_limit_bytes": int64(envoyFilterBufferLimit)}}
		patches = append(patches,
			map[string]any{"applyTo": "LISTENER", "match": map[string]any{"context": "GATEWAY", "listener": map[string]any{"portNumber": port}}, "patch": buffer},
			map[string]any{"applyTo": "CLUSTER", "match": map[string]any{"context": "GATEWAY", "cluster": map[string]any{"portNumber": port}}, "patch": buffer},
			map[string]any{"applyTo": "LISTENER", "match": map[string]any{"context": "GATEWAY", "listener": map[string]any{"portNumber": port}},
				"patch": map[string]any{"operation": "MERGE", "value": map[string]any{"socket_options": []any{
					keepalive(1, 9, 1), keepalive(6, 4, keepaliveIdle), keepalive(6, 5, keepaliveInterval),
				}}}},
		)
	}
	out := []map[string]any{istioObject("networking.istio.io/v1alpha3", "EnvoyFilter", gw.Namespace, "istio-ingressgateway", gw.Labels,
		map[string]any{"configPatches": patches})}
	if !gw.VPN {
		return out
	}
	selector := map[string]any{}
	for k, v := range gw.Labels {
		selector[k] = v
	}
	hcm := "envoy.filters.network.http_connection_manager"
	hcmType := "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"
	onVPNPort := map[string]any{"context": "GATEWAY", "listener": map[string]any{
		"portNumber": int64(VPNPort), "filterChain": map[string]any{"filter": map[string]any{"name": hcm}},
	}}
	toHTTPS := map[string]any{"https_redirect": true, "port_redirect": int64(443)}
	return append(out,
		istioObject("networking.istio.io/v1beta1", "Gateway", gw.Namespace, "reversed-vpn-auth-server", nil, map[string]any{
			"selector": selector,
			"servers": []any{map[string]any{
				"hosts": []any{"reversed-vpn-auth-server.garden.svc.cluster.local"},
				"port":  map[string]any{"name": "tls-tunnel", "number": int64(VPNPort), "protocol": "HTTP"},
			}},
		}),
		istioObject("networking.istio.io/v1alpha3", "EnvoyFilter", gw.Namespace, "reversed-vpn", nil, map[string]any{
			"configPatches": []any{map[string]any{
				"applyTo": "NETWORK_FILTER", "match": onVPNPort,
				"patch": map[string]any{"operation": "MERGE", "value": map[string]any{
					"name": hcm,
					"typed_config": map[string]any{"@type": hcmType, "route_config": map[string]any{"virtual_hosts": []any{map[string]any{
						"name": "reversed-vpn", "domains": []any{"*"},
						"routes": []any{
							map[string]any{
								"match": map[string]any{"connect_matcher": map[string]any{}, "headers": []any{map[string]any{
									"name": "Reversed-VPN", "string_match": map[string]any{"safe_regex": map[string]any{"regex": ReversedVPNTargets}},
								}}},
								"route": map[string]any{"cluster_header": "Reversed-VPN", "upgrade_configs": []any{
									map[string]any{"upgrade_type": "CONNECT", "connect_config": map[string]any{}},
								}},
							},
							// Everything else is redirected to the HTTPS port: CONNECT requests
							// (which carry no path) and all others.
							map[string]any{"match": map[string]any{"connect_matcher": map[string]any{}}, "redirect": toHTTPS},
							map[string]any{"match": map[string]any{"prefix": "/"}, "redirect": toHTTPS},
						},
					}}}},
				}},
			}},
			"workloadSelector": map[string]any{"labels": selector},
		}),
		istioObject("networking.istio.io/v1alpha3", "EnvoyFilter", gw.Namespace, "http-connect-listener", nil, map[string]any{
			"configPatches": []any{map[string]any{
				"applyTo": "NETWORK_FILTER", "match": onVPNPort,
				"patch": map[string]any{"operation": "MERGE", "value": map[string]any{
					"name": hcm,
					"typed_config": map[string]any{
						"@type":                 hcmType,
						"http_protocol_options": map[string]any{"accept_http_10": true},
						"upgrade_configs":       []any{map[string]any{"upgrade_type": "CONNECT"}},
					},
				}},
			}},
			"workloadSelector": map[string]any{"labels": selector},
		}),
	)
}

// ReversedVPNTargets are the upstream clusters a Reversed-VPN header may name: a VPN server's
// (vpn-seed-server, or vpn-seed-server-0 to -4) or an API server's port 443 in a shoot namespace,
// or a shoot's API server socket.
const ReversedVPNTargets = `^(outbound\|(1194\|\|vpn-seed-server(-[0-4])?|443\|\|kube-apiserver)\..*\.svc\.cluster\.local|shoot--.*--.*--kube-apiserver-socket)$`

// istioObject is an Istio object as a plain map, for the kinds without Go types here.
func istioObject(apiVersion, kind, namespace, name string, labels map[string]string, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name, "namespace": namespace}
	if len(labels) > 0 {
		l := map[string]any{}
		for k, v := range labels {
			l[k] = v
		}
		meta["labels"] = l
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta, "spec": spec}
}
