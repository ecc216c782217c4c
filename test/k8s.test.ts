// deploy/k8s/ cannot be applied here (no cluster), so it is checked the way a cluster would: every object against the
// Kubernetes and KEDA schemas (kubernetes-models and @kubernetes-models/keda ship them as validators; the generator's
// types already refuse unknown fields at type-check time), and every reference between objects, the code and the
// image — probes to ports, Services to pods, ScaledObjects to Deployments and to the consumers the workers use,
// secrets to what `npm run secrets` writes — resolved.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Service } from "kubernetes-models/v1/Service";
import { parse, parseAllDocuments } from "yaml";
import { LOCATIONS, NATS_USERS, STREAM, consumerName, natsPasswordVar } from "@cva/platform";
import { describe, expect, it } from "vitest";
import { CHROMIUM_SANDBOX_SYSCALLS } from "../scripts/lib/seccomp.ts";
import { renderDeployFiles } from "../scripts/lib/deploy/render.ts";
import { SCANNERS } from "../scripts/lib/deploy/sizing.ts";
import { HEALTH, SERVICE_NAMES, isServiceName } from "../scripts/lib/services.ts";
import { loadOrCreateSecrets, readSecretsFile } from "../scripts/lib/secrets.ts";
import { readDockerfile, userOfStage } from "./harness/dockerfile.ts";
import { repoRoot } from "./harness/stack.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const K8S = join(repoRoot, "deploy/k8s");
const MODELS: Record<string, { new (data: any): { validate(): void } }> = {
  "v1/Namespace": Namespace,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
};

