{{/*
Checks that span several values, which values.schema.json cannot say clearly. Each failure names
the values to change.
*/}}
{{- define "portico.validate" -}}
{{- range $api := list "pushgateway" "management" "search" }}
{{- $cfg := index $.Values.server.auth $api }}
{{- if and $cfg.enabled (not $cfg.users) (not $cfg.existingSecret) }}
{{- fail (printf "server.auth.%s.enabled is true but neither server.auth.%s.users nor server.auth.%s.existingSecret is set" $api $api $api) }}
{{- end }}
{{- end }}
{{- $ports := .Values.service.ports }}
{{- $names := list $ports.management.name $ports.pushgateway.name $ports.search.name }}
{{- if ne (len (uniq $names)) 3 }}
{{- fail (printf "service.ports names must differ, got %s" (join ", " $names)) }}
{{- end }}
{{- $numbers := list (toString $ports.management.port) (toString $ports.pushgateway.port) (toString $ports.search.port) (toString .Values.operator.healthPort) "8081" }}
{{- if ne (len (uniq $numbers)) 5 }}
{{- fail (printf "service.ports, operator.healthPort and the internal port 8081 must all differ, got %s" (join ", " $numbers)) }}
{{- end }}
{{- $redis := .Values.server.pushgateway.store.redis }}
{{- if and (gt (int .Values.replicas) 1) (not $redis.enabled) }}
{{- fail (printf "replicas is %d but server.pushgateway.store.redis.enabled is false: replicas share pushed groups only through Redis (see docs/helm.md#several-replicas)" (int .Values.replicas)) }}
{{- end }}
{{- if and (gt (int .Values.replicas) 1) .Values.persistence.enabled }}
{{- fail "replicas above 1 need persistence.enabled=false: a ReadWriteOnce volume holds one pod, and the pushed groups live in Redis" }}
{{- end }}
{{- if and $redis.enabled (not $redis.url) (not $redis.existingSecret) }}
{{- fail "server.pushgateway.store.redis.enabled is true but neither server.pushgateway.store.redis.url nor .existingSecret (with the URL under .urlKey) is set" }}
{{- end }}
{{- if and $redis.enabled (regexMatch "^[a-z+]+://[^@/]*:[^@/]*@" $redis.url) }}
{{- fail "server.pushgateway.store.redis.url holds a password: put it in the Secret named by server.pushgateway.store.redis.existingSecret (key .passwordKey)" }}
{{- end }}
{{- if and .Values.podDisruptionBudget.enabled (not (kindIs "invalid" .Values.podDisruptionBudget.minAvailable)) (not (kindIs "invalid" .Values.podDisruptionBudget.maxUnavailable)) }}
{{- fail "podDisruptionBudget: set minAvailable or maxUnavailable, not both (set the other to null)" }}
{{- end }}
{{- end }}
