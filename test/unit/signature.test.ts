/**
 * The webhook signature module, case by case. Expected signatures come from the tests' own signer
 * (harness/signer.ts, node's crypto directly, not the module under test), following the spec's recipe.
 */
import { createHmac } from 'node:crypto';

import { computeSignature, parseSignatureHeader, SIGNATURE_TOLERANCE_SECONDS, signatureHeader, verifySignature } from '../../nodes/shared/signature';
import { hmac } from '../../harness/signer';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const OTHER_SECRET = 'whsec_fedcba9876543210fedcba9876543210';
const BODY = '{"id":"evt_1_payment_order","type":"payment_order","data":{"payment_order":{"id":"po_1","amountUsd":12.5}}}';
const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);

function verify(header: string | string[] | undefined, opts: { body?: string | Buffer; secrets?: Array<string | undefined>; now?: number } = {}) {
	return verifySignature({
		header,
		rawBody: opts.body ?? BODY,
		secrets: opts.secrets ?? [SECRET],
		now: opts.now ?? NOW_MS,
	});
}

describe('verifySignature', () => {
	it('accepts a correct signature over the raw body', () => {
		expect(verify(`t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`)).toEqual({ valid: true, timestamp: NOW });
	});

	it('rejects when no secret is stored (fails closed)', () => {
		const header = `t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`;
		expect(verify(header, { secrets: [] })).toEqual({ valid: false, reason: 'missing_secret' });
		expect(verify(header, { secrets: [undefined] })).toEqual({ valid: false, reason: 'missing_secret' });
		expect(verify(header, { secrets: [''] })).toEqual({ valid: false, reason: 'missing_secret' });
	});

	it('rejects a missing header', () => {
		expect(verify(undefined)).toEqual({ valid: false, reason: 'missing_header' });
		expect(verify('')).toEqual({ valid: false, reason: 'missing_header' });
		expect(verify('   ')).toEqual({ valid: false, reason: 'missing_header' });
		expect(verify([])).toEqual({ valid: false, reason: 'missing_header' });
	});

	it('rejects a header in a bad format', () => {
		const sig = hmac(SECRET, NOW, BODY);
		for (const header of [
			'garbage',
			`t${NOW},v1=${sig}`,
			`t=${NOW};v1=${sig}`,
			`t=${NOW},v1=${sig},`,
			`=${NOW},v1=${sig}`,
			`t=${NOW},v1=${sig.toUpperCase()}`,
			`t=${NOW},v1=${sig.slice(0, 63)}`,
			`t=${NOW},v1=${sig}00`,
			`t=abc,v1=${sig}`,
			`t=-${NOW},v1=${sig}`,
			`t=${NOW}.5,v1=${sig}`,
			`t=${NOW},t=${NOW},v1=${sig}`,
			`t=${NOW},x=1,v1=${sig}`,
		]) {
			expect({ header, result: verify(header) }).toEqual({ header, result: { valid: false, reason: 'malformed_header' } });
		}
	});

	it('rejects two header values', () => {
		const good = `t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`;
		expect(verify([good, good])).toEqual({ valid: false, reason: 'malformed_header' });
		expect(verify([good])).toEqual({ valid: true, timestamp: NOW });
	});

	it('rejects a header without t', () => {
		expect(verify(`v1=${hmac(SECRET, NOW, BODY)}`)).toEqual({ valid: false, reason: 'missing_timestamp' });
	});

	it('rejects a header without v1', () => {
		expect(verify(`t=${NOW}`)).toEqual({ valid: false, reason: 'missing_signature' });
		// A scheme we do not know is skipped, so it cannot stand in for v1.
		expect(verify(`t=${NOW},v0=${hmac(SECRET, NOW, BODY)}`)).toEqual({ valid: false, reason: 'missing_signature' });
	});

	it('rejects a signature made with another secret', () => {
		expect(verify(`t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)}`)).toEqual({ valid: false, reason: 'signature_mismatch' });
	});

	it('accepts two v1 values when either one is right (graceful rotation)', () => {
		const right = hmac(SECRET, NOW, BODY);
		const wrong = hmac(OTHER_SECRET, NOW, BODY);
		expect(verify(`t=${NOW},v1=${wrong},v1=${right}`)).toEqual({ valid: true, timestamp: NOW });
		expect(verify(`t=${NOW},v1=${right},v1=${wrong}`)).toEqual({ valid: true, timestamp: NOW });
		expect(verify(`t=${NOW},v1=${wrong},v1=${wrong}`)).toEqual({ valid: false, reason: 'signature_mismatch' });
	});

	it('accepts when any of several stored secrets signed it', () => {
		const header = `t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)}`;
		expect(verify(header, { secrets: [SECRET, OTHER_SECRET] })).toEqual({ valid: true, timestamp: NOW });
	});

	it('rejects a tampered body', () => {
		const header = `t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`;
		expect(verify(header, { body: BODY.replace('12.5', '125') })).toEqual({ valid: false, reason: 'signature_mismatch' });
		// Re-serialising the parsed JSON is not the raw body either.
		const spaced = JSON.stringify(JSON.parse(BODY), null, 1);
		expect(verify(header, { body: spaced })).toEqual({ valid: false, reason: 'signature_mismatch' });
	});

	it('rejects a signature over another timestamp', () => {
		expect(verify(`t=${NOW},v1=${hmac(SECRET, NOW - 1, BODY)}`)).toEqual({ valid: false, reason: 'signature_mismatch' });
	});

	it('verifies string and Buffer bodies alike, byte for byte', () => {
		const unicode = '{"memo":"café ☕","amountUsd":1}';
		const header = `t=${NOW},v1=${hmac(SECRET, NOW, Buffer.from(unicode, 'utf8'))}`;
		expect(verify(header, { body: unicode })).toEqual({ valid: true, timestamp: NOW });
		expect(verify(header, { body: Buffer.from(unicode, 'utf8') })).toEqual({ valid: true, timestamp: NOW });
		// Same text, other bytes (latin1): not what was signed.
		expect(verify(header, { body: Buffer.from(unicode, 'latin1') })).toEqual({ valid: false, reason: 'signature_mismatch' });
	});

	it('uses the secret as UTF-8 text, not base64- or hex-decoded', () => {
		const decoded = createHmac('sha256', Buffer.from(SECRET.slice('whsec_'.length), 'hex'))
			.update(`${NOW}.${BODY}`)
			.digest('hex');
		expect(verify(`t=${NOW},v1=${decoded}`)).toEqual({ valid: false, reason: 'signature_mismatch' });
	});

	it('rejects a timestamp 6 minutes old', () => {
		const t = NOW - 6 * 60;
		expect(verify(`t=${t},v1=${hmac(SECRET, t, BODY)}`)).toEqual({ valid: false, reason: 'timestamp_out_of_tolerance' });
	});

	it('rejects a timestamp 6 minutes ahead', () => {
		const t = NOW + 6 * 60;
		expect(verify(`t=${t},v1=${hmac(SECRET, t, BODY)}`)).toEqual({ valid: false, reason: 'timestamp_out_of_tolerance' });
	});

	it('accepts a timestamp 4 minutes old and 4 minutes ahead', () => {
		for (const t of [NOW - 4 * 60, NOW + 4 * 60]) {
			expect(verify(`t=${t},v1=${hmac(SECRET, t, BODY)}`)).toEqual({ valid: true, timestamp: t });
		}
	});

	it('has a 5 minute tolerance, inclusive at the edge', () => {
		expect(SIGNATURE_TOLERANCE_SECONDS).toBe(300);
		for (const t of [NOW - 300, NOW + 300]) {
			expect(verify(`t=${t},v1=${hmac(SECRET, t, BODY)}`).valid).toBe(true);
		}
		for (const t of [NOW - 301, NOW + 301]) {
			expect(verify(`t=${t},v1=${hmac(SECRET, t, BODY)}`).valid).toBe(false);
		}
	});

	it('checks the timestamp before the signature (a stale but correct signature is still refused)', () => {
		const t = NOW - 3600;
		expect(verify(`t=${t},v1=${hmac(OTHER_SECRET, t, BODY)}`)).toEqual({ valid: false, reason: 'timestamp_out_of_tolerance' });
	});

	it('never puts the secret or the expected signature in its result', () => {
		const expected = hmac(SECRET, NOW, BODY);
		const result = verify(`t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)}`);
		const text = JSON.stringify(result);
		expect(text).not.toContain(SECRET);
		expect(text).not.toContain(expected);
	});
});

