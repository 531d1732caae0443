package gardenerapiserver

import (
	"fmt"
	"slices"
	"strings"
)

// AlwaysEncrypted are the resources gardener-apiserver always encrypts in etcd (Gardener's
// "Gardener Operator" docs/concepts/operator.md).
var AlwaysEncrypted = []string{
	"controllerdeployments.core.gardener.cloud",
	"controllerregistrations.core.gardener.cloud",
	"internalsecrets.core.gardener.cloud",
	"shootstates.core.gardener.cloud",
}

// EncryptedResources is the resources list of the EncryptionConfiguration the Secret named by
// EncryptionConfigSecretName must carry: the always-encrypted resources and the extra ones,
// sorted and without duplicates. The component does not generate the configuration, which holds
// keys, so the landscape builds it from this list (output encrypted_resources).
func EncryptedResources(extra []string) ([]string, error) {
	out := slices.Clone(AlwaysEncrypted)
	for _, r := range extra {
		plural, group, ok := strings.Cut(r, ".")
		if !ok || plural == "" || group == "" {
			return nil, fmt.Errorf("encrypted resource %q is not of the form <plural>.<group>", r)
		}
		out = append(out, r)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
