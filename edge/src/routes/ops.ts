import type { FastifyInstance } from "fastify";
import { SCANNER_KINDS } from "../constants.ts";
import type { EdgeContext } from "../context.ts";
import { buildOpenApi } from "../openapi.ts";
import type { EdgeDeps, Readiness } from "../ports.ts";
import { DOCS_ASSETS, docsCsp, sendAsset } from "../report-page/assets.ts";
import { renderDocsPage } from "../report-page/docs.ts";

/** Readiness from the dispatcher's live worker set plus caller-supplied probes of auth and report-store. */
export function createReadiness(
  dispatcher: EdgeDeps["dispatcher"],
  probes: Record<string, () => Promise<boolean>>,
): () => Promise<Readiness> {
  return async () => {
    const details: Record<string, unknown> = {};
    let ready = true;
    await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => {
        const ok = await probe().catch(() => false);
        details[name] = ok ? "ok" : "not answering";
        if (!ok) ready = false;
      }),
    );
    const workers: Record<string, number> = {};
    for (const [name, kind] of SCANNER_KINDS) {
      workers[name] = dispatcher.liveWorkers(kind).length;
      if (workers[name] === 0) ready = false;
    }
    details.workers = workers;
    return { ready, details };
  };
}

export function registerOpsRoutes(app: FastifyInstance, ctx: EdgeContext): void {
  const { config } = ctx.deps;
  const openapi = buildOpenApi({ publicBaseUrl: config.publicBaseUrl, limits: config.limits });
  const openapiJson = JSON.stringify(openapi);
  const docsHtml = renderDocsPage(openapi);
  const readiness = ctx.deps.readiness ?? createReadiness(ctx.deps.dispatcher, {});

  app.get("/healthz", async (_req, reply) => reply.send({ status: "ok" }));

  app.get("/readyz", async (_req, reply) => {
    const r = await readiness().catch((): Readiness => ({ ready: false, details: { error: "readiness check failed" } }));
    return reply.code(r.ready ? 200 : 503).send({ ready: r.ready, details: r.details });
  });

  app.get("/openapi.json", async (_req, reply) => reply.header("content-type", "application/json; charset=utf-8").send(openapiJson));

  const docsPolicy = docsCsp(config.publicBaseUrl);
  app.get("/docs", async (_req, reply) =>
    reply
      .header("content-type", "text/html; charset=utf-8")
      .header("content-security-policy", docsPolicy)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .send(docsHtml),
  );
  for (const asset of DOCS_ASSETS) app.get(asset.path, async (req, reply) => sendAsset(req, reply, asset));

  // No /metrics here: this is the public port, and metrics (routes, outcomes, process internals) are for operators.
  // main.ts serves the same registry on METRICS_PORT, bound to BIND_HOST (loopback by default).
}
