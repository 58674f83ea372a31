{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "portico.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: "<release>-portico", or the release name alone when it already says portico. */}}
{{- define "portico.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "portico.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "portico.selectorLabels" -}}
app.kubernetes.io/name: {{ include "portico.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "portico.labels" -}}
helm.sh/chart: {{ include "portico.chart" . }}
{{ include "portico.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "portico.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "portico.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "portico.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Secret holding the internal token (key "token"). */}}
{{- define "portico.tokenSecretName" -}}
{{- default (printf "%s-internal-token" (include "portico.fullname" .)) .Values.internalToken.existingSecret }}
{{- end }}

{{/* Secret of one API's users: pass (list $ "pushgateway"|"management"|"search"). */}}
{{- define "portico.authSecretName" -}}
{{- $root := index . 0 }}
{{- $api := index . 1 }}
{{- $auth := index $root.Values.server.auth $api }}
{{- default (printf "%s-%s-users" (include "portico.fullname" $root) $api) $auth.existingSecret }}
{{- end }}

{{/* Where Prometheus scrapes: the push gateway's route prefix followed by /metrics. */}}
{{- define "portico.telemetryPath" -}}
{{- printf "%s/metrics" (trimSuffix "/" .Values.server.pushgateway.routePrefix) }}
{{- end }}

{{/* Where the token, the users files and the data live inside the containers. */}}
{{- define "portico.tokenDir" -}}/var/run/portico/token{{- end }}
{{- define "portico.authDir" -}}/etc/portico/auth{{- end }}

{{/*
A server probe from values, as YAML (empty when the probe is off). Probes of the push gateway's
own /-/ endpoints follow server.pushgateway.routePrefix, as those endpoints move with it.
Pass (list $ probeValues).
*/}}
{{- define "portico.serverProbe" -}}
{{- $root := index . 0 }}
{{- $probe := index . 1 }}
{{- if $probe }}
{{- $probe = deepCopy $probe }}
{{- $prefix := trimSuffix "/" $root.Values.server.pushgateway.routePrefix }}
{{- with $probe.httpGet }}
{{- if and $prefix (eq (toString .port) "pushgateway") (hasPrefix "/-/" (toString .path)) }}
{{- $_ := set . "path" (printf "%s%s" $prefix .path) }}
{{- end }}
{{- end }}
{{- toYaml $probe }}
{{- end }}
{{- end }}

{{/*
The Service whose address the operator copies to the Ingresses it serves ("namespace/name"), or
empty when operator.ingressEndpoint gives a fixed ip/hostname or is off. Default: our own Service.
*/}}
{{- define "portico.publishedService" -}}
{{- $e := .Values.operator.ingressEndpoint -}}
{{- if $e.enabled -}}
{{- if $e.publishedService -}}
{{- $e.publishedService -}}
{{- else if not (or $e.ip $e.hostname) -}}
{{- printf "%s/%s" .Release.Namespace (include "portico.fullname" .) -}}
{{- end -}}
{{- end -}}
{{- end }}
