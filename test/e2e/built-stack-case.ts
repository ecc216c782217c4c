// The built stack's case (test/image.test.ts): every process runs its bundle from dist/ with plain node, as the image
// runs them, and scans an ad tag and a zip. Run on e2e/scans.test.ts's stack when that one runs the bundles.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { b64, postJson, repoRoot, type TestStack } from "../harness/stack.ts";
import { buildZip } from "../harness/zip.ts";

export async function builtStackCase(stack: TestStack, key: string): Promise<void> {
  const tag = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64('<div style="width:300px;height:250px;background:#c00">ad</div>') }, key);
  expect(tag.status, tag.text).toBe(200);
  expect(tag.json.dimensions).toMatchObject({ width: 300, height: 250 });
  const zip = buildZip({ "index.html": '<!doctype html><meta name="ad.size" content="width=300,height=250"><div style="width:300px;height:250px;background:#0a0">z</div>' });
  const z = await postJson(`${stack.baseUrl}/v2/scanZip`, { data: zip.toString("base64") }, key);
  expect(z.status, z.text).toBe(200);
  const procs = [...stack.pids()].filter(([n]) => n !== "nats");
  for (const [name, pid] of procs) {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    expect(cmd.slice(1), name).toEqual([join(repoRoot, "dist", name, "main.js")]);
  }
}
