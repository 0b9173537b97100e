{{/* Names and labels shared by every template. */}}

{{- define "labflow.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "labflow.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "labflow.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "labflow.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "api"). */}}
{{- define "labflow.selectorLabels" -}}
app.kubernetes.io/name: {{ include "labflow.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "labflow.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "labflow.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "labflow.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The Secret holding DATABASE_URL, REDIS_URL and TEMPORAL_API_KEY when given inline. */}}
{{- define "labflow.connectionsSecret" -}}
{{- printf "%s-connections" (include "labflow.fullname" .) -}}
{{- end -}}

{{- define "labflow.metricsTokenSecret" -}}
{{- default (include "labflow.connectionsSecret" .) .Values.metrics.existingSecret -}}
{{- end -}}

{{/* The Secret holding the PHI key: the user's, or the one the chart generates once. */}}
{{- define "labflow.keysSecret" -}}
{{- default (printf "%s-keys" (include "labflow.fullname" .)) .Values.keys.existingSecret -}}
{{- end -}}

{{/* The settings every labflow process needs: required values are checked here, once. */}}
{{- define "labflow.checkValues" -}}
{{- if not (or .Values.database.url .Values.database.existingSecret) -}}
{{- fail "database.url (or database.existingSecret) is required: labflow's Postgres (DATABASE_URL)" -}}
{{- end -}}
{{- if not (or .Values.redis.url .Values.redis.existingSecret) -}}
{{- fail "redis.url (or redis.existingSecret) is required: labflow's Redis (REDIS_URL)" -}}
{{- end -}}
{{- if not .Values.temporal.address -}}
{{- fail "temporal.address is required: the Temporal frontend (TEMPORAL_ADDRESS)" -}}
{{- end -}}
{{- if not .Values.publicApiUrl -}}
{{- fail "publicApiUrl is required: the API's base URL as clients reach it (PUBLIC_API_URL)" -}}
{{- end -}}
{{- end -}}

{{/*
The environment of every labflow container: the ConfigMap, then each secret value by name.
Secrets are referenced key by key, so a Secret of the user's may hold other keys too.
*/}}
{{- define "labflow.env" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ default (include "labflow.connectionsSecret" .) .Values.database.existingSecret }}
      key: {{ if .Values.database.existingSecret }}{{ .Values.database.existingSecretKey }}{{ else }}DATABASE_URL{{ end }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ default (include "labflow.connectionsSecret" .) .Values.redis.existingSecret }}
      key: {{ if .Values.redis.existingSecret }}{{ .Values.redis.existingSecretKey }}{{ else }}REDIS_URL{{ end }}
- name: PHI_ENCRYPTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "labflow.keysSecret" . }}
      key: PHI_ENCRYPTION_KEY
- name: PHI_ENCRYPTION_PREVIOUS_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ include "labflow.keysSecret" . }}
      key: PHI_ENCRYPTION_PREVIOUS_KEYS
      optional: true
- name: TEMPORAL_PAYLOAD_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "labflow.keysSecret" . }}
      key: TEMPORAL_PAYLOAD_KEY
      optional: true
- name: TEMPORAL_PAYLOAD_PREVIOUS_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ include "labflow.keysSecret" . }}
      key: TEMPORAL_PAYLOAD_PREVIOUS_KEYS
      optional: true
{{- if or .Values.temporal.apiKey .Values.temporal.apiKeyExistingSecret }}
- name: TEMPORAL_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ default (include "labflow.connectionsSecret" .) .Values.temporal.apiKeyExistingSecret }}
      key: TEMPORAL_API_KEY
{{- end }}
{{- if or .Values.metrics.token .Values.metrics.existingSecret }}
- name: METRICS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "labflow.metricsTokenSecret" . }}
      key: METRICS_TOKEN
{{- end }}
{{- if .Values.temporal.tls.existingSecret }}
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/labflow/temporal-tls/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/labflow/temporal-tls/tls.key
{{- if .Values.temporal.tls.privateCa }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/labflow/temporal-tls/ca.crt
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "labflow.envFrom" -}}
- configMapRef:
    name: {{ include "labflow.fullname" . }}
{{- with .Values.extraEnvFrom }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Volumes every labflow pod mounts: /tmp (the root filesystem is read-only) and Temporal's TLS files. */}}
{{- define "labflow.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ .Values.temporal.tls.existingSecret }}
{{- end }}
{{- end -}}

{{- define "labflow.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  mountPath: /etc/labflow/temporal-tls
  readOnly: true
{{- end }}
{{- end -}}

{{/* Pod-level settings shared by every Deployment and the migration Job. */}}
{{- define "labflow.podCommon" -}}
serviceAccountName: {{ include "labflow.serviceAccountName" . }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The ConfigMap's data: the chart's settings, then `config` (which wins). */}}
{{- define "labflow.configData" -}}
{{- $data := dict
  "API_HOST" "0.0.0.0"
  "API_PORT" (toString .Values.api.port)
  "MANAGEMENT_PORT" (toString .Values.management.port)
  "WORKER_HEALTH_PORT" "8002"
  "HL7_LISTENER_PORT" (toString (.Values.workers.hl7.service.port | default 2575))
  "PUBLIC_API_URL" .Values.publicApiUrl
  "DATABASE_POOL_MAX" (toString .Values.database.poolMax)
  "TEMPORAL_ADDRESS" .Values.temporal.address
  "TEMPORAL_NAMESPACE" .Values.temporal.namespace -}}
{{- with .Values.temporal.uiUrl }}{{ $_ := set $data "TEMPORAL_UI_URL" . }}{{ end -}}
{{- if .Values.temporal.tls.enabled }}{{ $_ := set $data "TEMPORAL_TLS" "true" }}{{ end -}}
{{- with .Values.temporal.tls.serverName }}{{ $_ := set $data "TEMPORAL_TLS_SERVER_NAME" . }}{{ end -}}
{{- range $name, $value := .Values.config }}{{ $_ := set $data $name (toString $value) }}{{ end -}}
{{- range $name, $value := $data }}
{{ $name }}: {{ $value | quote }}
{{- end }}
{{- end -}}
