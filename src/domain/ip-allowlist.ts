import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Normalises an address: IPv4-mapped IPv6 (::ffff:1.2.3.4) becomes plain IPv4. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(text)) return null;
  const addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

function parseEntry(entry: string): Range | null {
  const text = entry.trim();
  if (text.includes('/')) {
    try {
      const [addr, bits] = ipaddr.parseCIDR(text);
      return [addr, bits];
    } catch {
      return null;
    }
  }
  const addr = parseAddress(text);
  if (!addr) return null;
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

/** Checks an allowlist entry list; returns the entries that are neither an address nor a CIDR range. */
export function invalidAllowlistEntries(entries: readonly string[]): string[] {
  return entries.filter((e) => parseEntry(e) === null);
}

/** Splits `CIDR[,CIDR...]` into entries. */
export function splitAllowlist(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Whether an address is allowed by a list of single addresses and CIDR ranges, IPv4 and
 * IPv6. An empty list allows everything.
 */
export function isAllowed(entries: readonly string[], address: string): boolean {
  if (entries.length === 0) return true;
  const addr = parseAddress(address);
  if (!addr) return false;
  for (const entry of entries) {
    const range = parseEntry(entry);
    if (!range) continue;
    let [net] = range;
    const [, bits] = range;
    if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      net = (net as ipaddr.IPv6).toIPv4Address();
      if (addr.kind() === 'ipv4' && addr.match(net, bits - 96)) return true;
      continue;
    }
    if (addr.kind() === net.kind() && addr.match(net, bits)) return true;
  }
  return false;
}

/** The spec's rule: a key's own list is used alone when it has one; otherwise the account's. */
export function effectiveAllowlist(keyList: readonly string[], accountList: readonly string[]): readonly string[] {
  return keyList.length > 0 ? keyList : accountList;
}
