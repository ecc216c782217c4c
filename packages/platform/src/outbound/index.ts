export { OutboundError, REFUSED_PREFIX, type OutboundErrorCode } from "./errors.ts";
export { createOutboundPolicy, outboundPolicyFromEnv, staticHostResolver, type HostResolver, type OutboundPolicy, type PolicyDecision } from "./policy.ts";
export { safeFetch, safeDownload, type SafeFetchOptions, type SafeResponse, type SafeDownloadResult } from "./fetch.ts";
export { startEgressProxy, type EgressProxy, type EgressProxyOptions } from "./proxy.ts";
export { dnsResolver, safeConnect, type SafeConnectOptions, type SafeSocket } from "./connect.ts";
