// deploy/k8s/: the Kubernetes manifests, rendered from the same tables the code uses — service names and health
// ports (../services.ts), sizing and slots (sizing.ts), NATS users, consumers and locations (@cva/platform) — so a
// renamed consumer or a changed slot count cannot leave a stale manifest behind (test/k8s.test.ts compares).
//
// Layout: one kustomize base. Per process a Deployment and a Service; scanners once per location
// (<name>-<location>, SERVER_LOCATION=<location>), each with a KEDA ScaledObject on its own JetStream consumer; NATS
// as a three-pod StatefulSet with a PodDisruptionBudget; NetworkPolicies that admit only the traffic the design
// has. Overlays set the images, the namespace and PUBLIC_BASE_URL.
// Typed with the Kubernetes and KEDA models' interfaces, so `npm run typecheck` refuses a misspelt or misplaced field
// (object literals get excess-property checks) — the schemas' own validators (test/k8s.test.ts) cannot, since
// Kubernetes' OpenAPI schemas allow unknown properties.
import type { IScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import type { IStatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IAffinity } from "kubernetes-models/v1/Affinity";
import type { IContainer } from "kubernetes-models/v1/Container";
import type { IContainerPort } from "kubernetes-models/v1/ContainerPort";
import type { IEnvVar } from "kubernetes-models/v1/EnvVar";
import type { INamespace } from "kubernetes-models/v1/Namespace";
import type { IService } from "kubernetes-models/v1/Service";
import type { IServicePort } from "kubernetes-models/v1/ServicePort";
import type { IVolume } from "kubernetes-models/v1/Volume";
import type { IVolumeMount } from "kubernetes-models/v1/VolumeMount";
import { LOCATIONS, NATS_USERS, STREAM, consumerName, natsPasswordVar, type NatsUser } from "@cva/platform";
import { HEALTH, SERVICE_NAMES, type ServiceName } from "../services.ts";
import { QUEUE_PER_SLOT, SCANNERS, SIZING } from "./sizing.ts";

export const NAMESPACE = "cva";
export const SECRET = "cva-secrets";
export const IMAGES = { service: "cva", "tag-scanner": "cva-tag-scanner", "media-prober": "cva-media-prober" } as const;
export const NATS_IMAGE = "nats:2.14.5-alpine";
export const CHROMIUM_SECCOMP = "cva/chromium.json";
const UID = 10001;
const PART_OF = { "app.kubernetes.io/part-of": "creative-validation-api" };
const NATS_CLIENT = "cva/nats-client";
const EGRESS = "cva/egress";
const LOCATION = "cva/location";
// Internet egress for the scanners that fetch creatives: every address but the private, loopback and link-local
// ranges (the outbound policy checks again on every connection; this keeps a compromised scanner off the cluster).
const PRIVATE_V4 = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "127.0.0.0/8"];
const PRIVATE_V6 = ["fc00::/7", "fe80::/10", "::1/128"];

export type K8sObject = INamespace | IDeployment | IStatefulSet | IService | IPodDisruptionBudget | INetworkPolicy | IScaledObject;
export interface Manifest {
  file: string;
  header: string[];
  objects: K8sObject[];
  /** Comments placed before a key: [object index, path to the key]. */
  notes?: Array<{ object: number; path: (string | number)[]; text: string[] }>;
}

const imageOf = (name: ServiceName) => (name === "tag-scanner" || name === "media-prober" ? IMAGES[name] : IMAGES.service);
const userOf = (name: ServiceName): NatsUser => name as NatsUser;
const secretEnv = (name: string, key: string): IEnvVar => ({ name, valueFrom: { secretKeyRef: { name: SECRET, key } } });
const metricsPortOf = (name: ServiceName) => (name === "edge" ? 9200 : 9200 + SERVICE_NAMES.indexOf(name));

