// `npm run -s secrets`: make sure .data/secrets.env holds every credential of this installation (generating the
// missing ones, mode 0600), e.g. before `docker compose --env-file .data/secrets.env up`. Nothing is printed but
// the file's path and the names generated: the values stay in the file.
// `npm run -s secrets -- --deploy-conf` also rewrites deploy/nats-users.conf from the permission table.
import { writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { deployUsersConf } from "@cva/platform";
import { loadOrCreateSecrets } from "./lib/secrets.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const file = join(root, ".data", "secrets.env");
// Only the file counts here: it is what compose reads, whatever this shell exports.
const { created } = loadOrCreateSecrets(file, {});
process.stdout.write(created.length ? `generated ${created.join(", ")} in ${file}\n` : `${file} already holds every credential\n`);
if (process.argv.includes("--deploy-conf")) {
  writeFileSync(join(root, "deploy", "nats-users.conf"), deployUsersConf());
  process.stdout.write("rewrote deploy/nats-users.conf\n");
}
