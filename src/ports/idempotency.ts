/** Idempotency keys of send requests: a key names one request and its answer for 24 hours. */
export interface IdempotentAnswer {
  requestHash: string;
  response: string;
  createdAt: number;
}

export interface IdempotencyStore {
  find(accountId: number, key: string): Promise<IdempotentAnswer | null>;
  /** Claims a key for a request and its answer; false when another request holds it (younger than 24 hours). */
  save(accountId: number, key: string, requestHash: string, response: string, now: number): Promise<boolean>;
  /** Releases a key claimed by a request that was then refused. */
  forget(accountId: number, key: string): Promise<void>;
}
