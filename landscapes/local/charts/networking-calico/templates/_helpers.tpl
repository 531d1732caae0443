{{- define "networking-calico.name" -}}
gardener-extension-networking-calico
{{- end -}}

{{- define "networking-calico.labels" -}}
app.kubernetes.io/name: {{ include "networking-calico.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
