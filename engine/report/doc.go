// Package report writes what gardenlet reports about the seeds and shoots it manages, for the
// ones the engine manages in its place (render.Report): the status of Seeds and Shoots in the
// virtual garden (status.lastOperation through an apply, lastErrors, conditions,
// observedGeneration, gardener and the component's own fields), the `gardener` finalizer, and the
// seed's heartbeat Lease in gardener-system-seed-lease; and the conditions of objects other
// controllers own that gardenlet reports on (render.StatusReport, WriteConditions: a
// ControllerInstallation whose extension the engine deploys on a seed it manages).
//
// Gardener's own controllers depend on these reports: gardener-scheduler picks only seeds with a
// last operation and GardenletReady True; gardener-controller-manager's seed lifecycle controller
// marks a seed whose Lease is not renewed Unknown, and later its shoots' conditions; the Shoot's
// adminkubeconfig subresource needs its advertised addresses; gardener-apiserver refuses to let
// the finalizer go before a Delete operation succeeded (plugin/pkg/global/finalizerremoval at
// Gardener v1.120.0). Facts about what gardenlet writes are cited from Gardener's source
// (pkg/gardenlet/controller/seed/lease, .../seed/seed, .../shoot/shoot, .../shoot/care).
//
// Reports are not part of the plan: a status is not a change of the landscape, and the engine
// applies no status with server-side apply. Each write reads the object and sends a JSON merge
// patch of its status subresource with the resourceVersion read as a precondition, retried on a
// conflict, so that conditions other controllers keep (gardener-controller-manager's
// ExtensionsReady on a Seed) stay as they are. A write happens only when it changes something.
package report