type Doc = Record<string, any>;
const kustomization = parse(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as Doc;
const docs: Array<Doc & { file: string }> = (kustomization.resources as string[]).flatMap((file) =>
  parseAllDocuments(readFileSync(join(K8S, file), "utf8")).map((d) => ({ ...(d.toJS() as Doc), file })),
);
const ofKind = (kind: string) => docs.filter((d) => d.kind === kind);
const deployments = ofKind("Deployment");
const workloads = [...deployments, ...ofKind("StatefulSet")];
const containerOf = (w: Doc) => w.spec.template.spec.containers[0];
const envOf = (w: Doc): Record<string, any> => Object.fromEntries((containerOf(w).env ?? []).map((e: Doc) => [e.name, e.value ?? e.valueFrom]));
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe("deploy/k8s", () => {
  it("is what the generator renders from the code's tables (regenerate: npm run -s deploy:render)", () => {
    const rendered = renderDeployFiles(repoRoot);
    for (const [path, content] of rendered) expect(readFileSync(join(repoRoot, path), "utf8"), path).toBe(content);
    const generated = [...rendered.keys()].filter((p) => p.startsWith("deploy/k8s/")).map((p) => p.slice("deploy/k8s/".length));
    expect(readdirSync(K8S).sort()).toEqual(generated.sort());
  });

  it("validates every object against the Kubernetes and KEDA schemas", () => {
    expect(docs.length).toBeGreaterThan(20);
    for (const d of docs) {
      const Model = MODELS[`${d.apiVersion}/${d.kind}`];
      expect(Model, `${d.file}: ${d.apiVersion} ${d.kind} has a schema here`).toBeDefined();
      const { file, ...obj } = d;
      expect(() => new Model!(obj).validate(), `${file}: ${d.kind} ${d.metadata?.name}`).not.toThrow();
    }
    // The validators do catch what the schemas forbid.
    expect(() => new Deployment({ metadata: { name: "x" }, spec: { template: {} } } as any).validate()).toThrow(/selector/);
    expect(() => new ScaledObject({ metadata: { name: "x" }, spec: { scaleTargetRef: {}, triggers: [] } } as any).validate()).toThrow(/name/);
  });

  it("lists every file in kustomization.yaml, generates the NATS config from files beside it and maps every image", () => {
    const yamls = readdirSync(K8S).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    expect([...kustomization.resources].sort()).toEqual(yamls.sort());
    const gen = kustomization.configMapGenerator[0];
    expect(gen.files.sort()).toEqual(["nats-users.conf", "nats.conf"]);
    expect(readFileSync(join(K8S, "nats-users.conf"), "utf8")).toBe(readFileSync(join(repoRoot, "deploy/nats-users.conf"), "utf8"));
    expect(ofKind("StatefulSet")[0]!.spec.template.spec.volumes).toContainEqual({ name: "config", configMap: { name: gen.name } });
    const images = new Set(deployments.map((d) => containerOf(d).image));
    expect(new Set(kustomization.images.map((i: Doc) => i.name))).toEqual(images);
    // Each image is a Dockerfile target whose user the pods run as.
    const df = readDockerfile(repoRoot);
    const target: Record<string, string> = { cva: "service", "cva-tag-scanner": "tag-scanner", "cva-media-prober": "media-prober" };
    for (const d of deployments) {
      const stage = target[containerOf(d).image]!;
      expect(df.stages.map((s) => s.name), d.metadata.name).toContain(stage);
      expect(userOfStage(df, stage)).toBe(`${d.spec.template.spec.securityContext.runAsUser}:${d.spec.template.spec.securityContext.runAsGroup}`);
    }
  });

  it("runs every process, each scanner once per location, with probes on its gRPC health (the edge: /healthz)", () => {
    const names = new Set(deployments.map((d) => d.metadata.labels["app.kubernetes.io/name"]));
    expect([...names].sort()).toEqual([...SERVICE_NAMES].sort());
    for (const d of deployments) {
      const name = d.metadata.labels["app.kubernetes.io/name"];
      expect(isServiceName(name)).toBe(true);
      const c = containerOf(d);
      const h = HEALTH[name as keyof typeof HEALTH];
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
        const p = c[probe];
        if (h.kind === "grpc") expect(p.grpc, `${d.metadata.name} ${probe}`).toEqual({ port: h.port });
        else expect(p.httpGet, `${d.metadata.name} ${probe}`).toEqual({ path: h.path, port: h.port });
        expect(c.ports.map((x: Doc) => x.containerPort), d.metadata.name).toContain(h.port);
      }
      expect(envOf(d)[h.portVar], d.metadata.name).toBe(String(h.port));
      expect(envOf(d).CVA_SERVICE).toBe(name);
    }
    for (const s of SCANNERS) for (const l of LOCATIONS) expect(envOf(deployments.find((d) => d.metadata.name === `${s.name}-${l}`)!).SERVER_LOCATION).toBe(l);
  });

  it("sets requests and limits and the restricted security context on every pod", () => {
    const ns = ofKind("Namespace")[0]!;
    expect(ns.metadata.labels["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    expect(kustomization.namespace).toBe(ns.metadata.name);
    for (const w of workloads) {
      const c = containerOf(w);
      for (const k of ["requests", "limits"]) for (const r of ["cpu", "memory"]) expect(c.resources[k][r], `${w.metadata.name} ${k}.${r}`).toBeDefined();
      expect(c.securityContext, w.metadata.name).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"] } });
      expect(c.securityContext.capabilities.add, w.metadata.name).toBeUndefined();
      const pod = w.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot, w.metadata.name).toBe(true);
      expect(pod.securityContext.runAsUser, w.metadata.name).toBeGreaterThan(0);
      expect(["RuntimeDefault", "Localhost"], w.metadata.name).toContain(pod.securityContext.seccompProfile.type);
      expect(pod.automountServiceAccountToken, w.metadata.name).toBe(false);
      // A read-only root needs its scratch space mounted.
      expect(c.volumeMounts.map((m: Doc) => m.mountPath), w.metadata.name).toContain(w.kind === "StatefulSet" ? "/data" : "/tmp");
    }
    const tag = deployments.filter((d) => d.metadata.labels["app.kubernetes.io/name"] === "tag-scanner");
    for (const d of tag) expect(d.spec.template.spec.securityContext.seccompProfile).toEqual({ type: "Localhost", localhostProfile: "cva/chromium.json" });
  });

  it("hands each pod only its own credentials, all of which `npm run secrets` writes", () => {
    const dir = mkdtempSync(join(tmpdir(), "cva-k8s-"));
    loadOrCreateSecrets(join(dir, "secrets.env"), {});
    const written = new Set(Object.keys(readSecretsFile(join(dir, "secrets.env"))));
    rmSync(dir, { recursive: true, force: true });
    for (const w of workloads) {
      const env = envOf(w);
      const keys = Object.values(env).filter((v) => v?.secretKeyRef).map((v) => v.secretKeyRef.key as string);
      for (const k of keys) expect(written.has(k), `${w.metadata.name}: ${k}`).toBe(true);
      if (w.kind === "StatefulSet") {
        expect(keys.sort()).toEqual(NATS_USERS.map(natsPasswordVar).sort());
        continue;
      }
      const name = w.metadata.labels["app.kubernetes.io/name"];
      expect(env.NATS_USER).toBe(name);
      expect(env.NATS_PASSWORD.secretKeyRef.key).toBe(natsPasswordVar(name));
      expect(keys.filter((k) => k.startsWith("NATS_PASSWORD_")), w.metadata.name).toEqual([natsPasswordVar(name)]);
      expect(keys.includes("CVA_SERVICE_SECRET"), `${w.metadata.name} holds the service secret`).toBe(name === "edge");
      expect(keys.includes("CVA_ADMIN_SECRET_SHA256"), `${w.metadata.name} checks the admin credential`).toBe(name === "auth");
    }
  });

  it("has a Service per Deployment that selects its pods and names its ports", () => {
    for (const s of ofKind("Service")) {
      const selected = workloads.filter((w) => matches(s.spec.selector, w.spec.template.metadata.labels));
      expect(selected.length, `Service ${s.metadata.name}`).toBe(1);
      const names = containerOf(selected[0]!).ports.map((p: Doc) => p.name);
      for (const p of s.spec.ports) expect(names, `Service ${s.metadata.name} port ${p.name}`).toContain(p.targetPort);
    }
    for (const d of deployments) expect(ofKind("Service").some((s) => s.metadata.name === d.metadata.name), d.metadata.name).toBe(true);
  });

  it("scales each scanner of each location on its own JetStream consumer, with one slot-full replica as the target", () => {
    for (const s of SCANNERS) {
      for (const l of LOCATIONS) {
        const id = `${s.name}-${l}`;
        const d = deployments.find((x) => x.metadata.name === id)!;
        const so = ofKind("ScaledObject").find((x) => x.spec.scaleTargetRef.name === id);
        expect(so, id).toBeDefined();
        // KEDA owns the count; a count in the manifest would fight it on every apply.
        expect(d.spec.replicas, id).toBeUndefined();
        expect(so!.spec.minReplicaCount, `${id}: a kind at zero replicas never sees a job`).toBeGreaterThanOrEqual(1);
        const t = so!.spec.triggers[0];
        expect(t.type).toBe("nats-jetstream");
        expect(t.metadata).toMatchObject({ stream: STREAM, consumer: consumerName(s.kind, l), account: "$G" });
        const slotsVar = Object.keys(envOf(d)).find((k) => k.endsWith("_SLOTS"))!;
        expect(t.metadata.lagThreshold, id).toBe(envOf(d)[slotsVar]);
        expect(t.metadata.natsServerMonitoringEndpoint).toBe(`nats-headless.${kustomization.namespace}.svc.cluster.local:8222`);
      }
    }
    expect(readFileSync(join(K8S, "tag-scanner-usa.yaml"), "utf8")).toMatch(/No worker resources.*\n.*\n\s+lagThreshold/);
  });

  it("runs NATS as three nodes routed by name, with a disruption budget that keeps a quorum", () => {
    const sts = ofKind("StatefulSet")[0]!;
    expect(sts.spec.replicas).toBe(3);
    const headless = ofKind("Service").find((s) => s.spec.clusterIP === "None")!;
    expect(sts.spec.serviceName).toBe(headless.metadata.name);
    const conf = readFileSync(join(K8S, "nats.conf"), "utf8");
    for (let i = 0; i < 3; i++) expect(conf).toContain(`nats-route://${sts.metadata.name}-${i}.${headless.metadata.name}:6222`);
    expect(envOf(sts).NATS_SERVER_NAME).toEqual({ fieldRef: { fieldPath: "metadata.name" } });
    const pdb = ofKind("PodDisruptionBudget")[0]!;
    expect(matches(pdb.spec.selector.matchLabels, sts.spec.template.metadata.labels)).toBe(true);
    expect(pdb.spec.maxUnavailable).toBe(1);
    // Every app pod may reach NATS (and is a client the policy admits).
    const natsPolicy = ofKind("NetworkPolicy").find((p) => p.metadata.name === "nats")!;
    const clientSelector = natsPolicy.spec.ingress[0].from[0].podSelector.matchLabels;
    for (const d of deployments) expect(matches(clientSelector, d.spec.template.metadata.labels), d.metadata.name).toBe(true);
  });

  it("gives the tag scanner a seccomp profile with Chromium's sandbox calls and nothing conditional", () => {
    const profile = JSON.parse(readFileSync(join(repoRoot, "deploy/seccomp/chromium.json"), "utf8"));
    expect(profile.syscalls).toContainEqual(expect.objectContaining({ names: CHROMIUM_SANDBOX_SYSCALLS, action: "SCMP_ACT_ALLOW" }));
    for (const r of profile.syscalls) {
      expect(r.includes, r.names.join()).toBeUndefined();
      expect(r.excludes, r.names.join()).toBeUndefined();
      // setns is allowed (the browser's wrapper joins the network namespace the scanner made): the kernel still asks
      // for CAP_SYS_ADMIN in the namespace's owning user namespace, so a process can join only namespaces it created.
      if (r.action === "SCMP_ACT_ALLOW") for (const forbidden of ["mount", "bpf", "init_module", "reboot"]) expect(r.names).not.toContain(forbidden);
    }
    expect(profile.defaultAction).toBe("SCMP_ACT_ERRNO");
  });
});
