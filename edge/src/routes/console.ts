import type { FastifyInstance } from "fastify";
import { listSpecSets } from "@cva/spec-sets";
import { buildConsoleSite, CONSOLE_CSP } from "../console/site.ts";
import type { EdgeContext } from "../context.ts";
import { notFound } from "../errors.ts";
import { COUNTRIES, DEVICES } from "../validation/fields.ts";

// The web console (CONTRACT §4: GET /, no auth — the page asks for the key and calls the JSON API with it).
export function registerConsoleRoutes(app: FastifyInstance, ctx: EdgeContext): void {
  const site = buildConsoleSite({ specSets: listSpecSets(), devices: DEVICES, countries: COUNTRIES, limits: ctx.deps.config.limits });

  app.get("/", async (_req, reply) =>
    reply
      .header("content-type", "text/html; charset=utf-8")
      .header("content-security-policy", CONSOLE_CSP)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .header("cross-origin-opener-policy", "same-origin")
      .header("cache-control", "no-cache")
      .send(site.html),
  );

  app.get<{ Params: { file: string } }>("/console/:file", async (req, reply) => {
    const asset = site.assets.get(req.params.file);
    if (!asset) throw notFound(`no console file ${req.params.file.slice(0, 100)}`);
    return reply
      .header("content-type", asset.contentType)
      .header("x-content-type-options", "nosniff")
      // Content-hashed names: a new build is a new URL.
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(asset.body);
  });
}
