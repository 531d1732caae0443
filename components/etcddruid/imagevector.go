package etcddruid

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// The image vector overwrite etcd-druid reads at start-up: the IMAGEVECTOR_OVERWRITE variable
// names a file in Gardener's image vector format, whose entries replace druid's built-in images
// for the etcd pods it creates. gardenlet renders it only when its configuration overwrites
// druid's images; here, when the landscape overrides an etcd image. Names, key and mount are
// gardenlet's.
const (
	ImageVectorConfigMapBaseName = "etcd-druid-imagevector-overwrite"
	ImageVectorKey               = "images_overwrite.yaml"
	imageVectorEnv               = "IMAGEVECTOR_OVERWRITE"
	imageVectorVolume            = "imagevector-overwrite"
	imageVectorMountPath         = "/imagevector_overwrite"
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

// imageVectorOverwrite renders the content-addressed ConfigMap with the etcd images the landscape
// overrides, or nil where it overrides none: druid's own images are then used, as in Gardener.
func imageVectorOverwrite(namespace string, vector images.Vector, overrides map[string]string) (*corev1.ConfigMap, error) {
	var entries []vectorEntry
	for _, name := range etcdImages {
		if _, overridden := overrides[name]; !overridden {
			continue
		}
		img, ok := vector[name]
		if !ok {
			return nil, fmt.Errorf("image %q is not in the image vector", name)
		}
		entries = append(entries, vectorEntry{Name: name, Repository: img.Repository, Tag: img.Tag})
	}
	if len(entries) == 0 {
		return nil, nil
	}
	data, err := yaml.Marshal(map[string]any{"images": entries})
	if err != nil {
		return nil, fmt.Errorf("image vector overwrite: %w", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: meta(ImageVectorConfigMapBaseName, namespace),
		Data:       map[string]string{ImageVectorKey: string(data)},
	}
	unique.ConfigMap(cm)
	return cm, nil
}
