#!/usr/bin/env bash
# Builds the Go peers that the tests start from the Go module proxy, through the pinned wrapper
# modules in test/peers/<name>/ (go.mod and go.sum name every version): kube-apiserver and etcd for
# the real-Kubernetes tests; pushgateway, prometheus and push-client (our own program on
# client_golang's push package) for the push gateway's side-by-side, peer and client tests. Each binary lands in a cache outside the repository, keyed by its pinned version and the
# Go version, so a warm run builds nothing:
#   ${PORTICO_PEER_CACHE:-$HOME/.cache/portico-peers}/<name>-<version>-<go version>/<name>
# One peer is a file, not a binary: servicemonitor-crd, the Prometheus Operator's ServiceMonitor CRD,
# taken from its Go module (pinned in test/peers/prometheus-operator/) and copied to
#   ${PORTICO_PEER_CACHE:-$HOME/.cache/portico-peers}/servicemonitor-crd-<version>/<file>
# One peer is Java: opensearch, the reference node of the differential search suite
# (test/search/differential/), built with Maven from test/peers/opensearch/ (pom.xml pins the
# OpenSearch version; its artifacts come from Maven Central) into
#   ${PORTICO_PEER_CACHE:-$HOME/.cache/portico-peers}/opensearch-<version>/{opensearch-node.jar,classpath.txt}
# and printed as the path of that directory.
# One peer is Python: python-clients, a venv of the official elasticsearch and opensearch-py clients
# pinned with their hashes in test/peers/python/requirements.txt, at
#   ${PORTICO_PEER_CACHE:-$HOME/.cache/portico-peers}/python-clients-<checksum of that file>/
# One peer is Python: python-prometheus, PyPI's prometheus_client (pinned with its hash in
# test/peers/python-prometheus/requirements.txt) in a venv of Debian's python3 (python3-venv), at
#   ${PORTICO_PEER_CACHE:-$HOME/.cache/portico-peers}/python-prometheus-<version>/bin/python
# and printed as the path of that interpreter.
# One peer is built outside its wrapper: traefik, the reference of the management API's differential
# suite (test/management/differential/), from test/peers/traefik/ copied beside a copy of lego whose
# DNS-challenge registry is replaced (see traefik_src below).
#
#   scripts/build-peers.sh [name ...]     (default: every peer; prints the binary and file paths)
# Names: etcd kube-apiserver servicemonitor-crd pushgateway prometheus push-client opensearch traefik python-clients python-prometheus
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${PORTICO_PEER_CACHE:-${HOME}/.cache/portico-peers}
gover=

