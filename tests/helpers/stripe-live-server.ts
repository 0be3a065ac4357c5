// till against the Stripe stand-in as a live seller meets it: till's public URL is https (Stripe calls it), which the
// stand-in rewrites to this test server's address; the jobs worker runs (Stripe's events are processed by it).
import { reservePort } from "./ports.js";
import { startServer, type TestServer } from "./server.js";
import type { StripePeer } from "./stripe-peer.js";

export async function startAgainstStripe(peer: StripePeer): Promise<TestServer> {
  const stripeUrl = await peer.start();
  const { port, release } = await reservePort();
  await release();
  const server = await startServer(
    { TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: stripeUrl },
    { port },
  );
  peer.rewriteUrl = (url) => `${server.url}${new URL(url).pathname}`;
  await server.worker.start();
  return server;
}
