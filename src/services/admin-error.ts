/** A failure of a provider command: the message is shown to the operator as is. */
export class AdminError extends Error {}
