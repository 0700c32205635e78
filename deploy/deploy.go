// Package deploy holds what an operator deploys HaulGraph with
// (docs/deploy.md): the Kubernetes manifests, the systemd unit and the OCI
// image builder (cmd/ociimage). It is a module of its own so that the
// Kubernetes API types its tests decode the manifests into stay out of the
// server's build; `make test` runs its tests.
package deploy
