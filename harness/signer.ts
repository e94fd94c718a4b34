/**
 * The tests' own webhook signer, written from the API spec and independent of the shipped one
 * (nodes/shared/signature.ts), so that a mistake there cannot hide in both: `t=<unix>,v1=<hex>`,
 * HMAC-SHA256 over `${t}.${raw body}` keyed by the secret's UTF-8 bytes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The hex v1 signature of a raw body at time t (unix seconds). */
export function hmac(secret: string, t: number, body: string | Buffer): string {
	return createHmac('sha256', Buffer.from(secret, 'utf8'))
		.update(Buffer.concat([Buffer.from(`${t}.`), Buffer.isBuffer(body) ? body : Buffer.from(body)]))
		.digest('hex');
}

/** The `x-service-webhook-signature` header for a raw body at time t (unix seconds). */
export function signatureHeader(secret: string, t: number, body: string | Buffer): string {
	return `t=${t},v1=${hmac(secret, t, body)}`;
}

/** Whether a header signs the raw body with the secret, within the tolerance (seconds). */
export function verifySignature(header: string, raw: string, secret: string, toleranceSec = 300): boolean {
	const parts = header.split(',').map((p) => p.split('='));
	const t = parts.find(([k]) => k === 't')?.[1];
	if (!t || Math.abs(Date.now() / 1000 - Number(t)) > toleranceSec) return false;
	const expected = Buffer.from(hmac(secret, Number(t), raw), 'hex');
	return parts
		.filter(([k]) => k === 'v1')
		.some(([, v]) => {
			const got = Buffer.from(v, 'hex');
			return got.length === expected.length && timingSafeEqual(got, expected);
		});
}
