//go:build tools

// Package tools pins Traefik's command in this wrapper module: scripts/build-peers.sh builds
// github.com/traefik/traefik/v3/cmd/traefik from here.
package tools

import _ "github.com/traefik/traefik/v3/cmd/traefik"
