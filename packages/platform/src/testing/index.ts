export * from "./nats-server.ts";
export * from "./free-port.ts";
