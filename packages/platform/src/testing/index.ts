export * from "./nats-server.ts";
export * from "./free-port.ts";
export * from "./credentials.ts";
export * from "./nats-cluster.ts";
export * from "./until.ts";
export * from "./corpus.ts";
