// `npm run -s keys -- <verb>`: manage API keys and quotas directly in NATS KV (through the auth service's own store,
// so no running auth service is needed). When nothing answers at a local NATS_URL, a temporary nats-server is started
// on the same data directory `npm start` uses (.data/nats), so keys made before the first `npm start` are kept.
// It connects as the NATS user `admin` (the API-key buckets only): NATS_USER/NATS_PASSWORD when set, else
// NATS_PASSWORD_ADMIN from the environment or from .data/secrets.env, where `npm start` keeps it.
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_MONTHLY_QUOTA, createAuthStore, defaultMonthlyQuotaFromEnv, type ApiKeyInfo, type CustomerInfo } from "@cva/auth";
import {
  DomainError, authorizationBlock, connectNats, envString, isAuthorizationError, literalPasswords, natsAnswers, natsAuthFromEnv, natsPasswordVar, spawnNatsServer,
  type NatsAuth, type NatsServerHandle,
} from "@cva/platform";
import { loadOrCreateSecrets, natsAuthOf, readSecretsFile } from "./lib/secrets.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const secretsFile = join(root, ".data", "secrets.env");

// Without any credential the CLI connects anonymously, which only a NATS without authorization accepts.
function adminAuth(): NatsAuth | undefined {
  const explicit = natsAuthFromEnv();
  if (explicit) return explicit;
  const password = process.env[natsPasswordVar("admin")] || readSecretsFile(secretsFile)[natsPasswordVar("admin")];
  return password ? { user: "admin", password } : undefined;
}

const USAGE = `Usage: npm run -s keys -- <command>

Commands:
  create --customer <id> [--quota <n>]   create an API key; the key is printed alone on the last line of stdout.
                                         --quota sets the customer's scans per UTC calendar month (new customers
                                         default to DEFAULT_MONTHLY_QUOTA, ${DEFAULT_MONTHLY_QUOTA}).
  list [--customer <id>]                 key ids, customers, quotas, scans used this month, revocation
  revoke <key or key id>                 revoke a key (it stops authenticating at once)
  set-quota --customer <id> --quota <n>  change a customer's monthly quota
  --help                                 this text

Environment: NATS_URL (default nats://127.0.0.1:4222); NATS_USER/NATS_PASSWORD, else the admin password
NATS_PASSWORD_ADMIN from the environment or .data/secrets.env (written by \`npm start\`).`;

class UsageError extends Error {}

const out = (line = "") => process.stdout.write(line + "\n");
const err = (line: string) => process.stderr.write(line + "\n");

type Command =
  | { verb: "help" }
  | { verb: "create"; customer: string; quota: number }
  | { verb: "list"; customer?: string }
  | { verb: "revoke"; key: string }
  | { verb: "set-quota"; customer: string; quota: number };

function parseQuota(v: string | undefined, allowZero: boolean): number {
  if (v === undefined) throw new UsageError("--quota <n> is required");
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || (!allowZero && n === 0)) {
    throw new UsageError(`--quota must be a ${allowZero ? "non-negative" : "positive"} integer (scans per month), got ${JSON.stringify(v)}`);
  }
  return n;
}

function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { customer: { type: "string" }, quota: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  const [verb, ...rest] = positionals;
  if (values.help || verb === "help") return { verb: "help" };
  if (verb === undefined) throw new UsageError("missing command");
  const noExtra = (n: number) => {
    if (rest.length > n) throw new UsageError(`unexpected argument ${JSON.stringify(rest[n])} for ${verb}`);
  };
  const customer = () => {
    if (!values.customer) throw new UsageError(`${verb} needs --customer <id>`);
    return values.customer;
  };
  switch (verb) {
    case "create":
      noExtra(0);
      return { verb, customer: customer(), quota: values.quota === undefined ? 0 : parseQuota(values.quota, false) };
    case "list":
      noExtra(0);
      if (values.quota !== undefined) throw new UsageError("list takes no --quota");
      return { verb, customer: values.customer };
    case "revoke":
      if (rest.length === 0) throw new UsageError("revoke needs the key or its key id");
      noExtra(1);
      if (values.customer !== undefined || values.quota !== undefined) throw new UsageError("revoke takes only the key or key id");
      return { verb, key: rest[0]! };
    case "set-quota":
      noExtra(0);
      return { verb, customer: customer(), quota: parseQuota(values.quota, true) };
    default:
      throw new UsageError(`unknown command ${JSON.stringify(verb)}`);
  }
}

