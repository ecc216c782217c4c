import { defineConfig } from "vitest/config";

// Integration tests start real NATS, Chromium and ffmpeg; on a 2-core machine two test files at a time is the
// sweet spot (more only adds contention and flakiness).
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "edge/test/**/*.test.ts", "test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
