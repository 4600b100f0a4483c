// A webhook receiver in a dozen lines, the one the README's first steps run: it checks each
// delivery's signature with the package's helper and prints the event. Run it from the clone:
//   WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs      (listens on http://localhost:8080/hooks)
// In your own project: npm install the engine's package and import from 'payments-engine/webhooks'.
import http from 'node:http';
import { verifyWebhook, WebhookVerificationError } from 'payments-engine/webhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the whsec_… secret that `listen` (or `webhooks set`) printed.');
  process.exit(2);
}
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      // The raw bytes as received: a re-serialised body would not match the signature.
      const event = verifyWebhook(Buffer.concat(chunks), req.headers['x-svc-signature'], secret);
      console.log(`verified ${event.type} ${event.id}: ${event.data?.object?.id ?? ''} ${event.data?.object?.status ?? ''}`);
      res.writeHead(200).end();
    } catch (err) {
      console.log(`refused: ${err instanceof WebhookVerificationError ? err.reason : err}`);
      res.writeHead(err instanceof WebhookVerificationError ? 400 : 500).end();
    }
  });
});
server.listen(Number(process.env.RECEIVER_PORT ?? 8080), '127.0.0.1', () => {
  console.log(`receiving on http://localhost:${server.address().port}/hooks`);
});
