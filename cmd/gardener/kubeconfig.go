package main

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// defaultKubeconfigExpiration is how long a shoot's kubeconfig is valid unless --expiration says
// otherwise: a working session, as gardenctl's default.
const defaultKubeconfigExpiration = time.Hour

func newKubeconfigCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var expiration time.Duration
	var output string
	cmd := &cobra.Command{
		Use:   "kubeconfig [DIR] shoot.NAME|garden[.NAME]",
		Short: "Print a kubeconfig for a shoot or the virtual garden of the landscape",
		Long: `Print a kubeconfig for what the landscape in DIR built.

For a shoot (shoot.NAME, or an instance such as shoot.dev["a"]) it asks gardener-apiserver for
one through the Shoot's adminkubeconfig subresource in the virtual garden the Shoot is declared
in: a client certificate of the shoot's administrators (group system:masters), signed by the
shoot's client CA for your user name, valid for --expiration (gardener-apiserver shortens it to
at most 24 hours by default), pointing at the shoot's advertised API server addresses. You need
the right to create shoots/adminkubeconfig in the shoot's project.

For the virtual garden (garden, or garden.NAME when the landscape has several) it prints the
kubeconfig the landscape reaches the virtual garden with, the cluster block the garden's
virtual_garden names: that one context, with certificate files inlined. It carries your own
credential for the virtual garden (as KUBECONFIG or the cluster block's kubeconfig holds it),
with that credential's lifetime; gardener-operator issues no static credential either.

Nothing is planned or written to any cluster; only the landscape is rendered, without reading
the clusters, to find the Shoot and the cluster blocks.`,
		Example: `  gardener kubeconfig landscapes/local shoot.dev > dev.yaml
  gardener kubeconfig landscapes/local shoot.dev --expiration 10m --output dev.yaml
  gardener kubeconfig landscapes/local garden --output virtual-garden.yaml`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			dir, target := dirArg(args[:len(args)-1]), args[len(args)-1]
			stderr := cmd.ErrOrStderr()
			fail := func(err error) error {
				printf(stderr, "Error: %v\n", err)
				return exitCode(1)
			}
			if expiration < 10*time.Minute {
				return fail(fmt.Errorf("--expiration %s is shorter than the 10 minutes gardener-apiserver accepts", expiration))
			}
			out, diags := planner.Prepare(planner.Options{Dir: dir, Schemas: reg, Renderers: catalogRenderers(), Inputs: inputs.sources()})
			if err := reportPlan(stderr, out, diags, nil); err != nil {
				return err
			}
			var data []byte
			var what string
			switch {
			case target == "garden" || strings.HasPrefix(target, "garden."):
				access, name, err := virtualGardenAccess(out, target)
				if err != nil {
					return fail(err)
				}
				if data, err = cluster.FlatKubeconfig(access); err != nil {
					return fail(err)
				}
				what = fmt.Sprintf("the virtual garden of %s (cluster %s), with your own credential for it", name, name)
			case strings.HasPrefix(target, "shoot."):
				clusterName, namespace, name, err := shootObject(out, config.InstanceAddress(target))
				if err != nil {
					return fail(err)
				}
				access, err := planner.AccessOf(out.Load.Landscape.Paths, out.Load.Evaluated.Clusters[clusterName])
				if err != nil {
					return fail(fmt.Errorf("cluster %s: %w", clusterName, err))
				}
				cfg, err := cluster.LoadRESTConfig(access)
				if err != nil {
					return fail(err)
				}
				cfg.UserAgent = "gardener/" + currentBuildInfo().Version
				issued, err := cluster.AdminKubeconfig(ctx, cfg, namespace, name, expiration)
				if err != nil {
					return fail(err)
				}
				data = issued.Kubeconfig
				what = fmt.Sprintf("shoot %s/%s, a client certificate valid until %s", namespace, name, issued.Expires.UTC().Format(time.RFC3339))
			default:
				return fail(fmt.Errorf("%s names no shoot and no garden: use shoot.NAME or garden", target))
			}
			if output == "" {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			// A kubeconfig is a credential: readable by its owner only.
			if err := atomicfile.Write(output, data, 0o600); err != nil {
				return fail(err)
			}
			printf(cmd.OutOrStdout(), "Wrote the kubeconfig of %s to %s.\n", what, output)
			return nil
		},
	}
	inputs.register(cmd)
	cmd.Flags().DurationVar(&expiration, "expiration", defaultKubeconfigExpiration, "how long a shoot's kubeconfig is valid (at least 10m; gardener-apiserver's limit, 24h by default, applies)")
	cmd.Flags().StringVar(&output, "output", "", "write the kubeconfig to FILE (mode 0600) instead of standard output")
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		dir, _ := dirAndRest(append(slices.Clone(args), toComplete))
		var out []cobra.Completion
		for _, a := range landscapeAddresses(cmd, reg, dir) {
			if strings.HasPrefix(a, "shoot.") || strings.HasPrefix(a, "garden.") {
				out = append(out, a)
			}
		}
		return append(out, "garden"), cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

