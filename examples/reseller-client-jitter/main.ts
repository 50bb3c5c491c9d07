import { startJitterClient } from './client.ts';

// npm run certify-client -- --run "npx tsx examples/reseller-client-jitter/main.ts" --scenario examples/reseller-client/scenario.json
// CLIENT_SEED (default 1) seeds its jitter. Run as a command, it keeps its webhook receiver up for WEBHOOK_GRACE_MS
// (default 1 s) after its last call is answered, for the deliveries still on their way, then ends so that the
// certification can judge.
const client = await startJitterClient(process.env, { seed: Number(process.env.CLIENT_SEED ?? 1) });
try {
  await client.done;
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.WEBHOOK_GRACE_MS ?? 1_000)));
} catch (error) {
  console.error(`jitter client: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await client.close();
}
