import {
	createdByThisRequest,
	deriveIdempotencyKey,
	formatLineage,
	mintLineage,
	notNfc,
	parseLineage,
	relativeExpiry,
	stableStringify,
	validateIdempotencyKey,
} from '../../nodes/shared/idempotency';
import { FieldError } from '../../nodes/shared/fieldError';

const parts = {
	instanceId: 'instance-a',
	workflowId: 'wf-1',
	lineage: '0123456789abcdef0123456789abcdef',
	nodeId: 'node-1',
	runIndex: 0,
	itemIndex: 0,
	request: 'POST /payment',
};

describe('deriveIdempotencyKey', () => {
	test('is the same for the same item at the same node and run of one lineage (any execution of it)', () => {
		const key = deriveIdempotencyKey(parts);
		expect(deriveIdempotencyKey({ ...parts })).toBe(key);
		expect(key).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(validateIdempotencyKey(key)).toBe(key);
	});

	test.each([
		['instanceId', 'instance-b'],
		['workflowId', 'wf-2'],
		['lineage', 'fedcba9876543210fedcba9876543210'],
		['nodeId', 'node-2'],
		['runIndex', 1],
		['itemIndex', 1],
		['request', 'POST /rulesets'],
	])('changes with %s', (field, value) => {
		expect(deriveIdempotencyKey({ ...parts, [field]: value })).not.toBe(deriveIdempotencyKey(parts));
	});
});

describe('lineage', () => {
	test('round-trips through its custom-data text, within n8n limits', () => {
		const lineage = mintLineage('1234', 1_764_000_000_000);
		expect(lineage.nonce).toMatch(/^[0-9a-f]{32}$/);
		const text = formatLineage(lineage);
		expect(text.length).toBeLessThanOrEqual(255);
		expect(parseLineage(text)).toEqual(lineage);
	});

	test('two mints never share a nonce (colliding execution ids in two databases)', () => {
		expect(mintLineage('1', 0).nonce).not.toBe(mintLineage('1', 0).nonce);
	});

	test.each([undefined, '', 'v1.xyz.1.2', 'v2.0123456789abcdef0123456789abcdef.1.2', 42])('refuses %p', (value) => {
		expect(parseLineage(value)).toBeUndefined();
	});
});

describe('relativeExpiry', () => {
	const anchor = Date.parse('2026-01-01T10:00:00.200Z');
	test('counts from the lineage start, whole seconds, so a retry sends the same time', () => {
		expect(relativeExpiry(anchor, 60, anchor + 5_000)).toBe('2026-01-01T11:00:01.000Z');
		expect(relativeExpiry(anchor, 60, anchor + 30 * 60_000)).toBe('2026-01-01T11:00:01.000Z');
	});
	test('counts from now when the anchored time is not a minute ahead any more', () => {
		const now = anchor + 59 * 60_000 + 30_000;
		expect(relativeExpiry(anchor, 60, now)).toBe(new Date(Math.ceil((now + 3_600_000) / 1000) * 1000).toISOString());
	});
	test('counts from now without a lineage', () => {
		expect(relativeExpiry(undefined, 1, anchor)).toBe('2026-01-01T10:01:01.000Z');
	});
});

describe('createdByThisRequest', () => {
	const started = Date.parse('2026-01-01T10:00:00Z');
	test('is true when no earlier request can have carried the key', () => {
		expect(createdByThisRequest({ firstPossibleUse: true, createdAt: '2020-01-01T00:00:00Z', requestStartedMs: started })).toBe(true);
	});
	test('otherwise compares the order time with the start of this try', () => {
		expect(createdByThisRequest({ firstPossibleUse: false, createdAt: '2026-01-01T10:00:00.050Z', requestStartedMs: started })).toBe(true);
		expect(createdByThisRequest({ firstPossibleUse: false, createdAt: '2026-01-01T09:59:58Z', requestStartedMs: started })).toBe(false);
		expect(createdByThisRequest({ firstPossibleUse: false, createdAt: undefined, requestStartedMs: started })).toBe(false);
	});
});

