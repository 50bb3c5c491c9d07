import { startCore } from '../core.ts';
import { sendJson } from '../errors.ts';
import { composedSandbox, listenFront, readWhole } from '../front-server.ts';
import type { RunningSandbox, SandboxOptions } from '../types.ts';
import { reference } from './reference.ts';

/**
 * A correct target whose webhook deliveries never reach the tester: it posts every part-6 event to an address of its
 * own (a sink that answers {} as part 6 shows), the way a real deployment cannot post to a receiver on the tester's
 * loopback. A suite run against it without WEBHOOK_PUBLIC_URL reports the event checks as not configured.
 */
export async function startDetachedSandbox(options: SandboxOptions): Promise<RunningSandbox & { sunk: () => number }> {
  let sunk = 0;
  const sink = await listenFront(
    { host: '127.0.0.1', port: 0 },
    async (req, res) => {
      await readWhole(req);
      sunk += 1;
      sendJson(res, 200, {});
    },
    (res) => sendJson(res, 500, {}),
  );
  const core = await startCore({ ...options, webhookUrl: `${sink.url}/webhooks` }, reference, 'detached');
  return composedSandbox(core, { servers: [sink], extra: { sunk: () => sunk } });
}
