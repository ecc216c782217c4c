import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  SPEC_SETS, audioFileTests, imageFileTests, mediaFileTests, tagTests, vastXmlTests, videoFileTests, zipTests, type Scope, type TestMeta,
} from "../src/index.ts";
import { updateReadme } from "../src/doc.ts";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const folders: Record<Scope, { dir: string; registry: ReadonlyMap<string, { meta: TestMeta }> }> = {
  tag: { dir: "src/checks/tag", registry: tagTests },
  vast_xml: { dir: "src/checks/vast/xml", registry: vastXmlTests },
  vast_mediafile: { dir: "src/checks/vast/mediafile", registry: mediaFileTests },
  zip: { dir: "src/checks/zip", registry: zipTests },
  video_file: { dir: "src/checks/video", registry: videoFileTests },
  image_file: { dir: "src/checks/image", registry: imageFileTests },
  audio_file: { dir: "src/checks/audio", registry: audioFileTests },
};

describe("test modules", () => {
  for (const [scope, { dir, registry }] of Object.entries(folders)) {
    it(`${dir}: every file name equals its test id, and the registry lists exactly these files`, async () => {
      const files = readdirSync(join(pkg, dir)).filter((f) => f.endsWith(".ts"));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const id = basename(file, ".ts");
        const mod = (await import(join(pkg, dir, file))) as Record<string, { meta?: TestMeta; measure?: unknown }>;
        const test = mod[id];
        expect(test?.meta?.id, `${dir}/${file} must export "${id}" with meta.id "${id}"`).toBe(id);
        expect(typeof test?.measure).toBe("function");
        expect(["int", "float", "bool"]).toContain(test!.meta!.data_type);
        expect(test!.meta!.name).not.toBe("");
        expect(test!.meta!.description).not.toBe("");
        expect(registry.get(id), `${scope} registry must list ${id}`).toBe(test);
      }
      expect([...registry.keys()].sort()).toEqual(files.map((f) => basename(f, ".ts")).sort());
    });
  }
});

describe("spec sets are consistent data", () => {
  for (const set of SPEC_SETS.values()) {
    describe(`spec set ${set.id} (${set.name})`, () => {
      it("every rule names an existing test module, once per scope", () => {
        const seen = new Set<string>();
        for (const r of set.rules) {
          expect(folders[r.scope].registry.has(r.test), `${r.scope}/${r.test}`).toBe(true);
          expect(seen.has(`${r.scope}/${r.test}`), `duplicate ${r.scope}/${r.test}`).toBe(false);
          seen.add(`${r.scope}/${r.test}`);
        }
        for (const o of set.omitted) {
          expect(folders[o.scope].registry.has(o.test)).toBe(true);
          expect(seen.has(`${o.scope}/${o.test}`), `${o.test} is both used and omitted`).toBe(false);
          expect(o.reason.trim()).not.toBe("");
        }
      });

      it("every threshold has a non-empty source; product defaults say why", () => {
        for (const r of set.rules) {
          expect(r.source.trim(), `${r.test} source`).not.toBe("");
          if (r.basis === "product_default") expect(r.reason?.trim(), `${r.test} reason`).toBeTruthy();
          // An IAB figure cites its row of the guidelines; the lint tests cite the IAB VAST/VMAP texts themselves.
          if (r.basis === "iab") expect(r.source).toMatch(/spec\/iab-guidelines\.md, row|^IAB VAST 2\.0, 3\.0, 4\.0, 4\.1, 4\.2 and 4\.3 \(/);
          // An industry figure cites its row of the guidelines, or (zips, WCAG: not in the guidelines) the public text itself.
          if (r.basis === "industry") expect(r.source).toMatch(/spec\/iab-guidelines\.md, row|support\.google\.com\/|w3\.org\/TR\/WCAG22\//);
        }
      });

      it("operators match their expected values, and every expected value has text", () => {
        const thresholds = set.rules.flatMap((r) =>
          r.kind === "fixed" ? [{ op: r.operator, ...r }] : Object.values(r.table).map((e) => ({ op: r.operator, ...e })),
        );
        for (const t of thresholds) {
          expect(t.expected_text.trim()).not.toBe("");
          if (t.op === "><") {
            expect(Array.isArray(t.expected)).toBe(true);
            const [lo, hi] = t.expected as readonly [number, number];
            expect(lo).toBeLessThanOrEqual(hi);
          } else {
            expect(typeof t.expected).toBe("number");
          }
        }
      });
    });
  }

  it("spec set 0 decides about every test module: used or omitted with a reason", () => {
    const set0 = SPEC_SETS.get(0)!;
    const decided = new Set([...set0.rules, ...set0.omitted].map((r) => `${r.scope}/${r.test}`));
    for (const [scope, { registry }] of Object.entries(folders)) {
      for (const id of registry.keys()) expect(decided.has(`${scope}/${id}`), `${scope}/${id}`).toBe(true);
    }
  });
});

describe("README", () => {
  it("its spec-set tables match the data (regenerate with npm run readme -w @cva/spec-sets)", () => {
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    expect(updateReadme(readme)).toBe(readme);
  });
});
