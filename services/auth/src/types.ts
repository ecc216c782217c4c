export interface ApiKeyInfo {
  keyId: string;
  customerId: string;
  createdUnix: number;
  revoked: boolean;
}

export interface CustomerInfo {
  customerId: string;
  monthlyQuota: number;
  usedThisMonth: number;
  // YYYY-MM (UTC) that usedThisMonth counts.
  month: string;
}

export type ReserveResult =
  | { ok: true; reservationId: string; remaining: number; month: string }
  | { ok: false; used: number; quota: number; month: string };

// Stored values (JSON). The plaintext key never appears in any of them.
export interface KeyRecord {
  key_id: string;
  customer_id: string;
  created_unix: number;
  revoked: boolean;
  // Hex SHA-256 of the key, also the KV key; kept in the value so Authenticate can compare in constant time.
  sha256: string;
}

export interface CustomerRecord {
  customer_id: string;
  monthly_quota: number;
  created_unix: number;
}

export interface CounterRecord {
  used: number;
}

export interface ReservationRecord {
  customer_id: string;
  month: string;
  job_id: string;
  created_unix_ms: number;
  refunded: boolean;
}
