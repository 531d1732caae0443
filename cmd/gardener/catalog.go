package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/schemas/admission"
)

// catalogRenderers is the component catalog the CLI plans with. Every command that renders asks
// for it before it loads the landscape, so it also starts decoding the catalog's CRDs in the
// background (crds.Preload): about 50 ms of CPU that rendering would otherwise spend on its path.
func catalogRenderers() render.Registry {
	crds.Preload()
	return catalog.Renderers()
}

// catalogSchemas is the schema registry every command loads landscapes with: the catalog's
// schemas, and the landscape rules that refuse what gardener-apiserver's admission would refuse
// when the landscape is applied (schemas/admission), so that validate, plan, apply and the daemon
// report it before anything is written. It panics only if a rule is registered twice, a bug that
// TestCatalogSchemas rules out.
func catalogSchemas() *schema.Registry {
	reg := catalog.Schemas()
	if err := reg.AddLandscapeRules(admission.Rules()...); err != nil {
		panic("gardener: invalid landscape rules: " + err.Error())
	}
	return reg
}

func newComponentsCommand(reg *schema.Registry) *cobra.Command {
	return &cobra.Command{
		Use:   "components [TYPE]",
		Short: "List the component types and composite blocks, or document one",
		Long: `Without TYPE, list the composite blocks (garden, seed, shoot) and the component types with a
one-line summary. With TYPE, print its reference documentation: attributes, nested blocks and
outputs.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 1 {
				s := lookupAnyKind(reg, args[0])
				if s == nil {
					var names []string
					for _, s := range reg.All() {
						names = append(names, s.Type)
					}
					return fmt.Errorf("components: no component type or block %q; known: %s", args[0], strings.Join(names, ", "))
				}
				_, err := out.Write(schema.Markdown(s))
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			printLine(tw, "KIND\tTYPE\tSUMMARY")
			for _, s := range reg.All() {
				printf(tw, "%s\t%s\t%s\n", s.Kind, s.Type, s.Summary())
			}
			return tw.Flush()
		},
	}
}

func lookupAnyKind(reg *schema.Registry, typ string) *schema.Schema {
	for _, s := range reg.All() {
		if s.Type == typ {
			return s
		}
	}
	return nil
}

func newSchemaCommand(reg *schema.Registry) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the schemas of all blocks and component types",
		Long: `Print the schema of every composite block and component type: as Markdown reference
documentation, or with --json as a stable, versioned JSON document for editors and tools.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				data, err := schema.JSON(reg)
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			for i, s := range reg.All() {
				if i > 0 {
					printLine(cmd.OutOrStdout())
				}
				if _, err := cmd.OutOrStdout().Write(schema.Markdown(s)); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of Markdown")
	return cmd
}
