/**
 * How a refusal of the API's rules answers an SMPP client (docs/smpp.md, "Customers over
 * SMPP", the table): the service's result code becomes a submit_sm_resp command_status.
 * Temporary conditions (rates and limits) are ESME_RTHROTTLED, which clients such as
 * Kannel retry; everything else is final.
 */
import type { ResultCode } from '../domain/result-codes.js';
import type { Failure } from '../domain/result.js';

/** SMPP 3.4 command_status values the server answers with (section 5.1.3). */
export const CommandStatus = {
  ROK: 0x00,
  RINVMSGLEN: 0x01,
  RINVCMDLEN: 0x02,
  RINVCMDID: 0x03,
  RINVBNDSTS: 0x04,
  RALYBND: 0x05,
  RSYSERR: 0x08,
  RINVSRCADR: 0x0a,
  RINVDSTADR: 0x0b,
  RBINDFAIL: 0x0d,
  RINVPASWD: 0x0e,
  RINVSYSID: 0x0f,
  RMSGQFUL: 0x14,
  RINVESMCLASS: 0x43,
  RSUBMITFAIL: 0x45,
  RTHROTTLED: 0x58,
  RINVSCHED: 0x61,
  RINVOPTPARVAL: 0xc4,
} as const;

const byCode: Partial<Record<ResultCode, number>> = {
  // The key, its state, its address and its account: checked again at every submit_sm.
  'TS-1031': CommandStatus.RBINDFAIL,
  'TS-1035': CommandStatus.RBINDFAIL,
  'TS-1066': CommandStatus.RBINDFAIL,
  'TS-1030': CommandStatus.RBINDFAIL,
  // Permissions: the key may not send.
  'TS-1061': CommandStatus.RSUBMITFAIL,
  'TS-1062': CommandStatus.RSUBMITFAIL,
  // Fields.
  'TS-1025': CommandStatus.RINVDSTADR,
  'TS-1034': CommandStatus.RINVDSTADR,
  'TS-1051': CommandStatus.RINVSRCADR,
  'TS-1029': CommandStatus.RINVSRCADR,
  'TS-1028': CommandStatus.RINVSRCADR,
  'TS-1026': CommandStatus.RINVMSGLEN,
  'TS-1033': CommandStatus.RSUBMITFAIL,
  'TS-1070': CommandStatus.RINVSCHED,
  'TS-1071': CommandStatus.RINVSCHED,
  'TS-1072': CommandStatus.RINVSCHED,
  // Money and limits.
  'TS-1027': CommandStatus.RSUBMITFAIL,
  'TS-1068': CommandStatus.RTHROTTLED,
  'TS-1069': CommandStatus.RTHROTTLED,
  'TS-1073': CommandStatus.RTHROTTLED,
  'SRV-ERR': CommandStatus.RSYSERR,
  'TS-5000': CommandStatus.RSYSERR,
};

/** The command_status of a refused submit_sm. */
export function submitStatus(failure: Pick<Failure, 'code' | 'variant'>): number {
  // TS-1060 is the per-minute limit (temporary) or too many recipients (one here: never).
  if (failure.code === 'TS-1060')
    return failure.variant === 'per-minute' ? CommandStatus.RTHROTTLED : CommandStatus.RSUBMITFAIL;
  return byCode[failure.code] ?? CommandStatus.RSUBMITFAIL;
}