describe('validateIdempotencyKey', () => {
	test('accepts 1 to 255 characters and numbers, trimmed', () => {
		expect(validateIdempotencyKey(' INV-2026-001 ')).toBe('INV-2026-001');
		expect(validateIdempotencyKey(1234)).toBe('1234');
		expect(validateIdempotencyKey('x'.repeat(255))).toHaveLength(255);
	});

	test.each([
		['', 'must not be empty'],
		['   ', 'must not be empty'],
		['x'.repeat(256), 'must be at most 255 characters (got 256)'],
		[undefined, 'must be text of 1 to 255 characters'],
		[{}, 'must be text of 1 to 255 characters'],
	])('refuses %p naming the field and the rule', (input, rule) => {
		expect(() => validateIdempotencyKey(input, 'Business Key')).toThrow(FieldError);
		expect(() => validateIdempotencyKey(input, 'Business Key')).toThrow(`Business Key: ${rule}`);
	});
});

describe('Business Keys and Unicode normalisation (issue 46): keys that look alike are one key, never two payments', () => {
	const NFC_RULE = "must be in Unicode's composed form (NFC), so that keys that look alike are the same key";

	test('a key in NFC passes as it is, accents, other scripts and emoji included', () => {
		for (const key of ['Café-7', 'Zoë/2026-05', 'Łódź-12', '請求書-42', '가나-1', 'INV-💸-3', 'ÅSA']) expect(validateIdempotencyKey(key)).toBe(key);
	});

	test.each([
		['"e" and a combining acute (macOS file names write it so)', 'Cafe\u0301-7', 4, 'U+0065 U+0301', 'U+00E9'],
		['two marks on one letter, in an order NFC does not keep', 'Cafe\u0301\u0323', 4, 'U+0065 U+0301 U+0323', 'U+1EB9 U+0301'],
		['marks in a non-canonical order on a letter NFC has no single character for', 'q\u0307\u0323-1', 2, 'U+0307 U+0323', 'U+0323 U+0307'],
		['the Angstrom sign, which NFC writes as the letter Å', 'ref-\u212B', 5, 'U+212B', 'U+00C5'],
		['the Ohm sign, which NFC writes as Greek omega', '\u2126-1', 1, 'U+2126', 'U+03A9'],
		['Hangul written as conjoining jamo', '\u1100\u1161-9', 1, 'U+1100 U+1161', 'U+AC00'],
	])('%s is refused, naming the position, what it holds and what NFC writes', (_what, key, position, holds, nfc) => {
		expect(notNfc(key)).toEqual({ position, holds, nfc });
		expect(() => validateIdempotencyKey(key, 'Business Key')).toThrow(
			`Business Key: ${NFC_RULE}: at position ${position} it holds ${holds}, which NFC writes as ${nfc}; nothing was sent: normalise it where it is mapped, e.g. {{ String($json.invoice).normalize('NFC') }}`,
		);
		// Followed: the normalised key passes, and it is the key the NFC-written twin gives.
		expect(validateIdempotencyKey(key.normalize('NFC'))).toBe(key.normalize('NFC'));
	});

	test('two keys that look alike never pass as two different keys', () => {
		const composed = 'Café-7';
		const decomposed = 'Cafe\u0301-7';
		expect(composed).not.toBe(decomposed);
		expect(validateIdempotencyKey(composed)).toBe('Café-7');
		expect(() => validateIdempotencyKey(decomposed)).toThrow(FieldError);
		expect(notNfc('INV-2026-001')).toBeUndefined();
	});
});

test('stableStringify sorts keys at every depth and drops undefined', () => {
	expect(stableStringify({ b: 1, a: { d: [2, { z: 1, y: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"z":1}]},"b":1}');
});
