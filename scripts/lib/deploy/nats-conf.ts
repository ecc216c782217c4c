// The NATS cluster's configuration, one template for docker compose (deploy/nats-cluster.conf) and Kubernetes
// (deploy/k8s/nats.conf); test/deploy.test.ts runs it as a real three-node cluster with the machine's nats-server.
// Written for nats-server ≥ 2.9 (Debian's): nothing newer is used.

export interface NatsClusterConf {
  /** Where clients connect. */
  listen: string;
  /** Where routes connect. */
  clusterListen: string;
  /** Every node's route URL, itself included (a node ignores its own). */
  routes: string[];
  /** Monitoring: loopback under compose (health check only), the pod IP in Kubernetes (KEDA reads /jsz). */
  http: string;
  storeDir: string;
  /** Why the routes need no credential of their own. */
  routesNote: string;
  /** Who reads the monitoring port. */
  httpNote: string;
  header: string[];
}

export function natsClusterConf(c: NatsClusterConf): string {
  return [
    ...c.header.map((l) => `# ${l}`.trimEnd()),
    "#",
    "# Clients (NATS_URL) list every node and fail over; JetStream's meta group needs two of three nodes up. The services",
    "# create every stream and bucket with three replicas when their server reports a cluster of three or more nodes",
    "# (packages/platform/src/nats/replicas.ts), so any one node may die (README, \"How to scale\", NATS).",
    "# Each node's name comes from its environment (NATS_SERVER_NAME); JetStream clustering needs unique names.",
    "server_name: $NATS_SERVER_NAME",
    `listen: "${c.listen}"`,
    "# A zip bundle travels inside a tag job.",
    "max_payload: 67108864",
    "# Explicit limits: without them JetStream sizes itself from the host's memory and disk, not the container's.",
    "jetstream {",
    `  store_dir: "${c.storeDir}"`,
    "  max_memory_store: 256MB",
    "  max_file_store: 20GB",
    "}",
    "",
    `# Routes: ${c.routesNote}`,
    "cluster {",
    '  name: "cva"',
    `  listen: "${c.clusterListen}"`,
    "  routes: [",
    ...c.routes.map((r) => `    "${r}"`),
    "  ]",
    "}",
    "",
    `# Monitoring: ${c.httpNote}`,
    `http: "${c.http}"`,
    "",
    "# One user per service with exactly the subjects it uses; no anonymous access (README, Security).",
    "include ./nats-users.conf",
    "",
  ].join("\n");
}

const nodes = (n: number, name: (i: number) => string) => Array.from({ length: n }, (_, i) => name(i));

export const COMPOSE_NATS_NODES = nodes(3, (i) => `nats-${i + 1}`);

export const composeNatsConf = (): string =>
  natsClusterConf({
    header: [
      "NATS for docker compose: three JetStream nodes (nats-1, nats-2, nats-3) in one cluster, each started with this",
      "file. Rendered by `npm run -s deploy:render` (scripts/lib/deploy/nats-conf.ts); do not edit by hand.",
    ],
    listen: "0.0.0.0:4222",
    clusterListen: "0.0.0.0:6222",
    routes: COMPOSE_NATS_NODES.map((n) => `nats-route://${n}:6222`),
    routesNote: "only the NATS nodes share the compose network `routes`, so routes carry no credential of their own.",
    http: "127.0.0.1:8222",
    httpNote: "on the container's own loopback — the health check reads /healthz, nobody on the network reads /connz.",
    storeDir: "/data",
  });

// StatefulSet pods nats-0..2 behind the headless Service nats-headless (deploy/k8s/nats.yaml).
export const K8S_NATS_NODES = nodes(3, (i) => `nats-${i}`);

export const k8sNatsConf = (): string =>
  natsClusterConf({
    header: [
      "NATS for Kubernetes: the StatefulSet `nats` (three pods, deploy/k8s/nats.yaml), each started with this file.",
      "Rendered by `npm run -s deploy:render` (scripts/lib/deploy/nats-conf.ts); do not edit by hand.",
    ],
    listen: "0.0.0.0:4222",
    clusterListen: "0.0.0.0:6222",
    routes: K8S_NATS_NODES.map((n) => `nats-route://${n}.nats-headless:6222`),
    routesNote: "the NetworkPolicy `nats` admits port 6222 from NATS pods only, so routes carry no credential of their own.",
    http: "0.0.0.0:8222",
    httpNote: "KEDA reads /jsz (the consumers' pending counts) and the kubelet /healthz; the NetworkPolicy `nats` admits port 8222 from the keda namespace only.",
    storeDir: "/data",
  });
