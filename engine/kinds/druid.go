package kinds

// druid is druid.gardener.cloud, etcd-druid's API. Deleting an Etcd deletes the etcd cluster
// with the data of a control plane, so it is protected.
var druid = Group{
	Name: "druid.gardener.cloud",
	Kinds: []Rules{
		{Kind: "Etcd", Readiness: EtcdReady, Protected: always},
	},
}
