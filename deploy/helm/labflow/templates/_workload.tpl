{{/*
One labflow Deployment with its PodDisruptionBudget and HorizontalPodAutoscaler.
(dict "root" $ "component" "api" "values" .Values.api "command" (list ...) "env" (list ...)
      "ports" (list (dict "name" "http" "port" 8000)) "probePort" 8000)
*/}}
{{- define "labflow.workload" -}}
{{- $root := .root -}}
{{- $v := .values -}}
{{- $name := printf "%s-%s" (include "labflow.fullname" $root) .component -}}
{{- $selector := include "labflow.selectorLabels" (dict "root" $root "component" .component) -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  labels:
    {{- include "labflow.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- if not (and $v.autoscaling $v.autoscaling.enabled) }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- $selector | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "labflow.labels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ .component }}
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # A changed setting rolls the pods (the environment is read once at start-up).
        checksum/config: {{ include "labflow.configData" $root | sha256sum }}
        {{- with $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      {{- include "labflow.podCommon" $root | nindent 6 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- $selector | nindent 14 }}
      containers:
        - name: {{ .component }}
          image: {{ include "labflow.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command:
            {{- toYaml .command | nindent 12 }}
          ports:
            {{- range .ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
              protocol: TCP
            {{- end }}
          envFrom:
            {{- include "labflow.envFrom" $root | nindent 12 }}
          env:
            {{- include "labflow.env" $root | nindent 12 }}
            {{- with .env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          # live: the process answers; ready: every dependency it needs answers (src/probes).
          startupProbe:
            httpGet:
              path: /health/live
              port: {{ .probePort }}
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet:
              path: /health/live
              port: {{ .probePort }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /health/ready
              port: {{ .probePort }}
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          {{- if $v.preStopSleepSeconds }}
          lifecycle:
            # Keep serving while the endpoint is removed from the Service, then SIGTERM.
            preStop:
              exec:
                command: ["sleep", "{{ $v.preStopSleepSeconds }}"]
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "labflow.volumeMounts" $root | nindent 12 }}
      volumes:
        {{- include "labflow.volumes" $root | nindent 8 }}
{{- if and $v.pdb $v.pdb.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $name }}
  labels:
    {{- include "labflow.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  minAvailable: {{ $v.pdb.minAvailable }}
  selector:
    matchLabels:
      {{- $selector | nindent 6 }}
{{- end }}
{{- if and $v.autoscaling $v.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $name }}
  labels:
    {{- include "labflow.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $name }}
  minReplicas: {{ $v.autoscaling.minReplicas }}
  maxReplicas: {{ $v.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $v.autoscaling.targetCPUUtilizationPercentage }}
    {{- if $v.autoscaling.externalMetricsEnabled }}
    {{- range $v.autoscaling.externalMetrics }}
    - type: External
      external:
        metric:
          name: {{ .name }}
          {{- with .selector }}
          selector:
            matchLabels:
              {{- toYaml . | nindent 14 }}
          {{- end }}
        target:
          type: AverageValue
          averageValue: {{ .averageValue | quote }}
    {{- end }}
    {{- end }}
{{- end }}
{{- end -}}
