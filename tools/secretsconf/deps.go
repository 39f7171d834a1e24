//go:build ctxdtools

package main

// The gitleaks rule generator is never linked into this tool nor into
// ctxd: it is built at run time (see collect.go) from the module cache
// with an overlay. This file, excluded from every build by its tag, only
// keeps that package and its dependencies in go.mod and go.sum, so that
// building it needs nothing beyond the module proxy.
import _ "github.com/zricethezav/gitleaks/v8/cmd/generate/config"
