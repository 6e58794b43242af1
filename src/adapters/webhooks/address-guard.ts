/**
 * Which addresses a webhook may connect to (SSRF guard). Only plain public unicast is
 * allowed: anything ipaddr.js places in a special range (loopback, private, link-local,
 * CGNAT, unspecified, multicast, broadcast, reserved, documentation, benchmarking, unique
 * local, ...) is refused. IPv6 forms that carry an IPv4 address (mapped, translated, NAT64
 * well-known prefix, 6to4) are judged by the IPv4 address they carry, so `::ffff:127.0.0.1`
 * is refused like 127.0.0.1 while `64:ff9b::8.8.8.8` from a DNS64 resolver stays usable.
 * Fails closed: text that is not an address is refused.
 */
import ipaddr from 'ipaddr.js';

/** 2000::/3, the only IPv6 block IANA has allocated for global unicast. */
const globalUnicast = ipaddr.parseCIDR('2000::/3');
/** ::/96, deprecated IPv4-compatible addresses (RFC 4291); also holds :: and ::1. */
const ipv4Compatible = ipaddr.parseCIDR('::/96');
/** 64:ff9b::/96, the NAT64 well-known prefix (RFC 6052): the last 32 bits are IPv4. */
const nat64WellKnown = ipaddr.parseCIDR('64:ff9b::/96');

function ipv4Refusal(addr: ipaddr.IPv4): string | null {
  const range = addr.range();
  return range === 'unicast' ? null : range;
}

function fromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address an IPv6 form routes to, for the forms that carry one. */
function embeddedIPv4(addr: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | null {
  const p = addr.parts;
  const range = addr.range();
  const last = (): ipaddr.IPv4 => fromWords(p[6] ?? 0, p[7] ?? 0);
  if (range === 'ipv4Mapped' || range === 'rfc6145') return { form: range, v4: last() };
  if (addr.match(nat64WellKnown)) return { form: 'nat64', v4: last() };
  if (range === '6to4') return { form: '6to4', v4: fromWords(p[1] ?? 0, p[2] ?? 0) };
  return null;
}

function ipv6Refusal(addr: ipaddr.IPv6): string | null {
  const embedded = embeddedIPv4(addr);
  if (embedded) {
    const reason = ipv4Refusal(embedded.v4);
    return reason === null ? null : `${reason} (${embedded.form} of ${embedded.v4.toString()})`;
  }
  const range = addr.range();
  // ipaddr.js calls any unlisted address "unicast", including the IPv4-compatible forms
  // (::7f00:1) and unallocated space, hence the two explicit checks.
  if (range !== 'unicast') return range;
  if (addr.match(ipv4Compatible)) return 'ipv4Compatible';
  if (!addr.match(globalUnicast)) return 'notGlobalUnicast';
  return null;
}

/**
 * Why an address is refused as a webhook destination, or null when it is public. Accepts
 * IPv4, IPv6 (with or without brackets or a zone) and IPv4-mapped IPv6 text.
 */
export function refusalReason(text: string): string | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return 'notAnAddress';
  const addr = ipaddr.parse(bare);
  return addr.kind() === 'ipv4' ? ipv4Refusal(addr as ipaddr.IPv4) : ipv6Refusal(addr as ipaddr.IPv6);
}

export function isRefusedAddress(text: string): boolean {
  return refusalReason(text) !== null;
}
