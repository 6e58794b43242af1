/**
 * Not there, or not the caller's (another account's key, group, message or event): the
 * panel answers both with the same "Page not found", so the ids of other accounts cannot be
 * probed.
 */
export class NotFound extends Error {}