// A temporary server only makes sense for a local URL; a remote NATS that is down is an error to report.
function localPort(natsUrl: string): number | undefined {
  const first = natsUrl.split(",")[0]!.trim();
  let u: URL;
  try {
    u = new URL(first.includes("://") ? first.replace(/^nats:/, "http:") : `http://${first}`);
  } catch {
    return undefined;
  }
  if (!["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) return undefined;
  return Number(u.port || 4222);
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
}

function describeCustomer(c: CustomerInfo): string {
  return `customer ${JSON.stringify(c.customerId)}: quota ${c.monthlyQuota} scans per UTC month, ${c.usedThisMonth} used in ${c.month}`;
}

function listing(keys: ApiKeyInfo[], customers: CustomerInfo[]): string[] {
  const byId = new Map(customers.map((c) => [c.customerId, c]));
  const rows = [["KEY ID", "CUSTOMER", "CREATED (UTC)", "REVOKED", "QUOTA", "USED"]];
  for (const k of keys) {
    const c = byId.get(k.customerId);
    rows.push([
      k.keyId,
      k.customerId,
      new Date(k.createdUnix * 1000).toISOString().slice(0, 19).replace("T", " "),
      k.revoked ? "yes" : "no",
      c ? String(c.monthlyQuota) : "-",
      c ? `${c.usedThisMonth} (${c.month})` : "-",
    ]);
  }
  return keys.length ? table(rows) : ["no keys"];
}

async function run(cmd: Exclude<Command, { verb: "help" }>): Promise<number> {
  const natsUrl = envString("NATS_URL", "nats://127.0.0.1:4222");
  let server: NatsServerHandle | undefined;
  let auth = adminAuth();
  if (!(await natsAnswers(natsUrl))) {
    const port = localPort(natsUrl);
    if (port === undefined) {
      err(`keys: no NATS server answers at ${natsUrl}`);
      return 1;
    }
    const storeDir = join(root, ".data", "nats");
    err(`keys: no NATS at ${natsUrl}; starting a temporary nats-server on 127.0.0.1:${port} (data in .data/nats)`);
    // The same users `npm start` runs with, so its services can use what this server leaves behind.
    const { secrets } = loadOrCreateSecrets(secretsFile);
    server = await spawnNatsServer({ port, storeDir, authorization: authorizationBlock(literalPasswords(secrets.nats)) });
    auth = natsAuthOf(secrets, "admin");
  }
  let nc;
  try {
    nc = await connectNats(server?.url ?? natsUrl, "keys-cli", { auth, timeoutMs: 5000 });
  } catch (e) {
    await server?.stop();
    if (!isAuthorizationError(e)) throw e;
    err(`keys: NATS at ${natsUrl} refused ${auth ? `the credentials of user ${JSON.stringify(auth.user)}` : "a connection without credentials"} (set NATS_USER/NATS_PASSWORD, or NATS_PASSWORD_ADMIN as in .data/secrets.env)`);
    return 1;
  }
  try {
    const store = await createAuthStore(nc, { defaultMonthlyQuota: defaultMonthlyQuotaFromEnv() });
    switch (cmd.verb) {
      case "create": {
        const r = await store.createKey(cmd.customer, cmd.quota);
        out(`created key ${r.key.keyId} for ${describeCustomer(r.customer)}`);
        out("the key is shown only this once:");
        out(r.apiKey);
        return 0;
      }
      case "list": {
        const r = await store.listKeys(cmd.customer);
        if (cmd.customer && r.customers.length === 0) {
          err(`keys: no customer ${JSON.stringify(cmd.customer)}`);
          return 1;
        }
        for (const line of listing(r.keys, r.customers)) out(line);
        return 0;
      }
      case "revoke": {
        const k = await store.revokeKey(cmd.key);
        if (!k) {
          err("keys: no such key (give the key itself or its key id, e.g. key_0123456789ab)");
          return 1;
        }
        out(`revoked key ${k.keyId} of customer ${JSON.stringify(k.customerId)}`);
        return 0;
      }
      case "set-quota": {
        const c = await store.setQuota(cmd.customer, cmd.quota);
        out(describeCustomer(c));
        return 0;
      }
      default: {
        const unhandled: never = cmd;
        throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
      }
    }
  } catch (e) {
    if (e instanceof DomainError) {
      err(`keys: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await nc.close();
    await server?.stop();
  }
}

async function main(): Promise<number> {
  let cmd: Command;
  try {
    cmd = parseCommand(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`keys: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (cmd.verb === "help") {
    out(USAGE);
    return 0;
  }
  return run(cmd);
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    err(`keys: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
