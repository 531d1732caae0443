package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/views/graphpage"
)

// graphFormats are the output formats of `gardener graph`, each a writer of the graph.
var graphFormats = map[string]func(g *graph.Graph, w io.Writer, landscape string) error{
	"text":    func(g *graph.Graph, w io.Writer, _ string) error { return g.WriteText(w) },
	"dot":     func(g *graph.Graph, w io.Writer, name string) error { return g.WriteDOT(w, name) },
	"mermaid": func(g *graph.Graph, w io.Writer, _ string) error { return g.WriteMermaid(w) },
	"json":    func(g *graph.Graph, w io.Writer, name string) error { return g.WriteJSON(w, name) },
}

// graphFormatNames are the formats, in the order help and completion list them.
var graphFormatNames = []string{"text", "dot", "mermaid", "json", "html"}

func newGraphCommand(reg *schema.Registry) *cobra.Command {
	var format string
	var inputs inputFlags
	var targets []string
	var planFile string
	cmd := &cobra.Command{
		Use:   "graph [DIR]",
		Short: "Print the component graph of a landscape",
		Long: `Load the landscape in DIR as validate does and print its component graph: one node per
instance of a garden, seed, shoot or component block (shoot.local["dev"] for an instance of a
block with for_each), and an edge wherever one must be applied before another.

Edges come from references between blocks (seed = seed.local, garden.local.name in an
expression), also when they pass through locals and clusters, from depends_on, and from what
components render: a custom resource is applied after the component rendering its CRD, objects
in a namespace after the component rendering the Namespace, a Seed or Shoot after the components
rendering the ControllerRegistrations of the extension types it uses. Every instance of a block
has its block's edges; an edge to a seed, shoot or garden waits for all its parts but those that
need the referring instance themselves. Plan and apply use this graph: apply starts an
instance once everything it depends on is applied and ready, and destroy walks it backwards.

The order is deterministic: each instance comes after all its dependencies, and among those
that could come next, the garden before seeds, seeds before shoots, shoots before components,
then by address.

With --target, only the target and what it depends on, as plan --target selects them.

Formats:
  text     one line per instance in apply order, with what it is applied after:
           seed.local <- garden.local
  dot      a Graphviz digraph; edges point from a dependency to its dependent
  mermaid  a Mermaid flowchart, for Markdown documents that render Mermaid
  json     for programs: the instances in apply order with their block, kind, type and
           dependencies, and every edge with its kind, reason and source range
           (format_version, docs/cli.md)
  html     one self-contained page (no network needed) to explore the graph in a browser:
           zoom, pan, search, a component's dependencies and dependents; with --plan FILE
           (saved by plan --out) each component's planned action

Edges are drawn by their strongest reason; text, dot and mermaid end with a legend of the
styles they used, and the html page shows it beside the graph:
  declared  a reference or depends_on            text <-  dot solid   mermaid -->
  implied   what the instances render, or a      text <~  dot dashed  mermaid -.->
            composite's parts
  follows   applied and deleted after it         text <<  dot bold    mermaid ==>

A landscape with errors prints its diagnostics instead, and the exit code is 1.`,
		Example: `  # Apply order of the example landscape
  gardener graph landscapes/local

  # Draw it with Graphviz
  gardener graph --format dot landscapes/local | dot -Tsvg > graph.svg

  # Explore it in a browser, with the actions of a saved plan
  gardener plan landscapes/local --out plan.bin
  gardener graph --format html --plan plan.bin landscapes/local > graph.html

  # What the dev shoot needs, and in which order
  gardener graph --target shoot.dev landscapes/local

  # Embed it in Markdown, with the qa shoot hibernated
  gardener graph --format mermaid --var hibernate_qa=true landscapes/local`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			write, ok := graphFormats[format]
			if format == "html" {
				write, ok = graphPage(planFile)
			}
			if !ok {
				return fmt.Errorf("unknown format %q: use text, dot, mermaid, json or html", format)
			}
			if planFile != "" && format != "html" {
				return fmt.Errorf("--plan shows a plan's actions in the html format only")
			}
			g, name, err := loadGraph(cmd, reg, dirArg(args), inputs.sources(), targets...)
			if err != nil {
				return err
			}
			// Addresses hold the keys of for_each, which can come from anywhere: the graph is
			// printed escaped, as everything for people; JSON escapes control characters itself.
			var buf bytes.Buffer
			if err := write(g, &buf, name); err != nil {
				printf(cmd.ErrOrStderr(), "Error: %v\n", err)
				return exitCode(1)
			}
			if format == "json" || format == "html" { // the page is ASCII, its data escaped JSON
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			printf(cmd.OutOrStdout(), "%s", buf.String())
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, dot, mermaid, json or html")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletions(graphFormatNames...))
	cmd.Flags().StringVar(&planFile, "plan", "", "with --format html: show the actions of this saved plan (plan --out) per component")
	cmd.Flags().StringArrayVar(&targets, "target", nil, "print only this instance or block (address like shoot.local or component.manifests.base) and what it depends on, as plan --target does (repeatable)")
	inputs.register(cmd)
	return cmd
}

// graphPage is the writer of the html format, with the actions of the saved plan in planFile
// when it is set; a plan of another landscape is refused.
func graphPage(planFile string) (func(g *graph.Graph, w io.Writer, landscape string) error, bool) {
	return func(g *graph.Graph, w io.Writer, landscape string) error {
		opts := graphpage.Options{Landscape: landscape}
		if planFile != "" {
			f, err := plan.ReadFile(planFile)
			if err != nil {
				return err
			}
			if f.Plan.Landscape != landscape {
				return fmt.Errorf("%s is a plan of landscape %q, not of %q", planFile, f.Plan.Landscape, landscape)
			}
			opts.Plan = f.Plan
		}
		return graphpage.Write(w, graphpage.FromGraph(g), opts)
	}, true
}

// loadGraph loads the landscape in dir and builds its graph, cut down to the targets and their
// dependencies when there are any (planner.Prepare does, as for plan --target), printing
// diagnostics (warnings too) to the command's error output; errors end the command with exit code
// 1. It also returns the landscape's name, which the DOT view uses as the graph's.
func loadGraph(cmd *cobra.Command, reg *schema.Registry, dir string, src config.InputSources, targets ...string) (*graph.Graph, string, error) {
	out, diags := planner.Prepare(planner.Options{Dir: dir, Schemas: reg, Renderers: catalogRenderers(), Inputs: src, Targets: targets})
	res, g := out.Load, out.Graph
	if err := diag.WriteText(cmd.ErrOrStderr(), diags, res.Files, diagOptions(cmd.ErrOrStderr())); err != nil {
		return nil, "", err
	}
	if diags.HasErrors() || g == nil {
		return nil, "", exitCode(1)
	}
	return g, res.Landscape.Name, nil
}
