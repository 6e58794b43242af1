/**
 * A store whose claims are counted: the size of every claim that found something, in order,
 * and every claim made (`attempts.made`), the empty ones included.
 */
export function countingClaims<
  S extends { claimDue(now: number, limit: number, leaseUntil: number, ...rest: never[]): Promise<readonly unknown[]> },
>(store: S): { store: S; claims: number[]; attempts: { made: number } } {
  const claims: number[] = [];
  const attempts = { made: 0 };
  const claimDue = async (
    now: number,
    limit: number,
    leaseUntil: number,
    ...rest: never[]
  ): Promise<readonly unknown[]> => {
    attempts.made += 1;
    // The rest (the webhook worker's share of slots) passes through unchanged.
    const claimed = await store.claimDue(now, limit, leaseUntil, ...rest);
    if (claimed.length > 0) claims.push(claimed.length);
    return claimed;
  };
  const proxy = new Proxy(store, {
    get(target, property) {
      if (property === 'claimDue') return claimDue;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, claims, attempts };
}
