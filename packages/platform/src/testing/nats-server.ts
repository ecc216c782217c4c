import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnNatsServer } from "../nats/server.ts";
import { freePort } from "./free-port.ts";

// A real nats-server with JetStream for a test file: free port, temp store, removed on stop.
export async function startNatsServer(): Promise<{ url: string; port: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "cva-nats-"));
  const port = await freePort();
  const srv = await spawnNatsServer({ port, storeDir: dir });
  return {
    url: srv.url,
    port,
    async stop() {
      await srv.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
