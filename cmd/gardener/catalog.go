package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/components/cloudprofile"
	"github.com/declarative-gardener/gardener/components/controllerdeployment"
	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/credentialsbinding"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/etcddruid"
	"github.com/declarative-gardener/gardener/components/exposureclass"
	"github.com/declarative-gardener/gardener/components/gardeneradmissioncontroller"
	"github.com/declarative-gardener/gardener/components/gardenerapiserver"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/gardenerscheduler"
	"github.com/declarative-gardener/gardener/components/helmrelease"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/kubecontrollermanager"
	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/project"
	"github.com/declarative-gardener/gardener/components/quota"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/secretbinding"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// catalogRenderers wires the component packages' render functions into the engine, which never
// imports them itself. Types of the schema catalog without a renderer here are validated but
// left out of plans with a warning.
func catalogRenderers() render.Registry {
	return render.Registry{
		"helm_release":                  helmrelease.Render,
		"manifests":                     manifests.Render,
		"priority_classes":              priorityclasses.Render,
		"namespace":                     namespace.Render,
		"gardener_resource_manager":     resourcemanager.Render,
		"vpa":                           vpa.Render,
		"etcd_druid":                    etcddruid.Render,
		"istio":                         istio.Render,
		"nginx_ingress":                 nginxingress.Render,
		"etcd":                          etcd.Render,
		"kube_apiserver":                kubeapiserver.Render,
		"kube_controller_manager":       kubecontrollermanager.Render,
		"gardener_apiserver":            gardenerapiserver.Render,
		"gardener_admission_controller": gardeneradmissioncontroller.Render,
		"gardener_controller_manager":   gardenercontrollermanager.Render,
		"gardener_scheduler":            gardenerscheduler.Render,
		"project":                       project.Render,
		"cloud_profile":                 cloudprofile.Render,
		"secret_binding":                secretbinding.Render,
		"credentials_binding":           credentialsbinding.Render,
		"quota":                         quota.Render,
		"controller_registration":       controllerregistration.Render,
		"controller_deployment":         controllerdeployment.Render,
		"exposure_class":                exposureclass.Render,
	}
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
			fmt.Fprintln(tw, "KIND\tTYPE\tSUMMARY")
			for _, s := range reg.All() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Kind, s.Type, s.Summary())
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
					fmt.Fprintln(cmd.OutOrStdout())
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