function env(name: ServiceName, location: string | undefined): IEnvVar[] {
  const h = HEALTH[name];
  const out: IEnvVar[] = [
    { name: "CVA_SERVICE", value: name },
    { name: "NATS_URL", value: "nats://nats:4222" },
    { name: "NATS_USER", value: userOf(name) },
    secretEnv("NATS_PASSWORD", natsPasswordVar(userOf(name))),
    // Listeners on the pod's addresses; NetworkPolicies decide who reaches them.
    { name: "BIND_HOST", value: "0.0.0.0" },
    { name: h.portVar, value: String(h.port) },
    { name: "METRICS_PORT", value: String(metricsPortOf(name)) },
    { name: "LOG_LEVEL", value: "info" },
  ];
  if (name === "edge") {
    out.push(
      // Presented to auth and report-store; nobody else holds it.
      secretEnv("CVA_SERVICE_SECRET", "CVA_SERVICE_SECRET"),
      { name: "GRPC_PORT", value: "8081" },
      { name: "HOST", value: "0.0.0.0" },
      { name: "PUBLIC_BASE_URL", value: "https://cva.example.com" },
      { name: "AUTH_URL", value: "http://auth:9101" },
      { name: "REPORT_STORE_URL", value: "http://report-store:9102" },
      // Scans without targeting.country run here.
      { name: "SERVER_LOCATION", value: "usa" },
    );
  } else {
    out.push(secretEnv("CVA_SERVICE_SECRET_SHA256", "CVA_SERVICE_SECRET_SHA256"));
  }
  if (name === "auth") out.push(secretEnv("CVA_ADMIN_SECRET_SHA256", "CVA_ADMIN_SECRET_SHA256"));
  const slots = SIZING[name].slots;
  if (slots) out.push({ name: slots.variable, value: String(slots.value) });
  if (location) out.push({ name: "SERVER_LOCATION", value: location });
  if (name === "media-prober") out.push({ name: "MEDIA_PROBER_WORK_DIR", value: "/scratch" });
  return out;
}

function probes(name: ServiceName): Pick<IContainer, "startupProbe" | "readinessProbe" | "livenessProbe"> {
  const h = HEALTH[name];
  const action = h.kind === "grpc" ? { grpc: { port: h.port } } : { httpGet: { path: h.path, port: h.port } };
  return {
    // Chromium's first launch and NATS' first connection take seconds; probes start once this passes.
    startupProbe: { ...action, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 60 },
    readinessProbe: { ...action, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 },
    livenessProbe: { ...action, periodSeconds: 20, timeoutSeconds: 5, failureThreshold: 3 },
  };
}

function labelsOf(name: ServiceName, location?: string): Record<string, string> {
  return { "app.kubernetes.io/name": name, ...PART_OF, ...(location ? { [LOCATION]: location } : {}) };
}

function deployment(name: ServiceName, location?: string): IDeployment {
  const id = location ? `${name}-${location}` : name;
  const size = SIZING[name];
  const h = HEALTH[name];
  const fetches = name === "tag-scanner" || name === "vast-analyzer" || name === "media-prober";
  const podLabels = { ...labelsOf(name, location), [NATS_CLIENT]: "true", ...(fetches ? { [EGRESS]: "internet" } : {}) };
  const ports: IContainerPort[] =
    name === "edge"
      ? [
          { name: "http", containerPort: 8080 },
          { name: "grpc", containerPort: 8081 },
          { name: "metrics", containerPort: 9200 },
        ]
      : [
          { name: "grpc", containerPort: h.port },
          { name: "metrics", containerPort: metricsPortOf(name) },
        ];
  const volumes: IVolume[] = [{ name: "tmp", emptyDir: { medium: "Memory", sizeLimit: size.tmp } }];
  const mounts: IVolumeMount[] = [{ name: "tmp", mountPath: "/tmp" }];
  if (name === "tag-scanner") {
    volumes.push({ name: "dshm", emptyDir: { medium: "Memory", sizeLimit: "256Mi" } });
    mounts.push({ name: "dshm", mountPath: "/dev/shm" });
  }
  if (name === "media-prober") {
    // Downloads (≤ 200 MB each, one per slot) go to disk, not to memory.
    volumes.push({ name: "scratch", emptyDir: { sizeLimit: "1Gi" } });
    mounts.push({ name: "scratch", mountPath: "/scratch" });
  }
  const seccompProfile = name === "tag-scanner" ? { type: "Localhost" as const, localhostProfile: CHROMIUM_SECCOMP } : { type: "RuntimeDefault" as const };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: id, labels: labelsOf(name, location) },
    spec: {
      // Stateless (state is in NATS): two for availability. Scanners have no count here: KEDA's ScaledObject owns it,
      // and a count in the manifest would reset it on every apply.
      ...(location ? {} : { replicas: 2 }),
      revisionHistoryLimit: 3,
      selector: { matchLabels: labelsOf(name, location) },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: podLabels },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          // A scanner finishes the scans it holds on SIGTERM (its jobs are acked only when done; anything left is
          // redelivered after SCAN_ACK_WAIT_MS).
          terminationGracePeriodSeconds: name === "tag-scanner" || name === "media-prober" ? 60 : 30,
          securityContext: { runAsNonRoot: true, runAsUser: UID, runAsGroup: UID, fsGroup: UID, seccompProfile },
          ...(location ? { affinity: locationAffinity(location) } : {}),
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: labelsOf(name, location) } },
          ],
          containers: [
            {
              name,
              image: imageOf(name),
              imagePullPolicy: "IfNotPresent",
              ports,
              env: env(name, location),
              resources: {
                requests: { cpu: size.cpu.request, memory: size.memory.request },
                limits: { cpu: size.cpu.limit, memory: size.memory.limit },
              },
              ...probes(name),
              securityContext: {
                allowPrivilegeEscalation: false,
                privileged: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ["ALL"] },
              },
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  };
}

