package secrets

import (
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"time"

	"sigs.k8s.io/yaml"
)

// DataKeyEncryptionConfig holds a kube-apiserver EncryptionConfiguration (apiserver.config.k8s.io/v1)
// with the keys that encrypt resources in etcd; both kube-apiserver and gardener-apiserver read it
// from --encryption-provider-config.
const DataKeyEncryptionConfig = "encryption-configuration.yaml"

// encryptionKeyBytes is the size of an AES-CBC key: 32 bytes, AES-256.
const encryptionKeyBytes = 32

// encryptionConfig is the part of an EncryptionConfiguration the generator writes and reads.
type encryptionConfig struct {
	APIVersion string               `json:"apiVersion"`
	Kind       string               `json:"kind"`
	Resources  []encryptionResource `json:"resources"`
}

type encryptionResource struct {
	Resources []string             `json:"resources"`
	Providers []encryptionProvider `json:"providers"`
}

type encryptionProvider struct {
	AESCBC   *aescbcProvider `json:"aescbc,omitempty"`
	Identity *struct{}       `json:"identity,omitempty"`
}

type aescbcProvider struct {
	Keys []encryptionKey `json:"keys"`
}

type encryptionKey struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
}

// newEncryptionConfig writes an EncryptionConfiguration for req.Resources: the given keys first
// (the first encrypts, all decrypt), then the identity provider, so that data written before
// encryption was on stays readable. With no keys a new one is generated.
func newEncryptionConfig(req Request, keys []encryptionKey, now time.Time, random io.Reader) (map[string][]byte, error) {
	if len(keys) == 0 {
		raw := make([]byte, encryptionKeyBytes)
		if _, err := io.ReadFull(random, raw); err != nil {
			return nil, fmt.Errorf("reading random bytes: %w", err)
		}
		keys = []encryptionKey{{Name: "key" + now.UTC().Format("20060102150405"), Secret: base64.StdEncoding.EncodeToString(raw)}}
	}
	cfg := encryptionConfig{
		APIVersion: "apiserver.config.k8s.io/v1",
		Kind:       "EncryptionConfiguration",
		Resources: []encryptionResource{{
			Resources: req.Resources,
			Providers: []encryptionProvider{{AESCBC: &aescbcProvider{Keys: keys}}, {Identity: &struct{}{}}},
		}},
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("writing the encryption configuration: %w", err)
	}
	return map[string][]byte{DataKeyEncryptionConfig: out}, nil
}

// encryptionKeys reads the AES-CBC keys of an existing encryption configuration; an error names
// what is wrong, never a key.
func encryptionKeys(data map[string][]byte) ([]encryptionKey, error) {
	raw, ok := data[DataKeyEncryptionConfig]
	if !ok {
		return nil, fmt.Errorf("%s is missing", DataKeyEncryptionConfig)
	}
	var cfg encryptionConfig
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s is not an encryption configuration", DataKeyEncryptionConfig)
	}
	var keys []encryptionKey
	for _, r := range cfg.Resources {
		for _, p := range r.Providers {
			if p.AESCBC == nil {
				continue
			}
			for _, k := range p.AESCBC.Keys {
				if b, err := base64.StdEncoding.DecodeString(k.Secret); err != nil || len(b) != encryptionKeyBytes || k.Name == "" {
					return nil, fmt.Errorf("%s holds a key that is not a named %d-byte AES key", DataKeyEncryptionConfig, encryptionKeyBytes)
				}
				if !slices.ContainsFunc(keys, func(o encryptionKey) bool { return o.Name == k.Name }) {
					keys = append(keys, k)
				}
			}
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no AES-CBC key", DataKeyEncryptionConfig)
	}
	return keys, nil
}
