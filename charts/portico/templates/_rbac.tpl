{{/*
The operator's permissions, kept in this one file. test/chart/rbac.int.test.ts holds the same list
as its expected set: change both together, and only when the operator's watches change.
Informers need list and watch only (no get); status is written through the /status subresource.
*/}}

{{/* Cluster-scoped kinds: always granted by the ClusterRole. */}}
{{- define "portico.rbac.clusterScopedRules" -}}
- apiGroups: ["networking.k8s.io"]
  resources: ["ingressclasses"]
  verbs: ["list", "watch"]
# Namespace labels, for namespace selectors.
- apiGroups: [""]
  resources: ["namespaces"]
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
# Secrets: the users of basicAuth middlewares.
- apiGroups: [""]
  resources: ["services", "secrets"]
  verbs: ["list", "watch"]
- apiGroups: ["portico.dev"]
  resources: {{ toJson $kinds }}
  verbs: ["list", "watch"]
- apiGroups: ["portico.dev"]
  resources:
{{- range $kinds }}
    - {{ . }}/status
{{- end }}
  verbs: ["get", "update", "patch"]
{{- if .Values.operator.traefikCrds }}
- apiGroups: ["traefik.io"]
  resources: {{ toJson $kinds }}
  verbs: ["list", "watch"]
{{- end }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/* Leader election: the Lease in the release namespace only. */}}
{{- define "portico.rbac.leaseRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
{{- end }}