// Where a location's scanners run: nodes labelled cva/location=<location> (a node pool whose egress is in that
// country) when there are any. Preferred, not required, so a single-region cluster still runs every location.
function locationAffinity(location: string): IAffinity {
  return {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 100, preference: { matchExpressions: [{ key: LOCATION, operator: "In", values: [location] }] } },
      ],
    },
  };
}

function service(name: ServiceName, location?: string): IService {
  const id = location ? `${name}-${location}` : name;
  const ports: IServicePort[] =
    name === "edge"
      ? [
          { name: "http", port: 8080, targetPort: "http" },
          { name: "grpc", port: 8081, targetPort: "grpc", appProtocol: "kubernetes.io/h2c" },
          { name: "metrics", port: 9200, targetPort: "metrics" },
        ]
      : [
          { name: "grpc", port: HEALTH[name].port, targetPort: "grpc", appProtocol: "kubernetes.io/h2c" },
          { name: "metrics", port: metricsPortOf(name), targetPort: "metrics" },
        ];
  return { apiVersion: "v1", kind: "Service", metadata: { name: id, labels: labelsOf(name, location) }, spec: { type: "ClusterIP", selector: labelsOf(name, location), ports } };
}

/** lagThreshold = slots: KEDA's metric is the consumer's num_pending + num_ack_pending (queued + running). */
export const lagThresholdOf = (name: ServiceName) => SIZING[name].slots!.value;

function scaledObject(name: ServiceName, kind: (typeof SCANNERS)[number], location: string): IScaledObject {
  const id = `${name}-${location}`;
  return {
    apiVersion: "keda.sh/v1alpha1",
    kind: "ScaledObject",
    metadata: { name: id, labels: labelsOf(name, location) },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: id },
      // Never 0: a requester with no live worker of a kind/location answers "no worker resources" at once, so the
      // job never reaches the queue this scaler reads and a scaled-to-zero kind would never wake up.
      minReplicaCount: 1,
      maxReplicaCount: kind.maxReplicas,
      pollingInterval: 5,
      cooldownPeriod: 300,
      advanced: {
        horizontalPodAutoscalerConfig: {
          behavior: {
            scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
            scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
          },
        },
      },
      triggers: [
        {
          type: "nats-jetstream",
          metadata: {
            // KEDA follows the consumer's leader from here (it reads /varz and /jsz of each node). Names the
            // namespace: change it with the namespace.
            natsServerMonitoringEndpoint: `nats-headless.${NAMESPACE}.svc.cluster.local:8222`,
            account: "$G",
            stream: STREAM,
            consumer: consumerName(kind.kind, location),
            lagThreshold: String(lagThresholdOf(name)),
          },
        },
      ],
    },
  };
}

function scalingNote(name: ServiceName): string[] {
  const s = SIZING[name].slots!;
  const refuse = (1 + QUEUE_PER_SLOT) * s.value;
  return [
    ` Target ${s.value} jobs per replica = its ${s.variable}=${s.value} slots busy and nothing queued. KEDA's metric is the`,
    ` consumer's num_pending + num_ack_pending (queued + running), replicas = ceil(metric / ${s.value}).`,
    ` "No worker resources": requesters refuse new scans once num_pending >= SCAN_QUEUE_PER_SLOT (${QUEUE_PER_SLOT}) x live slots,`,
    ` i.e. at a metric of ${refuse} per replica (${1 + QUEUE_PER_SLOT}x this target) — scale-out starts well before refusals do.`,
  ];
}

