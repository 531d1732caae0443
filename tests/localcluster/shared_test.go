package localcluster

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) { os.Exit(RunShared(m)) }

// TestSharedClusterIsStartedOnce shows how test packages share one control plane: parallel tests
// ask for it, the first starts it, all get the same one and isolate themselves by namespace.
func TestSharedClusterIsStartedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	t.Parallel()
	clusters := make(chan *Cluster, 3)
	for _, ns := range []string{"shared-a", "shared-b", "shared-c"} {
		t.Run(ns, func(t *testing.T) {
			t.Parallel()
			c := Shared(t)
			clusters <- c
			cs := clientset(t, c.Plane(RuntimePlane))
			_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			require.NoError(t, err)
		})
	}
	t.Cleanup(func() {
		close(clusters)
		var first *Cluster
		for c := range clusters {
			if first == nil {
				first = c
			}
			assert.Same(t, first, c)
		}
		require.NotNil(t, first)
		assert.NotEmpty(t, first.PIDs(), "the shared cluster runs until RunShared stops it")
	})
}
