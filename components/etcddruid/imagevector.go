package etcddruid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/images"
)

// The image vector overwrite etcd-druid reads at start-up: the IMAGEVECTOR_OVERWRITE variable
// names a file in Gardener's image vector format, whose entries replace druid's built-in images
// for the etcd pods it creates. The key is the file name Gardener uses for it.
const (
	ImageVectorConfigMapName = "etcd-druid-imagevector-overwrite"
	ImageVectorKey           = "images_overwrite.yaml"
	imageVectorEnv           = "IMAGEVECTOR_OVERWRITE"
	imageVectorVolume        = "imagevector-overwrite"
	imageVectorMountPath     = "/imagevector-overwrite"
)

// etcdImages are the vector entries of the etcd pods, named as etcd-druid names them.
var etcdImages = []string{images.EtcdBackupRestore, images.EtcdWrapper}

// vectorEntry is one image of Gardener's image vector format. A digest stays in tag: the
// format writes repository@sha256:... for tags that are digests.
type vectorEntry struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
}

// imageVectorOverwrite renders the ConfigMap with the etcd images of the (overridden) vector.
func imageVectorOverwrite(namespace string, vector images.Vector) (*corev1.ConfigMap, error) {
	var entries []vectorEntry
	for _, name := range etcdImages {
		img, ok := vector[name]
		if !ok {
			return nil, fmt.Errorf("image %q is not in the image vector", name)
		}
		entries = append(entries, vectorEntry{Name: name, Repository: img.Repository, Tag: img.Tag})
	}
	data, err := yaml.Marshal(map[string]any{"images": entries})
	if err != nil {
		return nil, fmt.Errorf("image vector overwrite: %w", err)
	}
	return &corev1.ConfigMap{
		ObjectMeta: meta(ImageVectorConfigMapName, namespace),
		Data:       map[string]string{ImageVectorKey: string(data)},
	}, nil
}

// checksum identifies the ConfigMap's content, so that the pod template changes, and druid
// restarts to read the new vector, whenever an etcd image changes.
func checksum(cm *corev1.ConfigMap) string {
	sum := sha256.Sum256([]byte(cm.Data[ImageVectorKey]))
	return hex.EncodeToString(sum[:])
}