function natsObjects(): [IStatefulSet, IService, IService, IPodDisruptionBudget] {
  const labels = { "app.kubernetes.io/name": "nats", ...PART_OF };
  const ports = [
    { name: "client", containerPort: 4222 },
    { name: "cluster", containerPort: 6222 },
    { name: "monitor", containerPort: 8222 },
  ];
  const health = (path: string, o: Omit<NonNullable<IContainer["livenessProbe"]>, "httpGet">) => ({ httpGet: { path, port: "monitor" }, ...o });
  return [
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "nats", labels },
      spec: {
        serviceName: "nats-headless",
        replicas: 3,
        // All three start together: JetStream's meta group needs a quorum before any of them is ready.
        podManagementPolicy: "Parallel",
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            terminationGracePeriodSeconds: 60,
            securityContext: { runAsNonRoot: true, runAsUser: UID, runAsGroup: UID, fsGroup: UID, seccompProfile: { type: "RuntimeDefault" } },
            topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: labels } }],
            containers: [
              {
                name: "nats",
                image: NATS_IMAGE,
                imagePullPolicy: "IfNotPresent",
                args: ["-c", "/etc/nats/nats.conf"],
                ports,
                env: [
                  { name: "NATS_SERVER_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                  // The Go runtime's own view of the memory limit below.
                  { name: "GOMEMLIMIT", value: "900MiB" },
                  // nats-users.conf reads every user's password from here.
                  ...NATS_USERS.map((u) => secretEnv(natsPasswordVar(u), natsPasswordVar(u))),
                ],
                resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "1Gi" } },
                startupProbe: health("/healthz?js-enabled-only=true", { periodSeconds: 2, failureThreshold: 90 }),
                livenessProbe: health("/healthz?js-enabled-only=true", { periodSeconds: 30, timeoutSeconds: 5, failureThreshold: 3 }),
                readinessProbe: health("/healthz?js-server-only=true", { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 }),
                securityContext: { allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"] } },
                volumeMounts: [
                  { name: "config", mountPath: "/etc/nats", readOnly: true },
                  { name: "data", mountPath: "/data" },
                ],
              },
            ],
            volumes: [{ name: "config", configMap: { name: "nats-config" } }],
          },
        },
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } } },
        ],
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "nats", labels },
      spec: { type: "ClusterIP", selector: labels, ports: [{ name: "client", port: 4222, targetPort: "client" }] },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "nats-headless", labels },
      spec: {
        clusterIP: "None",
        // Routes and KEDA find every node by name, ready or not (a node is not ready until the cluster forms).
        publishNotReadyAddresses: true,
        selector: labels,
        ports: [
          { name: "client", port: 4222, targetPort: "client" },
          { name: "cluster", port: 6222, targetPort: "cluster" },
          { name: "monitor", port: 8222, targetPort: "monitor" },
        ],
      },
    },
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "nats", labels },
      // JetStream needs two of three nodes: drains take one at a time.
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
  ];
}

function networkPolicies(): INetworkPolicy[] {
  const np = (name: string, spec: INetworkPolicy["spec"]): INetworkPolicy => ({ apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, labels: PART_OF }, spec });
  const app = (name: string) => ({ podSelector: { matchLabels: { "app.kubernetes.io/name": name } } });
  const tcp = (port: number) => ({ protocol: "TCP" as const, port });
  const ns = (name: string) => ({ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": name } } });
  return [
    np("default-deny", { podSelector: {}, policyTypes: ["Ingress", "Egress"] }),
    np("dns", {
      podSelector: {},
      policyTypes: ["Egress"],
      egress: [{ to: [ns("kube-system")], ports: [{ protocol: "UDP" as const, port: 53 }, tcp(53)] }],
    }),
    np("nats", {
      ...app("nats"),
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        { from: [{ podSelector: { matchLabels: { [NATS_CLIENT]: "true" } } }], ports: [tcp(4222)] },
        { from: [app("nats")], ports: [tcp(6222)] },
        // KEDA's nats-jetstream scaler reads /varz and /jsz.
        { from: [ns("keda")], ports: [tcp(8222)] },
      ],
      egress: [{ to: [app("nats")], ports: [tcp(6222)] }],
    }),
    np("nats-clients", {
      podSelector: { matchLabels: { [NATS_CLIENT]: "true" } },
      policyTypes: ["Egress"],
      egress: [{ to: [app("nats")], ports: [tcp(4222)] }],
    }),
    np("edge", {
      ...app("edge"),
      policyTypes: ["Ingress", "Egress"],
      // The public API, from wherever the ingress controller or load balancer runs.
      ingress: [{ ports: [tcp(8080), tcp(8081)] }],
      egress: [
        { to: [app("auth")], ports: [tcp(HEALTH.auth.port)] },
        { to: [app("report-store")], ports: [tcp(HEALTH["report-store"].port)] },
      ],
    }),
    np("auth", { ...app("auth"), policyTypes: ["Ingress"], ingress: [{ from: [app("edge")], ports: [tcp(HEALTH.auth.port)] }] }),
    np("report-store", {
      ...app("report-store"),
      policyTypes: ["Ingress"],
      ingress: [{ from: [app("edge")], ports: [tcp(HEALTH["report-store"].port)] }],
    }),
    np("scanner-egress", {
      podSelector: { matchLabels: { [EGRESS]: "internet" } },
      policyTypes: ["Egress"],
      egress: [{ to: [{ ipBlock: { cidr: "0.0.0.0/0", except: PRIVATE_V4 } }, { ipBlock: { cidr: "::/0", except: PRIVATE_V6 } }] }],
    }),
    np("metrics", {
      podSelector: { matchLabels: PART_OF },
      policyTypes: ["Ingress"],
      // Prometheus in the namespace `monitoring`: change to where yours runs.
      ingress: [{ from: [ns("monitoring")], ports: SERVICE_NAMES.map((n) => tcp(metricsPortOf(n))) }],
    }),
  ];
}

