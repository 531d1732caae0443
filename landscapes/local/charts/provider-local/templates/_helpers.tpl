{{- define "provider-local.name" -}}
gardener-extension-provider-local
{{- end -}}

{{- define "provider-local.labels" -}}
app.kubernetes.io/name: {{ include "provider-local.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
