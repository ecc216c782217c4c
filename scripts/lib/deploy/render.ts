// Every generated deployment file, by path: what `npm run -s deploy:render` writes and test/k8s.test.ts compares
// with the committed files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Document } from "yaml";
import { deployUsersConf } from "@cva/platform";
import { chromiumProfile, renderProfile } from "../seccomp.ts";
import { k8sManifests, kustomization, type Manifest } from "./k8s.ts";
import { composeNatsConf, k8sNatsConf } from "./nats-conf.ts";

const GENERATED = "Rendered by `npm run -s deploy:render` (scripts/lib/deploy/); edit the generator, not this file.";

export function renderManifest(m: Manifest): string {
  const docs = m.objects.map((o, i) => {
    const doc = new Document(o);
    if (i === 0) doc.commentBefore = [...m.header, GENERATED].map((l) => ` ${l}`).join("\n");
    for (const n of m.notes?.filter((x) => x.object === i) ?? []) {
      const parent = doc.getIn(n.path.slice(0, -1), true) as { items: Array<{ key: { value: unknown; commentBefore?: string } }> };
      const pair = parent.items.find((p) => p.key.value === n.path.at(-1));
      if (!pair) throw new Error(`${m.file}: no ${n.path.join(".")} to annotate`);
      pair.key.commentBefore = n.text.join("\n");
    }
    return doc.toString({ lineWidth: 0 });
  });
  return docs.join("---\n");
}

export function renderDeployFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  out.set("deploy/nats-cluster.conf", composeNatsConf());
  const manifests = k8sManifests();
  for (const m of manifests) out.set(`deploy/k8s/${m.file}`, renderManifest(m));
  const kust = new Document(kustomization(manifests.map((m) => m.file)));
  kust.commentBefore = [
    " The Kubernetes deployment as one kustomize base: `kubectl apply -k deploy/k8s` after creating the Secret (deploy/README.md).",
    " Overlays set the images, the namespace (also named in the ScaledObjects' natsServerMonitoringEndpoint) and PUBLIC_BASE_URL.",
    ` ${GENERATED}`,
  ].join("\n");
  out.set("deploy/k8s/kustomization.yaml", kust.toString({ lineWidth: 0 }));
  out.set("deploy/k8s/nats.conf", k8sNatsConf());
  // kustomize reads files inside its directory only, so the users file is copied next to it.
  out.set("deploy/k8s/nats-users.conf", deployUsersConf());
  out.set("deploy/seccomp/chromium.json", renderProfile(chromiumProfile(JSON.parse(readFileSync(join(root, "deploy/seccomp/moby-default.json"), "utf8")))));
  return out;
}
