//go:build tools

// Package tools pins Pushgateway's main package so that `go mod tidy` keeps its dependencies.
package tools

import (
	_ "github.com/prometheus/pushgateway"
)