// shootObject finds the Shoot the shoot instance at addr renders (in one of its parts): the
// cluster block it is declared in, its namespace and name.
func shootObject(out *planner.Outcome, addr config.InstanceAddress) (clusterName, namespace, name string, err error) {
	if out.Load.Evaluated.Instances[addr] == nil {
		return "", "", "", fmt.Errorf("the landscape has no shoot %s", addr)
	}
	for part, rd := range out.Rendered {
		if part != addr && rd.Parent != addr {
			continue
		}
		for _, o := range rd.Objects {
			if o.Object.GetAPIVersion() == "core.gardener.cloud/v1beta1" && o.Object.GetKind() == "Shoot" {
				return o.Cluster, o.Object.GetNamespace(), o.Object.GetName(), nil
			}
		}
	}
	return "", "", "", fmt.Errorf("%s renders no Shoot, so it has no admin kubeconfig", addr)
}

// virtualGardenAccess is how the landscape reaches the virtual garden of the garden target names
// ("garden": the landscape's only garden): the cluster block its virtual_garden names.
func virtualGardenAccess(out *planner.Outcome, target string) (cluster.Access, string, error) {
	var gardens []config.InstanceAddress
	for addr, inst := range out.Load.Evaluated.Instances {
		if inst.Block != nil && inst.Block.Kind == schema.KindGarden && (target == "garden" || string(addr) == target) {
			gardens = append(gardens, addr)
		}
	}
	slices.Sort(gardens)
	switch {
	case len(gardens) == 0:
		return cluster.Access{}, "", fmt.Errorf("the landscape has no garden %s", strings.TrimPrefix(target, "garden"))
	case len(gardens) > 1:
		return cluster.Access{}, "", fmt.Errorf("the landscape has several gardens; name one: %v", gardens)
	}
	inst := out.Load.Evaluated.Instances[gardens[0]]
	ref := cty.NilVal
	if inst.Config.Type().IsObjectType() && inst.Config.Type().HasAttribute("virtual_garden") {
		ref, _ = inst.Config.GetAttr("virtual_garden").UnmarkDeep()
	}
	if ref == cty.NilVal || ref.IsNull() || !ref.IsKnown() || !ref.Type().IsObjectType() || !ref.Type().HasAttribute("name") {
		return cluster.Access{}, "", fmt.Errorf("%s names no virtual_garden cluster, through which the landscape would reach its virtual garden", gardens[0])
	}
	name := ref.GetAttr("name").AsString()
	access, err := planner.AccessOf(out.Load.Landscape.Paths, out.Load.Evaluated.Clusters[name])
	if err != nil {
		return cluster.Access{}, "", fmt.Errorf("cluster %s: %w", name, err)
	}
	return access, name, nil
}
