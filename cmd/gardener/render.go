package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
)

func newRenderCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var outputDir, observed string
	var offline bool
	var targets []string
	var parallelism int
	cmd := &cobra.Command{
		Use:   "render [DIR] --output-dir D",
		Short: "Write the objects apply would send, as YAML files",
		Long: `Render the landscape in DIR and write every object exactly as apply would send it (labels,
annotations, generated secrets, copies) into D: a directory per cluster block, in it one file per
component, numbered in apply order, so that "kubectl apply --server-side -f D/<cluster>" meets
CRDs and namespaces before what needs them. Like a plan, rendering reads the clusters (generated
secrets reuse the Secrets that exist, copies read their sources; --observed reads a snapshot
instead); nothing is written to them. Values only a live object holds after apply keep their
${live:...} marker. D holds Secrets as the clusters receive them: it is created readable by its
owner only, and must be empty. With --offline every cluster is empty and no kubeconfig is read (as
helm template does); new generated secrets then hold "(generated at apply)", so such files are
for review and golden tests, not for kubectl apply.`,
		Example: `  gardener render landscapes/local --output-dir /tmp/local
  kubectl apply --server-side -f /tmp/local/runtime --context runtime
  gardener render landscapes/local --offline --output-dir /tmp/review   # no cluster needed; for review`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			if outputDir == "" {
				printLine(stderr, "Error: --output-dir D is required.")
				return exitCode(1)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := planner.Options{
				Dir: dirArg(args), Schemas: reg, Renderers: catalogRenderers(), Inputs: inputs.sources(),
				Targets: targets, Parallelism: parallelism, Differs: planner.LocalDiffers(""),
				Connect: planner.LiveConnector(clusterOptions(parallelism)),
				// The state only tells which kinds to list while rendering (the objects written
				// do not depend on it): a state that cannot be read renders without.
				Prefetch: true,
				ReadState: func(res *config.Result) (*state.State, error) {
					if st, err := stateReader(ctx)(res); err == nil {
						return st, nil
					}
					return nil, nil
				},
			}
			if offline || observed != "" {
				opts.Prefetch, opts.ReadState = false, nil
				connect, recordedAt, err := recordedConnector(stderr, offline, observed, false)
				if err != nil {
					return err
				}
				opts.Connect, opts.DeferSecrets, opts.Recorded = connect, true, true
				opts.Now, opts.ObservedAt = planner.RecordedTimes(time.Time{}, recordedAt)
			}
			out, diags, err := planner.Plan(ctx, opts)
			if err := reportPlan(stderr, out, diags, err); err != nil {
				return err
			}
			files, err := views.WriteManifests(outputDir, out.Result.Desired, out.Graph.Order())
			if err != nil {
				printf(stderr, "Error: %v\n", err)
				return exitCode(1)
			}
			objects := 0
			for _, f := range files {
				objects += f.Objects
			}
			printf(cmd.OutOrStdout(), "Wrote %d objects of %d components to %s.\n", objects, len(files), outputDir)
			return nil
		},
	}
	inputs.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&outputDir, "output-dir", "", "the directory to write to (created, or empty)")
	fl.StringVar(&observed, "observed", "", "read a snapshot file (gardener snapshot) instead of the live clusters")
	fl.BoolVar(&offline, "offline", false, "render against empty clusters, without any kubeconfig or API access (as helm template does)")
	fl.StringArrayVar(&targets, "target", nil, "render only this component and its dependencies (repeatable)")
	fl.IntVar(&parallelism, "parallelism", 10, "concurrent API requests per cluster")
	return cmd
}
