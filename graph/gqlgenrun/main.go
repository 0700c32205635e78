// Command gqlgenrun is `gqlgen generate` (gqlgen.yml) with the execution
// code rendered from the repository's copy of gqlgen's exec templates
// (templates/, codegen/*.gotpl of the pinned gqlgen) instead of gqlgen's
// embedded ones. The output is what the templates write; nothing edits it
// afterwards. Each change to the templates is marked `haulgraph:` there:
//
//   - a list of objects none of whose fields can wait (no resolver anywhere
//     below, plainList) is marshalled element by element in the calling
//     goroutine, and so is a list whose selection reaches no resolver field
//     (waitingList, decided per request against resolverFields);
//   - a plain leaf or plain object held in a struct field is marshalled
//     straight from it (directField), without a field context;
//   - the @defer hand-over runs only when something was deferred, and an
//     object with no deferrable field builds no defer state;
//   - an object that resolves nothing concurrently is written by
//     execrt.ObjectJSON instead of graphql.FieldSet;
//   - a query's response buffer starts at the size its text needed last time.
//
// gqlgen marshals every list of objects through
// graphql.MarshalSliceConcurrently, one goroutine per element. That pays off
// only where an element resolves something that may wait (a dataloader
// fetch, as SettlementStatement.driver does); for plain structs — line
// items, sub-lines, money — it is pure cost: in the dashboard query
// (100 statements) ~1,100 goroutines per request, their stack growth and GC
// took half the server's CPU. gqlgen has no option for this (exec.worker_limit
// still starts a goroutine per element, only fewer at once). The runtime the
// changed templates call lives in graph/execrt.
//
// On a gqlgen upgrade: copy the new version's codegen/*.gotpl over
// templates/ and carry the `haulgraph:` changes across.
package main

import (
	"fmt"
	"os"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/99designs/gqlgen/plugin"
	"github.com/99designs/gqlgen/plugin/modelgen"
	"github.com/99designs/gqlgen/plugin/resolvergen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gqlgenrun:", err)
		os.Exit(1)
	}
}

// run is api.Generate's pipeline for this configuration (models, resolvers,
// no federation), with the exec code rendered by renderExec.
func run() error {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		return err
	}
	if cfg.Federation.IsDefined() {
		return fmt.Errorf("federation is configured: gqlgenrun does not run gqlgen's federation plugin")
	}
	_ = os.Remove(cfg.Exec.Filename)
	if cfg.Model.IsDefined() {
		_ = os.Remove(cfg.Model.Filename)
	}
	plugins := []plugin.Plugin{}
	if cfg.Model.IsDefined() {
		plugins = append(plugins, modelgen.New())
	}
	plugins = append(plugins, resolvergen.New())
	if cfg.LocalPrefix != "" {
		return fmt.Errorf("local_prefix is configured: gqlgenrun does not pass it to goimports")
	}
	if err := cfg.LoadSchema(); err != nil {
		return fmt.Errorf("failed to load schema: %w", err)
	}
	codegen.ClearInlineArgsMetadata()
	if err := codegen.ExpandInlineArguments(cfg.Schema); err != nil {
		return fmt.Errorf("failed to expand inline arguments: %w", err)
	}
	if err := cfg.Init(); err != nil {
		return fmt.Errorf("generating core failed: %w", err)
	}
	for _, p := range plugins {
		if mut, ok := p.(plugin.ConfigMutator); ok {
			if err := mut.MutateConfig(cfg); err != nil {
				return fmt.Errorf("%s: %w", p.Name(), err)
			}
		}
	}
	dataPlugins := make([]any, len(plugins))
	for i := range plugins {
		dataPlugins[i] = plugins[i]
	}
	data, err := codegen.BuildData(cfg, dataPlugins...)
	if err != nil {
		return fmt.Errorf("merging type systems failed: %w", err)
	}
	for _, p := range plugins {
		if gen, ok := p.(plugin.CodeGenerator); ok {
			if err := gen.GenerateCode(data); err != nil {
				return fmt.Errorf("%s: %w", p.Name(), err)
			}
		}
	}
	if err := renderExec(data); err != nil {
		return fmt.Errorf("generating core failed: %w", err)
	}
	if !cfg.SkipModTidy {
		if err := cfg.Packages.ModTidy(); err != nil {
			return fmt.Errorf("tidy failed: %w", err)
		}
	}
	return nil
}
