#!/usr/bin/env node
// @ts-check
// `npx cva …` in a clone of this repository: npm links this workspace's bin into node_modules/.bin.
import { main } from "../src/main.mjs";

process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