export function k8sManifests(): Manifest[] {
  const out: Manifest[] = [
    {
      file: "namespace.yaml",
      header: ["The namespace; Pod Security Admission enforces the restricted profile on every pod in it."],
      objects: [
        {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: {
            name: NAMESPACE,
            labels: { ...PART_OF, "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest" },
          },
        },
      ],
    },
    {
      file: "nats.yaml",
      header: [
        "NATS: three JetStream nodes (StatefulSet), their client and headless Services, and a PodDisruptionBudget that lets",
        "drains take one node at a time (JetStream needs two of three). Configuration: nats.conf + nats-users.conf (the",
        `ConfigMap nats-config, kustomization.yaml); passwords from the Secret ${SECRET}.`,
      ],
      objects: natsObjects(),
    },
    {
      file: "network-policies.yaml",
      header: [
        "Who may talk to whom: nothing unless listed. NATS clients reach NATS; the edge reaches auth and report-store; only",
        "the scanners that fetch creatives reach the Internet, and no private address; KEDA reads NATS' monitoring port.",
        "Kubelet probes come from the node and are admitted by common CNIs regardless of these policies.",
      ],
      objects: networkPolicies(),
    },
  ];
  for (const name of ["edge", "auth", "report-store"] as const) {
    out.push({ file: `${name}.yaml`, header: [`${name}: Deployment and Service.`], objects: [deployment(name), service(name)] });
  }
  for (const scanner of SCANNERS) {
    for (const location of LOCATIONS) {
      out.push({
        file: `${scanner.name}-${location}.yaml`,
        header: [
          `${scanner.name} for location ${location} (SERVER_LOCATION=${location}): works the jobs targeted at ${location} only.`,
          "Deployment, Service and the KEDA ScaledObject that sizes it on its JetStream consumer.",
          ...(scanner.name === "tag-scanner"
            ? [
                `Chromium's sandbox: the pod's seccomp profile is Localhost ${CHROMIUM_SECCOMP} — deploy/seccomp/chromium.json installed on`,
                "every node that runs it (deploy/README.md); the node's kernel must allow unprivileged user namespaces.",
              ]
            : []),
        ],
        objects: [deployment(scanner.name, location), service(scanner.name, location), scaledObject(scanner.name, scanner, location)],
        notes: [{ object: 2, path: ["spec", "triggers", 0, "metadata", "lagThreshold"], text: scalingNote(scanner.name) }],
      });
    }
  }
  return out;
}

export function kustomization(files: string[]): Record<string, unknown> {
  return {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    namespace: NAMESPACE,
    resources: files,
    configMapGenerator: [{ name: "nats-config", files: ["nats.conf", "nats-users.conf"] }],
    // Replace with your registry and an immutable tag or digest in an overlay (kustomize edit set image).
    images: [
      { name: IMAGES.service, newName: "registry.example.com/cva", newTag: "0.0.0" },
      { name: IMAGES["tag-scanner"], newName: "registry.example.com/cva-tag-scanner", newTag: "0.0.0" },
      { name: IMAGES["media-prober"], newName: "registry.example.com/cva-media-prober", newTag: "0.0.0" },
    ],
  };
}

export const SECRET_KEYS = (): string[] => [
  "CVA_SERVICE_SECRET",
  "CVA_SERVICE_SECRET_SHA256",
  "CVA_ADMIN_SECRET_SHA256",
  ...NATS_USERS.map(natsPasswordVar),
];
