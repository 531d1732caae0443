// Package extension renders the extension component: one Gardener extension declared once and
// installed on the seeds that need it, as parts. The part registration renders, in the virtual
// garden, the ControllerDeployment and ControllerRegistration (reusing
// components/controllerdeployment and components/controllerregistration). Which seeds get the
// extension is gardener-controller-manager's decision, which creates a ControllerInstallation with a
// generated name for each and deletes those no longer wanted (Gardener's "Gardener Controller
// Manager" docs/concepts/controller-manager.md, docs/extensions/registration.md): the component
// predicts it by the same rule (gcm.go) and never writes one. For each installation on a seed
// the landscape manages, the part installation_<seed> does what gardenlet's ControllerInstallation
// controller does (Gardener's "gardenlet" docs/concepts/gardenlet.md): the namespace
// extension-<installation> and the extension's Helm chart, rendered with the values gardenlet
// mixes in, through a ManagedResource in the seed's garden namespace, and it reports the
// installation's conditions as gardenlet would. An installation gardener-controller-manager has
// not created yet is awaited (render.Await): the part is rendered during the apply that creates
// the Seed, or the Shoot that needs it, once the installation exists.
package extension

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs.
type Values struct {
	// VirtualCluster is the virtual garden, where the registration, deployment and installations
	// live.
	VirtualCluster decode.Cluster `json:"virtual_cluster"`
	// Name names the ControllerRegistration and the ControllerDeployment alike, as Gardener's own
	// examples do (Gardener's docs/extensions/registration.md); Render defaults it to the instance
	// name.
	Name string `json:"name"`
	// Resources are the extension kinds and types the controller serves.
	Resources []controllerregistration.Resource `json:"resource"`
	// Policy says when the controller is installed on a seed (Gardener's
	// docs/extensions/registration.md).
	Policy string `json:"policy"`
	// SeedSelector are labels a seed must carry to get the controller (Gardener's
	// docs/extensions/registration.md).
	SeedSelector map[string]string `json:"seed_selector"`
	// PodSecurityEnforce is the Pod Security Standard of the extension's namespaces on seeds
	// (Gardener's "Conventions" docs/extensions/conventions.md).
	PodSecurityEnforce string `json:"pod_security_enforce"`
	// Chart is the extension's chart, a directory or a .tgz archive the landscape names, read
	// through Paths. It is embedded in the ControllerDeployment and rendered for every seed.
	Chart string `json:"chart"`
	// HelmValues are the chart's static values (ControllerDeployment .helm.values).
	HelmValues map[string]any `json:"values"`
	// Seeds are the seeds the extension may be installed on, whose installations the landscape
	// deploys; Installations predicts which get it.
	Seeds []Seed `json:"seeds"`
	// GardenerVersion is mixed in as gardener.version; "" means the image vector's Gardener
	// version.
	GardenerVersion string `json:"gardener_version"`
	// GardenClusterIdentity is mixed in as gardener.garden.clusterIdentity (required).
	GardenClusterIdentity string `json:"garden_cluster_identity"`
	// GenericKubeconfigSecretName is mixed in as gardener.garden.genericKubeconfigSecretName when
	// set. gardenlet creates that Secret in the extension's namespace (Gardener's "Access to the
	// Garden Cluster for Extensions" docs/extensions/garden-api-access.md); the engine does not, so it
	// is left out unless the landscape provides one.
	GenericKubeconfigSecretName string `json:"generic_kubeconfig_secret_name"`
	// GardenletFeatureGates are mixed in as gardener.gardenlet.featureGates.
	GardenletFeatureGates map[string]bool `json:"gardenlet_feature_gates"`
	// Paths reads Chart: the landscape directory under the operator's policy.
	Paths *landscapefs.Dir `json:"-"`
}

// Seed is one seed the extension may be installed on, with what the installation decision and
// the value mix-ins need to know about it.
type Seed struct {
	// Name is the Seed's name.
	Name string `json:"name"`
	// Cluster is the seed cluster the chart's ManagedResource is applied to.
	Cluster decode.Cluster `json:"cluster"`
	// Labels are the Seed's labels, matched against the seed selector and mixed in.
	Labels map[string]string `json:"labels"`
	// Annotations are the Seed's annotations, mixed in.
	Annotations map[string]string `json:"annotations"`
	// HasShoots says the landscape declares shoots on the seed, which the prediction counts
	// before they are applied (policy AlwaysExceptNoShoots, Gardener's
	// docs/extensions/registration.md).
	HasShoots bool `json:"has_shoots"`
	// ShootTypes are the extension kinds and types ("Infrastructure/local") the shoots the
	// landscape declares on the seed require, which the prediction counts before they are applied
	// (Gardener's docs/concepts/controller-manager.md).
	ShootTypes []string `json:"shoot_types"`
	// Provider is the seed's provider type (.spec.provider.type); "" takes it from Spec.
	Provider string `json:"provider"`
	// Region is the seed's region (.spec.provider.region); "" takes it from Spec.
	Region string `json:"region"`
	// DNSProvider is the seed's DNS provider type (.spec.dns.provider.type), if any.
	DNSProvider string `json:"dns_provider"`
	// BackupProvider is the seed's backup provider (.spec.backup.provider), if any.
	BackupProvider string `json:"backup_provider"`
	// IngressDomain is the seed's ingress domain; "" takes it from Spec.
	IngressDomain string `json:"ingress_domain"`
	// ClusterIdentity identifies the seed cluster; "" means the seed's name.
	ClusterIdentity string `json:"cluster_identity"`
	// Spec is the Seed's .spec as the API has it, mixed in as gardener.seed.spec and the source
	// of the derived mix-ins (taints, networks, volume providers, visibility).
	Spec map[string]any `json:"spec"`
}

