package main

import (
	"context"
	"fmt"
)

// keysCmd runs `haulgraph keys rotate`: a new signing key signs from now on;
// the previous one keeps verifying until its last token has expired.
func keysCmd(ctx context.Context, args []string) error {
	if len(args) != 1 || args[0] != "rotate" {
		return usageError("no action given (rotate)")
	}
	a, err := openApp(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	kid, err := a.Auth.RotateSigningKey(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("New signing key %s is active; the previous key verifies until its tokens expire.\n", kid)
	return nil
}
