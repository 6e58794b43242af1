/** Mobile-originated messages and the routes that give them to accounts. */
export interface InboundRoute {
  destination: string;
  accountId: number;
  createdAt: number;
}

export interface InboundRecord {
  id: number;
  accountId: number | null;
  from: string;
  to: string;
  text: string;
  receivedAt: number;
}

export interface InboundStore {
  addRoute(destination: string, accountId: number, now: number): Promise<InboundRoute>;
  removeRoute(destination: string): Promise<boolean>;
  routes(accountId: number | null): Promise<InboundRoute[]>;
  routeFor(destination: string): Promise<number | null>;
  insert(message: InboundRecord): Promise<void>;
  /** The account's key whose webhook receives its inbound messages: the newest Active key with a webhook URL. */
  webhookKeyOf(accountId: number): Promise<number | null>;
  recent(accountId: number, limit: number): Promise<InboundRecord[]>;
}
