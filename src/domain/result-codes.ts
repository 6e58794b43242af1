/**
 * The closed catalogue of result codes of Messaging Service API v4. Every response body
 * carries one of these in `result_code`; the English message is informative only.
 * HTTP statuses are not here: they differ per endpoint (see each endpoint's `statuses`).
 */
export const resultCodes = {
  /** Key check successful. */
  'TS-1000': 'API key is valid',
  /** No message of the caller found with this id. */
  'TS-1020': 'No message found with this id',
  /** No delivery confirmation yet (result true, HTTP 200). */
  'TS-1022': 'No delivery confirmation for this message',
  /** Send accepted. */
  'TS-1024': 'Message accepted for sending',
  /** Recipient/number field missing or too short; or api_key missing or short (per endpoint). */
  'TS-1025': 'Number field missing or too short',
  /** Text empty or too long; or sentto missing or not an array (group). */
  'TS-1026': 'Text empty or longer than 2000 characters',
  /** Insufficient balance. */
  'TS-1027': 'Insufficient balance',
  /** Sender ID not found on the account or not approved. */
  'TS-1028': 'Sender ID not found or not approved',
  /** title too long; title missing (group); raporid missing/invalid or report not found. */
  'TS-1029': 'Invalid title or report id',
  /** Account not active. */
  'TS-1030': 'Account is not active',
  /** Key invalid, not found or not active. */
  'TS-1031': 'API key is invalid',
  /** Body invalid; group text invalid; or save error on blocking add. */
  'TS-1033': 'Request body is invalid',
  /** Number format invalid (OTP). */
  'TS-1034': 'Number format is invalid',
  /** Key paused, expired or revoked. */
  'TS-1035': 'API key is paused, expired or revoked',
  /** Permission off: Send OTP. */
  'TS-1036': 'This key may not send OTP',
  /** Permission off: Advanced OTP. */
  'TS-1037': 'This key may not send advanced OTP',
  /** Permission off: Check Sender ID. */
  'TS-1038': 'This key may not check sender IDs',
  /** Balance or sender ID query successful. */
  'TS-1040': 'Query successful',
  /** api_key missing or too short. */
  'TS-1050': 'api_key is missing or too short',
  /** title missing (/sms/send). */
  'TS-1051': 'title is missing',
  /** sms_id missing, not a number or not above zero. */
  'TS-1052': 'sms_id is missing or invalid',
  /** Per-minute send limit exceeded (429), recipient count limit exceeded (400), request rate exceeded (429). */
  'TS-1060': 'Limit exceeded',
  /** Permission off: Allow POST requests. */
  'TS-1061': 'POST requests are not allowed for this key',
  /** Permission off: Send SMS. */
  'TS-1062': 'This key may not send SMS',
  /** Permission off: Check SMS status. */
  'TS-1063': 'This key may not check SMS status',
  /** Operation successful / message delivered / report returned. */
  'TS-1064': 'Operation successful',
  /** Permission off: Add number, Block number, Check balance. */
  'TS-1065': 'This key lacks the permission for this operation',
  /** Request address not on the IP allowlist. */
  'TS-1066': 'Request address is not allowed for this key',
  /** Permission off: Send to group. */
  'TS-1067': 'This key may not send to groups',
  /** Hourly request limit reached. */
  'TS-1068': 'Hourly request limit reached',
  /** Daily request limit reached. */
  'TS-1069': 'Daily request limit reached',
  /** scheduled_date not YYYY-MM-DD, or scheduled_time missing. */
  'TS-1070': 'scheduled_date is invalid or scheduled_time is missing',
  /** scheduled_time not HH:MM or HH:MM:ss. */
  'TS-1071': 'scheduled_time is invalid',
  /** Scheduled time in the past or invalid. */
  'TS-1072': 'Scheduled time is in the past or invalid',
  /** Monthly request limit reached. */
  'TS-1073': 'Monthly request limit reached',
  /** Permission off: Create group. */
  'TS-1081': 'This key may not create groups',
  /** Permission off: Edit group. */
  'TS-1084': 'This key may not edit groups',
  /** Permission off: Delete group. */
  'TS-1085': 'This key may not delete groups',
  /** Permission off: List groups. */
  'TS-1089': 'This key may not list groups',
  /** /otp/verify: the code is not the one sent; the tries left are in the answer. */
  'TS-1090': 'The code does not match',
  /** /otp/verify: the code's validity has passed. */
  'TS-1091': 'The code has expired',
  /** /otp/verify: the code was already verified (a code is verified at most once). */
  'TS-1092': 'The code was already used',
  /** /otp/verify: too many wrong tries; the code is dead. */
  'TS-1093': 'Too many wrong tries; the code can no longer be verified',
  /** /otp/send, /otp/detailed: the key may not send codes to the number's country. */
  'TS-1094': 'This key may not send codes to this country',
  /** /otp/send, /otp/detailed: too many codes to this number or destination prefix (HTTP 429). */
  'TS-1095': 'Too many codes to this number or prefix; try later',
  /** /otp/send, /otp/detailed: the conversion watch holds the number's destination prefix for the key. */
  'TS-1096': 'Codes to this destination prefix are held (suspected SMS pumping)',
  /** Number already on the blocking list. */
  'TS-1140': 'Number is already on the blocking list',
  /** Number added to the blocking list. */
  'TS-1141': 'Number added to the blocking list',
  /** Number not on the blocking list. */
  'TS-1142': 'Number is not on the blocking list',
  /** Number on the blocking list. */
  'TS-1143': 'Number is on the blocking list',
  /** Not a valid Türkiye mobile number. */
  'TS-1144': 'Not a valid Türkiye mobile number',
  /** A commercial send (iys 1) whose text does not say who sends it or how to opt out, on an account set to refuse (İYS). */
  'TS-1160': 'A commercial text must say who sends it and how to opt out',
  /** /subaccounts/...: no customer of the calling reseller has this account_id (another's, or none). */
  'TS-1170': 'No customer account of this reseller with this id',
  /** Wrong path (blocking endpoints). */
  'TS-404': 'Not found',
  /** Unexpected server error (key check); OTP message could not be saved. */
  'TS-5000': 'Unexpected server error',
  /** Unexpected server error. */
  'SRV-ERR': 'Unexpected server error',
} as const;

export type ResultCode = keyof typeof resultCodes;

export function isResultCode(value: string): value is ResultCode {
  return Object.hasOwn(resultCodes, value);
}

export function messageOf(code: ResultCode): string {
  return resultCodes[code];
}
