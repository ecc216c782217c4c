import { auth } from "@cva/contracts";
import { methodId } from "@cva/platform";

const m = auth.AuthService.method;

// Minting and revoking keys, changing and reading quotas are the operator's: they need the admin credential, so
// the edge's service credential (or anything that steals it) cannot give itself keys or unlimited scans. The edge
// only authenticates keys and reserves/refunds quota.
export const AUTH_ADMIN_METHODS: string[] = [m.createKey, m.listKeys, m.revokeKey, m.setQuota, m.getCustomer].map((x) => methodId(auth.AuthService, x));
