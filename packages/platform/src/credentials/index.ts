export * from "./secret.ts";
export * from "./service-credentials.ts";
export * from "./interceptor.ts";
