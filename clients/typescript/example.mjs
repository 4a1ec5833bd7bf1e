// The TypeScript client's example, run by node in CI against a live server: search by measured
// speed, book the cheapest machine per million tokens, fetch its signed report and check the
// signature with node's own Ed25519. Types come from schema.d.ts (tsc --checkJs checks them).
import { createPublicKey, randomUUID, verify } from "node:crypto";
import createClient from "openapi-fetch";

const BASE = process.env.BASE ?? "http://127.0.0.1:8080";
/** @type {import("openapi-fetch").Client<import("./schema.js").paths>} */
const client = createClient({ baseUrl: BASE });

/**
 * The body of an answer, or a thrown error with the server's problem.
 * @template T
 * @param {{ data?: T, error?: unknown, response: Response }} answer
 * @returns {T}
 */
function ok(answer) {
  if (answer.data === undefined) {
    throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

// An account (or sign in: POST /v1/auth/login).
const signedUp = ok(
  await client.POST("/v1/auth/register", {
    body: { email: `ts-${randomUUID().slice(0, 8)}@example.com`, password: "typescript-password", name: "TS" },
  }),
);
const auth = { Authorization: `Bearer ${signedUp.access_token}` };

// Verified, at least 30 tok/s for one stream at 1,024 tokens, cheapest per million tokens first.
const page = ok(
  await client.GET("/v1/listings", {
    params: {
      query: { verified: true, min_total_tok_s: 30, context: 1024, concurrency: 1, sort: "price_per_mtok" },
    },
  }),
);
const listing = page.items[0];
console.log(`listing ${listing.id}: ${listing.match.total_tok_s?.toFixed(1)} tok/s`);

// Two hours the day after tomorrow, from the next full hour; the idempotency key makes a retry
// return the same booking.
const start = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 2 * 24 * 3_600_000);
const end = new Date(start.getTime() + 2 * 3_600_000);
const booking = ok(
  await client.POST("/v1/bookings", {
    headers: { ...auth },
    params: { header: { "Idempotency-Key": randomUUID() } },
    body: { listing_id: listing.id, gpu_count: 1, starts_at: start.toISOString(), ends_at: end.toISOString() },
  }),
);
console.log(`booking ${booking.id}: ${booking.status}`);

// The listing's signed report: DSSE's pre-authentication encoding, signed with Ed25519.
const reportId = listing.verification?.report_id;
if (!reportId) throw new Error("the listing has no report");
const report = ok(await client.GET("/v1/reports/{id}", { params: { path: { id: reportId } } }));
const envelope = /** @type {{payload: string, payloadType: string, signatures: {keyid: string, sig: string}[]}} */ (
  report.envelope
);
const payload = Buffer.from(envelope.payload, "base64");
const type = Buffer.from(envelope.payloadType);
const pae = Buffer.concat([
  Buffer.from(`DSSEv1 ${type.length} `),
  type,
  Buffer.from(` ${payload.length} `),
  payload,
]);
const keys = ok(await client.GET("/v1/signing-keys"));
const signature = envelope.signatures[0];
const key = keys.find((/** @type {{key_id: string}} */ k) => k.key_id === signature.keyid);
if (!key) throw new Error(`no published key ${signature.keyid}`);
const publicKey = createPublicKey({
  key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key.public_key, "base64").toString("base64url") },
  format: "jwk",
});
if (!verify(null, pae, publicKey, Buffer.from(signature.sig, "base64"))) {
  throw new Error("the report's signature does not verify");
}
console.log(`report ${report.id}: signature verified (key ${signature.keyid})`);