// Type is the extension component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one extension instance: the part registration, a part installation_<seed>
// for every seed with an installation or one predicted, gardener-controller-manager's changes to
// the installations as predictions, and the hand-over of installations an older version of
// gardener created. Its outputs are the registration's name and the names of the seeds the
// extension is installed on.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	err := gardenapi.Named(in, "extension", &v.Name, nil)
	if err != nil {
		return nil, err
	}
	v.Paths = in.Files()
	if strings.Contains(v.Chart, render.UnknownString) {
		return nil, fmt.Errorf("extension %s: the chart path %w", v.Name, render.ErrDeferred)
	}
	for _, s := range v.Seeds {
		// The seed's name is part of object names and decides the installation.
		if strings.Contains(s.Name, render.UnknownString) || strings.Contains(s.Cluster.Name, render.UnknownString) {
			return nil, fmt.Errorf("extension %s: a seed's name or cluster %w", v.Name, render.ErrDeferred)
		}
	}
	reg, err := renderRegistration(v)
	if err != nil {
		return nil, err
	}
	g, err := readGarden(in, v)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", v.Name, err)
	}
	installations := Installations(v, g)
	out := &render.Output{
		Components: []render.Component{{Name: "registration", Type: "extension_registration", Objects: reg.Objects}},
		Outputs: map[string]cty.Value{
			"name": cty.StringVal(v.Name), "seeds": installedSeeds(installations),
			"extension_lifecycles": controllerregistration.ExtensionLifecycles(v.Resources),
		},
		HandedOver: handOver(v),
	}
	seeds := map[string]Seed{}
	for _, s := range v.Seeds {
		seeds[s.Name] = s
	}
	for _, i := range installations {
		if i.Live != nil || (i.Wanted && i.Blocked == nil) {
			x := &installer{v: v, seed: seeds[i.Seed], values: reg.Values, gcm: seedOf(seeds[i.Seed], g.seeds[i.Seed]),
				registrations: g.state.Registrations, policy: policyOf(v)}
			out.Components = append(out.Components, x.part())
		}
		pr, notice := predict(v, i)
		out.Predictions = append(out.Predictions, pr...)
		if notice != "" {
			out.Notices = append(out.Notices, notice)
		}
	}
	return out, nil
}

// policyOf is the registration's policy, OnDemand when unset (SetDefaults_ControllerRegistrationDeployment).
func policyOf(v Values) string {
	if v.Policy == "" {
		return policyOnDemand
	}
	return v.Policy
}

// installedSeeds lists the seeds the extension is (or will be) installed on.
func installedSeeds(installations []Installation) cty.Value {
	var names []cty.Value
	for _, i := range installations {
		if i.Installed() {
			names = append(names, cty.StringVal(i.Seed))
		}
	}
	if len(names) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	return cty.ListVal(names)
}

// The actor and loop of the predictions: gardener-controller-manager's controllerregistration-seed
// controller (pkg/controllermanager/controller/controllerregistration/seed/add.go at Gardener
// v1.120.0).
const (
	actorGCM                   = "gardener-controller-manager"
	controllerRegistrationSeed = "controllerregistration-seed"
)

// generatedSuffix stands for the random suffix of a name gardener-controller-manager generates
// (generateName <registration>-).
const generatedSuffix = "?????"

// predict says what gardener-controller-manager will do with the registration's installation on
// the seed: create one where it wants the registration and there is none, delete the one it no
// longer wants; and, as a notice, that it cannot decide the seed's installations at all.
func predict(v Values, i Installation) ([]render.Prediction, string) {
	if i.Blocked != nil {
		return nil, fmt.Sprintf("gardener-controller-manager changes no ControllerInstallation of seed %s while %v", i.Seed, i.Blocked)
	}
	pr := render.Prediction{Actor: actorGCM, Controller: controllerRegistrationSeed, Cluster: v.VirtualCluster.Name,
		APIVersion: InstallationAPIVersion, Kind: InstallationKind}
	switch {
	case i.Wanted && i.Live == nil:
		pr.Action, pr.Name = "create", v.Name+"-"+generatedSuffix
		pr.Description = fmt.Sprintf("installs extension %s on seed %s (generateName %s-): %s", v.Name, i.Seed, v.Name, i.Reason)
	case !i.Wanted && i.Live != nil:
		pr.Action, pr.Name = "delete", i.Live.GetName()
		pr.Description = fmt.Sprintf("removes extension %s from seed %s: %s", v.Name, i.Seed, i.Reason)
	default:
		return nil, ""
	}
	return []render.Prediction{pr}, ""
}
