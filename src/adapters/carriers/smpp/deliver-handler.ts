import type { CarrierListener } from '../../../ports/carrier.js';
import { decodeShortMessage } from '../../../domain/sms-decoding.js';
import { isReceipt, parseReceipt } from './delivery-receipt.js';
import type { Reply, SmppLog } from './smpp-link.js';
import { messageBytes, numberField, Status, stringField } from '../../../smpp/smpp-wire.js';
import type { Pdu } from '../../../smpp/smpp-wire.js';

/**
 * Requests an SMSC sends us. A deliver_sm is answered only after the listener's promise
 * settles: OK once the report or message is stored, ESME_RX_T_APPN (temporary) when
 * storing failed so that the SMSC delivers it again. Receipts we cannot read get
 * ESME_RX_P_APPN: sending them again would not help.
 *
 * Inbound concatenated messages are not reassembled: each part reaches onInbound as its
 * own message (docs/smpp.md).
 */
export function deliverHandler(listener: () => CarrierListener | undefined, log: SmppLog, now: () => number) {
  return (pdu: Pdu, reply: Reply): void => {
    if (pdu.command === 'unknown') return reply({});
    if (pdu.command === 'alert_notification') return;
    if (pdu.command !== 'deliver_sm') return reply({ command_status: Status.INVCMDID });
    const target = listener();
    if (!target) return reply({ command_status: Status.RX_T_APPN });
    void handleDeliver(pdu, target, log, now).then((status) => reply({ command_status: status }));
  };
}

async function handleDeliver(pdu: Pdu, listener: CarrierListener, log: SmppLog, now: () => number): Promise<number> {
  const bytes = messageBytes(pdu);
  const esmClass = numberField(pdu, 'esm_class') ?? 0;
  const receiptedMessageId = stringField(pdu, 'receipted_message_id');
  try {
    if (isReceipt({ esmClass, receiptedMessageId })) {
      const messageState = numberField(pdu, 'message_state');
      const parsed = parseReceipt({ esmClass, receiptedMessageId, messageState, text: bytes.toString('latin1') });
      if (parsed.kind === 'invalid') {
        log.warn({ reason: parsed.reason }, 'unreadable delivery receipt dropped');
        return Status.RX_P_APPN;
      }
      if (parsed.kind === 'final') {
        await listener.onReceipt({
          carrierMessageId: parsed.carrierMessageId,
          status: parsed.status,
          detail: parsed.detail,
        });
      }
      return Status.OK;
    }
    const decoded = decodeShortMessage(bytes, numberField(pdu, 'data_coding') ?? 0, esmClass);
    await listener.onInbound({
      from: stringField(pdu, 'source_addr') ?? '',
      to: stringField(pdu, 'destination_addr') ?? '',
      text: decoded.text,
      receivedAt: now(),
    });
    return Status.OK;
  } catch (error) {
    log.warn(
      { error: error instanceof Error ? error.message : String(error) },
      'listener failed; SMSC will deliver again',
    );
    return Status.RX_T_APPN;
  }
}