describe('parseSignatureHeader', () => {
	const a = 'a'.repeat(64);
	const b = 'b'.repeat(64);

	it('reads t and every v1 in order', () => {
		expect(parseSignatureHeader(`t=1700000000,v1=${a},v1=${b}`)).toEqual({ timestamp: 1700000000, signatures: [a, b] });
	});

	it('accepts any order of parts and spaces around them', () => {
		expect(parseSignatureHeader(` v1=${a} , t=1700000000 `)).toEqual({ timestamp: 1700000000, signatures: [a] });
	});

	it('skips unknown v<n> schemes but keeps v1', () => {
		expect(parseSignatureHeader(`t=1,v0=zz,v2=${b},v1=${a}`)).toEqual({ timestamp: 1, signatures: [a] });
	});

	it('takes a single-element array as the header', () => {
		expect(parseSignatureHeader([`t=1,v1=${a}`])).toEqual({ timestamp: 1, signatures: [a] });
	});

	it.each([
		['empty value of t', `t=,v1=${a}`, 'malformed_header'],
		['empty value of v1', 't=1,v1=', 'malformed_header'],
		['part without =', `t=1,v1=${a},junk`, 'malformed_header'],
		['empty part', `t=1,,v1=${a}`, 'malformed_header'],
		['13-digit timestamp (milliseconds)', `t=1700000000000,v1=${a}`, 'malformed_header'],
		['non-hex v1', `t=1,v1=${'g'.repeat(64)}`, 'malformed_header'],
		['duplicate t', `t=1,t=2,v1=${a}`, 'malformed_header'],
		['unknown key', `t=1,v1=${a},sig=1`, 'malformed_header'],
		['only t', 't=1', 'missing_signature'],
		['only v1', `v1=${a}`, 'missing_timestamp'],
		['undefined', undefined, 'missing_header'],
	])('%s → %s', (_name, header, expected) => {
		expect(parseSignatureHeader(header)).toBe(expected);
	});
});

describe('computeSignature and signatureHeader', () => {
	it('match an independent HMAC', () => {
		expect(computeSignature(SECRET, NOW, BODY)).toBe(hmac(SECRET, NOW, BODY));
		expect(computeSignature(SECRET, NOW, Buffer.from(BODY))).toBe(hmac(SECRET, NOW, BODY));
		expect(signatureHeader([SECRET, OTHER_SECRET], NOW, BODY)).toBe(`t=${NOW},v1=${hmac(SECRET, NOW, BODY)},v1=${hmac(OTHER_SECRET, NOW, BODY)}`);
	});
});
