// Package ext stands in for Traefik's dynamic-configuration extension module, a nested module of
// its repository that the Go module proxy does not serve. Traefik's open-source build embeds these
// two types empty (yaml ",inline"), so empty types here build the same program.
package ext

// HTTP extends Traefik's dynamic HTTP configuration; empty in the open-source build.
type HTTP struct{}

// Router extends Traefik's dynamic HTTP router; empty in the open-source build.
type Router struct{}