need_go() {
  if [ -n "$gover" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then
    echo "build-peers: Go is not installed; the real-Kubernetes and push gateway peer tests need Go 1.26 or newer (https://go.dev/doc/install, or Debian's golang package)" >&2
    exit 1
  fi
  gover=$(go env GOVERSION)
}

# The OpenSearch node: a jar of test/peers/opensearch/ and the classpath Maven resolved for it. The
# directory is keyed by the OpenSearch version; a stamp of the sources' checksum rebuilds it when the
# pom or the launcher changes, and a classpath naming a jar that is gone (a wiped ~/.m2) too.
opensearch() {
  local src="$root/test/peers/opensearch"
  local version
  version=$(sed -n 's:.*<opensearch.version>\(.*\)</opensearch.version>.*:\1:p' "$src/pom.xml")
  if [ -z "$version" ]; then
    echo "build-peers: test/peers/opensearch/pom.xml pins no opensearch.version" >&2
    return 1
  fi
  local dir="$cache/opensearch-$version"
  local stamp
  stamp=$(cd "$src" && find pom.xml src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  if [ -f "$dir/opensearch-node.jar" ] && [ -f "$dir/classpath.txt" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
    local entry missing=
    local -a entries
    # Maven writes the classpath without a final newline, so read reports end of file: not an error.
    IFS=: read -r -a entries <"$dir/classpath.txt" || true
    for entry in "${entries[@]}"; do
      if [ ! -f "$entry" ]; then missing=$entry; break; fi
    done
    if [ -z "$missing" ]; then
      echo "$dir"
      return 0
    fi
    echo "build-peers: $missing is gone; resolving the OpenSearch node again" >&2
  fi
  local tool
  for tool in java mvn; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "build-peers: $tool is not installed; the differential search suite needs Java 17 and Maven (Debian: apt-get install openjdk-17-jdk-headless maven)" >&2
      return 1
    fi
  done
  echo "build-peers: building the OpenSearch $version node with Maven (first run only; about a minute to download its jars from Maven Central)" >&2
  local start=$SECONDS
  mkdir -p "$dir"
  local -a goals=(package dependency:build-classpath "-Dmdep.outputFile=$dir/classpath.txt.tmp" "-Dpeer.build.dir=$dir/build")
  # Offline first, so a machine that has the jars in ~/.m2 reaches no network; online when it lacks some.
  if ! (cd "$src" && mvn -q -o "${goals[@]}" >/dev/null 2>&1); then
    (cd "$src" && mvn -q "${goals[@]}" >&2)
  fi
  mv "$dir/build/opensearch-node.jar" "$dir/opensearch-node.jar"
  mv "$dir/classpath.txt.tmp" "$dir/classpath.txt"
  echo "$stamp" >"$dir/stamp"
  rm -rf "$dir/build"
  echo "build-peers: built the OpenSearch node in $((SECONDS - start)) s" >&2
  echo "$dir"
}

# The official Python clients of the search suite's client test: a venv with test/peers/python/
# requirements.txt installed (every version and hash pinned, pip --require-hashes), in a directory
# keyed by that file's checksum, printed as the venv's path. Needs python3 with venv (Debian:
# python3-venv) and PyPI on the first run only.
python_clients() {
  local req="$root/test/peers/python/requirements.txt"
  local digest
  digest=$(sha256sum "$req" | cut -c1-16)
  local dir="$cache/python-clients-$digest"
  if [ -x "$dir/bin/python" ] && [ -f "$dir/installed" ]; then
    echo "$dir"
    return 0
  fi
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    echo "build-peers: python3 with venv is not installed; the Python clients' test needs it (Debian: apt-get install python3-venv)" >&2
    return 1
  fi
  echo "build-peers: installing the Python clients from PyPI (first run only; about half a minute)" >&2
  local start=$SECONDS
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check --no-cache-dir --require-hashes --only-binary=:all: -r "$req" >&2
  touch "$dir/installed"
  echo "build-peers: installed the Python clients in $((SECONDS - start)) s" >&2
  echo "$dir"
}

# PyPI's prometheus_client in a venv of its own, keyed by its pinned version; a stamp of the
# requirements file's checksum marks a finished install (an interrupted one is redone).
python_prometheus() {
  local req="$root/test/peers/python-prometheus/requirements.txt"
  local version
  version=$(sed -n 's/^prometheus-client==\([^ ]*\).*/\1/p' "$req")
  if [ -z "$version" ]; then
    echo "build-peers: test/peers/python-prometheus/requirements.txt pins no prometheus-client version" >&2
    return 1
  fi
  local dir="$cache/python-prometheus-$version"
  local stamp
  stamp=$(sha256sum "$req" | cut -c1-16)
  if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$dir/bin/python"
    return 0
  fi
  if ! /usr/bin/python3 -c 'import venv, pip' >/dev/null 2>&1; then
    echo "build-peers: Debian's python3 with venv and pip is needed for PyPI's prometheus_client (apt-get install python3-venv python3-pip)" >&2
    return 1
  fi
  echo "build-peers: installing prometheus_client $version from PyPI into a venv (first run only; a few seconds)" >&2
  local start=$SECONDS
  rm -rf "$dir"
  # Without a pip of its own (copying one in costs most of the time): Debian's pip installs into it.
  /usr/bin/python3 -m venv --without-pip "$dir"
  /usr/bin/python3 -m pip --python "$dir/bin/python" install -q --disable-pip-version-check --no-deps --require-hashes -r "$req" >&2
  echo "$stamp" >"$dir/stamp"
  echo "build-peers: installed prometheus_client $version in $((SECONDS - start)) s" >&2
  echo "$dir/bin/python"
}

# The version a wrapper module pins for a module path, read from its go.mod.
pinned() {
  awk -v mod="$2" '$1 == mod && $2 ~ /^v/ { print $2; exit } $1 == "require" && $2 == mod { print $3; exit }' "$root/test/peers/$1/go.mod"
}

# The ServiceMonitor CRD: one file of the Prometheus Operator's module, which `go mod download`
# fetches (checked against test/peers/prometheus-operator/go.sum) into the module cache.
servicemonitor_crd() {
  local module=github.com/prometheus-operator/prometheus-operator
  local file=example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml
  local version
  version=$(pinned prometheus-operator "$module")
  if [ -z "$version" ]; then
    echo "build-peers: test/peers/prometheus-operator/go.mod pins no version of $module" >&2
    return 1
  fi
  local dir="$cache/servicemonitor-crd-$version"
  local target="$dir/${file##*/}"
  if [ -f "$target" ]; then
    echo "$target"
    return 0
  fi
  echo "build-peers: fetching $module $version for its ServiceMonitor CRD (first run only)" >&2
  local json moddir
  json=$(cd "$root/test/peers/prometheus-operator" && GOFLAGS=-mod=mod go mod download -json "$module@$version")
  moddir=$(awk -F'"' '$2 == "Dir" { print $4; exit }' <<<"$json")
  if [ -z "$moddir" ] || [ ! -f "$moddir/$file" ]; then
    echo "build-peers: $module $version has no $file:" >&2
    echo "$json" >&2
    return 1
  fi
  mkdir -p "$dir"
  # The module cache is read-only; the copy is not.
  cp "$moddir/$file" "$target.tmp"
  chmod 644 "$target.tmp"
  mv "$target.tmp" "$target"
  echo "$target"
}

# Traefik's module needs a build directory of its own: test/peers/traefik/ replaces lego with ./lego,
# made here from lego's module (downloaded and checked against the checksum database) with its
# DNS-challenge registry, which imports some 200 DNS providers' SDKs (two dozen of them refused by the
# Go module proxy), replaced by one function that refuses every DNS provider. Prints the directory.
traefik_src() {
  local dir=$1 lego
  lego=$(pinned traefik github.com/go-acme/lego/v5)
  rm -rf "$dir" && mkdir -p "$dir"
  cp -r "$root/test/peers/traefik/." "$dir/"
  local json moddir
  # Outside any module, so the download is checked against the checksum database.
  json=$(cd "$dir/.." && GOFLAGS='' go mod download -json "github.com/go-acme/lego/v5@$lego")
  moddir=$(awk -F'"' '$2 == "Dir" { print $4; exit }' <<<"$json")
  if [ -z "$moddir" ]; then
    echo "build-peers: cannot download lego $lego:" >&2
    echo "$json" >&2
    return 1
  fi
  rm -rf "$dir/lego"
  cp -r "$moddir" "$dir/lego"
  chmod -R u+w "$dir/lego"
  rm -rf "$dir/lego/providers/dns"
  mkdir -p "$dir/lego/providers/dns"
  cp "$root/test/peers/traefik/lego-dns.go.txt" "$dir/lego/providers/dns/dns.go"
}

build() {
  local name=$1 module pkg version ldflags tags=selinux,notest,grpcnotrace builddir=
  case "$name" in
    servicemonitor-crd)
      need_go
      servicemonitor_crd
      return
      ;;
    opensearch)
      opensearch
      return
      ;;
    python-clients)
      python_clients
      return
      ;;
    python-prometheus)
      python_prometheus
      return
      ;;
    kube-apiserver)
      module=k8s.io/kubernetes
      pkg=k8s.io/kubernetes/cmd/kube-apiserver
      version=$(pinned kube-apiserver "$module")
      local minor=${version#v1.}
      minor=${minor%%.*}
      ldflags="-s -w"
      for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        ldflags+=" -X $v.gitVersion=$version -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean"
      done
      ;;
    etcd)
      module=go.etcd.io/etcd/server/v3
      pkg=$module
      version=$(pinned etcd "$module")
      ldflags="-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$version"
      ;;
    pushgateway)
      module=github.com/prometheus/pushgateway
      pkg=$module
      version=$(pinned pushgateway "$module")
      ldflags="-s -w -X github.com/prometheus/common/version.Version=${version#v} -X github.com/prometheus/common/version.Branch=HEAD"
      ;;
    prometheus)
      # Only the file and HTTP service discovery (remove_all_sd drops the cloud and Kubernetes
      # plugins, which would triple the build) and no built-in UI assets: the tests use the HTTP API
      # only. Pinned in test/peers/prometheus/; module versions v0.3xx.y are Prometheus 3.xx.y.
      module=github.com/prometheus/prometheus
      pkg=$module/cmd/$name
      version=$(pinned prometheus "$module")
      local release=${version#v0.}
      release=3.${release:1}
      ldflags="-s -w -X github.com/prometheus/common/version.Version=$release -X github.com/prometheus/common/version.Branch=HEAD"
      tags=netgo,remove_all_sd
      ;;
    push-client)
      # Our own program (test/peers/push-client/main.go), keyed by client_golang's pinned version
      # and by the program's own text, so that an edit rebuilds it.
      module=github.com/prometheus/client_golang
      pkg=.
      version=$(pinned push-client "$module")
      local digest
      digest=$(sha256sum "$root/test/peers/push-client/main.go" | cut -c1-12)
      version=${version:+$version-$digest}
      ldflags="-s -w"
      ;;
    traefik)
      # Only cmd/traefik, pure Go, version stamped; built in a copy of the wrapper (traefik_src).
      module=github.com/traefik/traefik/v3
      pkg=$module/cmd/traefik
      version=$(pinned traefik "$module")
      ldflags="-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=${version#v}"
      tags=
      builddir=yes
      ;;
    *)
      echo "build-peers: unknown peer \"$name\" (kube-apiserver, etcd, servicemonitor-crd, pushgateway, prometheus, push-client, opensearch, traefik, python-clients, python-prometheus)" >&2
      return 2
      ;;
  esac
  need_go
  if [ -z "$version" ]; then
    echo "build-peers: test/peers/$name/go.mod pins no version of $module" >&2
    return 1
  fi
  local dir="$cache/$name-$version-$gover"
  if [ -x "$dir/$name" ]; then
    echo "$dir/$name"
    return 0
  fi
  echo "build-peers: building $name $version with $gover (first run only; on 2 cores kube-apiserver takes 10-20 minutes, traefik 15-65 (65 under heavy load), prometheus about 5)" >&2
  local start=$SECONDS
  mkdir -p "$dir"
  local src="$root/test/peers/$name"
  if [ -n "$builddir" ]; then
    src="$dir/src"
    traefik_src "$src"
  fi
  (cd "$src" &&
    CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -tags "$tags" \
      -ldflags "$ldflags" -o "$dir/$name.tmp" "$pkg")
  mv "$dir/$name.tmp" "$dir/$name"
  if [ -n "$builddir" ]; then rm -rf "$src"; fi
  echo "build-peers: built $name in $((SECONDS - start)) s" >&2
  echo "$dir/$name"
}

if [ $# -eq 0 ]; then set -- etcd kube-apiserver servicemonitor-crd pushgateway prometheus push-client opensearch traefik python-clients python-prometheus; fi
for peer in "$@"; do build "$peer"; done
