package localcluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestAPIServerStopAndStart stops a workload plane's API server for about ten seconds, the outage
// apply tests simulate, and starts it again: the data in etcd survives, clients configured before
// the outage work again, the controllers reconnect (a Deployment created before the stop and one
// created after it both roll out), and the process bookkeeping follows the new process. The
// cluster is dedicated: an outage would disturb tests sharing one.
func TestAPIServerStopAndStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	t.Parallel()
	ctx := context.Background()
	c := Start(t, PlaneOptions{Name: RuntimePlane, Workloads: true})
	p := c.Plane(RuntimePlane)
	cs := clientset(t, p)
	old, _, err := p.apiServerProcess()
	require.NoError(t, err)
	oldPID := old.pid()
	pids := c.PIDs()
	require.Contains(t, pids, oldPID)

	// Created just before the outage, so its rollout spans it.
	createDeployment(t, cs, "before")
	began := time.Now()
	require.NoError(t, p.StopAPIServer())
	t.Logf("API server stopped in %s", time.Since(began).Round(100*time.Millisecond))
	assert.False(t, ProcessAlive(oldPID), "the old API server has exited")
	assert.NotContains(t, c.PIDs(), oldPID)
	_, err = cs.Discovery().ServerVersion()
	require.Error(t, err, "the API is unreachable while stopped")
	assert.Contains(t, err.Error(), "connection refused")
	assert.NoError(t, p.StopAPIServer(), "stopping a stopped API server is a no-op")
	time.Sleep(10 * time.Second)

	began = time.Now()
	require.NoError(t, p.StartAPIServer(ctx))
	t.Logf("API server ready again in %s", time.Since(began).Round(100*time.Millisecond))
	restarted, _, err := p.apiServerProcess()
	require.NoError(t, err)
	newPID := restarted.pid()
	assert.NotEqual(t, oldPID, newPID)
	assert.Len(t, c.PIDs(), len(pids), "one API server replaces the other")
	assert.Contains(t, c.PIDs(), newPID)
	using, err := ProcessesUsing(c.Dir())
	require.NoError(t, err)
	assert.Contains(t, using, newPID)
	assert.NoError(t, p.StartAPIServer(ctx), "starting a running API server only waits for it")

	_, err = cs.AppsV1().Deployments(metav1.NamespaceDefault).Get(ctx, "before", metav1.GetOptions{})
	require.NoError(t, err, "etcd kept the data")
	createDeployment(t, cs, "after")
	began = time.Now()
	for _, name := range []string{"before", "after"} {
		waitFor(t, "deployment "+name+" available", func(ctx context.Context) (bool, error) {
			d, err := cs.AppsV1().Deployments(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return deploymentAvailable(d), nil
		})
	}
	t.Logf("both Deployments available %s after the restart", time.Since(began).Round(100*time.Millisecond))

	require.NoError(t, c.Stop())
	assert.False(t, ProcessAlive(newPID), "Stop ends the restarted API server")
	left, err := ProcessesUsing(c.Dir())
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.Error(t, p.StartAPIServer(ctx), "a stopped plane starts nothing")
	assert.Empty(t, c.PIDs())
}

func createDeployment(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := cs.AppsV1().Deployments(metav1.NamespaceDefault).Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/" + name + ":1"}}},
			},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// deploymentAvailable reports a completed rollout: the current generation observed, every replica
// updated and available, and the Available condition true.
func deploymentAvailable(d *appsv1.Deployment) bool {
	if d.Status.ObservedGeneration != d.Generation || d.Spec.Replicas == nil ||
		d.Status.UpdatedReplicas != *d.Spec.Replicas || d.Status.AvailableReplicas != *d.Spec.Replicas {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
