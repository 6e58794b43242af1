/** A contact group of an account. Names are unique per account. */
export interface Group {
  id: number;
  accountId: number;
  name: string;
  createdAt: number;
}

/** An entry of an account's number blocking list. */
export interface BlockedNumber {
  /** `905XXXXXXXXX`. */
  number: string;
  createdAt: number;
}

/** Contact groups, their numbers and the number blocking list, all per account. */
export interface DirectoryStore {
  /** Creates the group unless the account already has one of this name. */
  createGroup(accountId: number, name: string, now: number): Promise<Group | 'duplicate'>;
  /** Renames the account's group; another group of the account may not have the name. */
  renameGroup(accountId: number, groupId: number, name: string): Promise<Group | 'duplicate' | 'not-found'>;
  /** Deletes the account's group together with its contacts. */
  deleteGroup(accountId: number, groupId: number): Promise<boolean>;
  /** The account's groups, newest first. */
  listGroups(accountId: number): Promise<Group[]>;
  /**
   * Adds the numbers the group does not have yet and says how many were new, or null when
   * the group is not one of the account's (a group deleted meanwhile included).
   */
  addContacts(accountId: number, groupId: number, numbers: readonly string[], now: number): Promise<number | null>;
  /** Adds a number keyed by its subscriber part (last ten digits) unless it is listed. */
  blockNumber(
    accountId: number,
    entry: { number: string; subscriber: string },
    now: number,
  ): Promise<'added' | 'exists'>;
  findBlocked(accountId: number, subscriber: string): Promise<BlockedNumber | null>;
  unblockNumber(accountId: number, subscriber: string): Promise<boolean>;
}
