import type { Exchange, HeaderList } from './exchange.ts';

export interface SendOptions {
  label: string;
  note?: string;
  method: string;
  url: string;
  headers: HeaderList;
  body?: string | Buffer;
  /** false for checks that expect a 503 and must see it; a 429 is waited out whatever this says. */
  retry?: boolean;
}

/** What sends one request: the HttpClient, or a test's wrapper of it that blocks a rate-limited check. */
export type Sender = {
  send(options: SendOptions): Promise<Exchange>;
  /** Sends the requests truly at once, each on its own connection, with no retry (HttpClient.sendAtOnce). */
  sendAtOnce(requests: readonly SendOptions[]): Promise<AtOnce[]>;
};

/** One call of a batch sent at once: its exchange, or why it got no answer (a reset, a timeout). */
export type AtOnce = { exchange: Exchange } | { noAnswer: string; request: SendOptions };
