package main

import (
	"bytes"
	"fmt"
)

// Every object marshaller gqlgen writes ends by handing its @defer groups to
// the executor, and builds what that needs — the field's whole path
// (graphql.GetPath walks the context chain and allocates), an empty field
// set and a map — even when the operation defers nothing, which is every
// operation HaulGraph's clients send: in the dashboard query that is ~2,600
// paths per request, a tenth of its allocations. deferGuard rewrites the
// hand-over to happen only when something was deferred
// (ProcessDeferredGroup returns at once on an empty map, and adding 0 to
// the counter is nothing), and, where the object has no deferrable field at
// all (nothing writes the map), the map and field set to nil.
var (
	deferHandOver = []byte(`	atomic.AddInt32(&ec.Deferred, int32(min(len(deferLabelToView), math.MaxInt32)))

	ec.ProcessDeferredGroup(graphql.DeferredGroup{
		Defers:   deferLabelToView,
		Path:     graphql.GetPath(ctx),
		FieldSet: deferredFieldSet,
		Context:  ctx,
	})
`)
	guardedHandOver = []byte(`	if len(deferLabelToView) > 0 {
		atomic.AddInt32(&ec.Deferred, int32(min(len(deferLabelToView), math.MaxInt32)))
		ec.ProcessDeferredGroup(graphql.DeferredGroup{
			Defers:   deferLabelToView,
			Path:     graphql.GetPath(ctx),
			FieldSet: deferredFieldSet,
			Context:  ctx,
		})
	}
`)
	deferMake    = []byte("deferredFieldSet := graphql.NewFieldSet(nil)\n\tdeferLabelToView := make(map[string]*graphql.FieldSetView)\n")
	deferNil     = []byte("var deferredFieldSet *graphql.FieldSet\n\tvar deferLabelToView map[string]*graphql.FieldSetView\n")
	deferWritten = []byte("deferLabelToView[")
)

func guardDefers(dir string) error {
	found := 0
	guarded, err := editGenerated(dir, func(_ string, body []byte) []byte {
		found += bytes.Count(body, deferHandOver)
		body = bytes.Replace(body, deferHandOver, guardedHandOver, 1)
		if !bytes.Contains(body, deferWritten) {
			body = bytes.Replace(body, deferMake, deferNil, 1)
		}
		return body
	})
	if err == nil && (found == 0 || guarded != found) {
		err = fmt.Errorf("guarded %d of %d @defer hand-overs: gqlgen's generated code changed shape", guarded, found)
	}
	return err
}
