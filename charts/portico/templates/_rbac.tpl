{{/*
The operator's permissions, kept in this one file. test/chart/rbac.int.test.ts derives its expected
set from the operator's own list of watched resources (src/providers/kubernetes/watch/object-cache.ts) and
its writes: status by PATCH on /status (CRDs, and Ingresses with operator.ingressEndpoint), Events
by POST, the Lease by GET/POST/PUT. Reflectors need list and watch only (no get). Secrets are read
(list/watch, in the watched namespaces only) unless operator.readSecrets is false.
*/}}

{{/* Cluster-scoped kinds: always granted by the ClusterRole. */}}
{{- define "portico.rbac.clusterScopedRules" -}}
- apiGroups: ["networking.k8s.io"]
  resources: ["ingressclasses"]
  verbs: ["list", "watch"]
{{- end }}

{{/* Namespaced kinds: in the ClusterRole when every namespace is watched, else in a Role per namespace. */}}
{{- define "portico.rbac.namespacedRules" -}}
{{- $kinds := list "ingressroutes" "ingressroutetcps" "ingressrouteudps" "middlewares" "middlewaretcps" "traefikservices" -}}
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["list", "watch"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["list", "watch"]
{{- if .Values.operator.readSecrets }}
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["list", "watch"]
{{- end }}
{{- if .Values.operator.ingressEndpoint.enabled }}
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses/status"]
  verbs: ["patch"]
{{- end }}
- apiGroups: ["portico.dev"]
  resources: {{ toJson $kinds }}
  verbs: ["list", "watch"]
- apiGroups: ["portico.dev"]
  resources:
{{- range $kinds }}
    - {{ . }}/status
{{- end }}
  verbs: ["patch"]
{{- if .Values.operator.traefikCrds }}
- apiGroups: ["traefik.io"]
  resources: {{ toJson $kinds }}
  verbs: ["list", "watch"]
- apiGroups: ["traefik.io"]
  resources:
{{- range $kinds }}
    - {{ . }}/status
{{- end }}
  verbs: ["patch"]
{{- end }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
{{- end }}

{{/*
The published Service of operator.ingressEndpoint, when its namespace is not watched: the operator
then reads that one Service with GET. Empty when no such rule is needed.
*/}}
{{- define "portico.rbac.publishedServiceNamespace" -}}
{{- $published := include "portico.publishedService" . -}}
{{- if and $published .Values.operator.namespaces -}}
{{- $ns := index (splitList "/" $published) 0 -}}
{{- if not (has $ns .Values.operator.namespaces) -}}
{{- $ns -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/* Leader election: the Lease in the release namespace only. */}}
{{- define "portico.rbac.leaseRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
{{- end }}
