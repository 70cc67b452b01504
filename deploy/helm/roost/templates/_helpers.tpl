{{/* The name of every object of a release. */}}
{{- define "roost.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels that select the release's pods. */}}
{{- define "roost.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels. */}}
{{- define "roost.labels" -}}
{{ include "roost.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The Secret holding roost.yaml. */}}
{{- define "roost.secretName" -}}
{{- .Values.existingSecret | default (include "roost.fullname" .) -}}
{{- end -}}

{{/* The config file the chart writes: config, then apps and backends. */}}
{{- define "roost.config" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- if .Values.apps }}{{ $_ := set $cfg "apps" .Values.apps }}{{ end -}}
{{- if .Values.redis.url }}{{ $_ := set $cfg "redis" (merge (dict "url" .Values.redis.url) (get $cfg "redis" | default dict)) }}{{ end -}}
{{- if .Values.nats.url }}{{ $_ := set $cfg "nats" (merge (dict "url" .Values.nats.url) (get $cfg "nats" | default dict)) }}{{ end -}}
{{- toYaml $cfg -}}
{{- end -}}
