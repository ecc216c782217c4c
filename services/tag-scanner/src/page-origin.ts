import { isIP } from "node:net";
import { createOutboundPolicy, dnsResolver, type HostResolver, type OutboundPolicy } from "@cva/platform";

/**
 * The host page of an ad tag is served by interception at `targeting.page_url` (synthetic-origin.ts), so the creative
 * runs same-origin with whatever really answers at that host: it can fetch and read any path there. On the Internet
 * that is the publisher's page, which anyone can read anyway. On an address the outbound policy's allowlist opens
 * (OUTBOUND_ALLOWLIST: loopback, a private range) it would be an internal service — the proof read the tag scanner's
 * own /metrics into the creative's report. So:
 *  - a scan whose page_url host is, or resolves to, an address `pageHostPolicy` refuses (default: public unicast only,
 *    whatever the allowlist says) is refused before anything runs ("targeting.page_url: host … is not a public
 *    address");
 *  - while a scan runs, every connection the scanners' egress proxies make to its page host is held to the same rule,
 *    however the name resolves then: a name that answers a public address to the check and a private one to the
 *    creative's fetch (DNS rebinding) reaches nothing at that origin.
 * A page_url that does not resolve at all is fine: the page is interception's, and connections to it fail anyway.
 * The allowlist still lets a creative load, frame and screenshot what listens on allowlisted ranges (as any resource
 * of the creative); it never makes the creative same-origin with it.
 */
export class PageUrlRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PageUrlRefusedError";
  }
}

export interface PageOriginGuard {
  /** The policy for the scans' egress proxies: the outbound policy, with every running scan's page host held public. */
  readonly policy: OutboundPolicy;
  /**
   * Checks a scan's host page URL (undefined: the synthetic origin, nothing to check) and holds its host to public
   * addresses until the returned release is called. Throws PageUrlRefusedError with the client's message.
   */
  admit(pageUrl: string | undefined): Promise<() => void>;
}

const noop = () => {};

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * `pageHostPolicy`: which addresses a page_url host may have (default: public unicast only, through the outbound
 * policy's resolver). Tests that serve a publisher page from a loopback fixture pass one that admits loopback.
 */
export function createPageOriginGuard(outbound: OutboundPolicy, pageHostPolicy?: OutboundPolicy): PageOriginGuard {
  const resolve: HostResolver = outbound.resolve ?? dnsResolver();
  const publicOnly = pageHostPolicy ?? createOutboundPolicy([]);
  const held = new Map<string, number>();
  const refused = (host: string, why = "is not a public address") => new PageUrlRefusedError(`targeting.page_url: host ${host} ${why}`);

  const policy: OutboundPolicy = {
    // The port goes through: without it the outbound policy checks the address alone, and the browser reached every
    // port of a public host (issue 20's port rule, hole 9, never applied to creatives).
    check: (ip, port) => outbound.check(ip, port),
    describe: () => `${outbound.describe()}; a scan's page_url host: ${publicOnly.describe()}`,
    async resolve(host) {
      const ips = await resolve(host);
      const name = hostOf(`http://${host}/`);
      // An empty answer is refused by the connect step: "<host> resolves to a non-public address".
      return name !== undefined && held.has(name) ? ips.filter((ip) => publicOnly.check(ip).allowed) : ips;
    },
  };

  async function admit(pageUrl: string | undefined): Promise<() => void> {
    const host = pageUrl === undefined ? undefined : hostOf(pageUrl);
    if (host === undefined) return noop;
    if (isIP(host) !== 0) {
      if (!publicOnly.check(host).allowed) throw refused(host);
    } else if (host === "localhost" || host.endsWith(".localhost")) {
      throw refused(host);
    } else {
      const ips = await resolve(host).catch(() => [] as string[]);
      if (ips.some((ip) => !publicOnly.check(ip).allowed)) throw refused(host, "resolves to a non-public address");
    }
    held.set(host, (held.get(host) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (held.get(host) ?? 1) - 1;
      if (n > 0) held.set(host, n);
      else held.delete(host);
    };
  }

  return { policy, admit };
}
