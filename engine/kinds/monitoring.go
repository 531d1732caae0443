package kinds

// monitoring is monitoring.coreos.com, the prometheus-operator's API that the observability
// components render. Its kinds get the defaults of kinds without rules of their own.
var monitoring = Group{
	Name: "monitoring.coreos.com",
	Kinds: []Rules{
		{Kind: "Alertmanager"},
		{Kind: "PodMonitor"},
		{Kind: "Probe"},
		{Kind: "Prometheus"},
		{Kind: "ScrapeConfig"},
		{Kind: "ServiceMonitor"},
	},
}
