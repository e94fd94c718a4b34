/**
 * Strict input: business keys and IDs that go into request paths are refused before
 * anything is sent when they could name another record or reach another endpoint. Amounts and the
 * credential's URLs are covered in amounts.test.ts and transport.test.ts.
 */
import { FieldError } from '../../nodes/shared/fieldError';
import { validateIdempotencyKey } from '../../nodes/shared/idempotency';
import { hasDotSegment, validatePathId } from '../../nodes/shared/pathId';

function refusal(fn: () => unknown): FieldError {
	try {
		fn();
	} catch (error) {
		if (error instanceof FieldError) return error;
		throw error;
	}
	throw new Error('expected a FieldError');
}

describe('business keys: printable text, no broken numbers', () => {
	test('ordinary references pass, trimmed; whole numbers pass as their text', () => {
		expect(validateIdempotencyKey(' INV-2026-001 ', 'Business Key')).toBe('INV-2026-001');
		expect(validateIdempotencyKey('payout-Zoë-ü-日本-€', 'Business Key')).toBe('payout-Zoë-ü-日本-€');
		expect(validateIdempotencyKey(1234, 'Business Key')).toBe('1234');
		expect(validateIdempotencyKey(Number.MAX_SAFE_INTEGER, 'Business Key')).toBe('9007199254740991');
		// Text that merely contains "e" and digits is a reference, not a number.
		expect(validateIdempotencyKey('INV-1e3', 'Business Key')).toBe('INV-1e3');
		expect(validateIdempotencyKey('NaN-reference', 'Business Key')).toBe('NaN-reference');
	});

	test.each([
		['NUL', 'INV\u00001', 'U\\+0000'],
		['a tab inside', 'INV\t1', 'U\\+0009'],
		['DEL', 'INV\u007f1', 'U\\+007F'],
		['a C1 control', 'INV\u00851', 'U\\+0085'],
		['a zero-width space', 'INV\u200b-1', 'U\\+200B'],
		['a zero-width non-joiner', 'INV\u200c-1', 'U\\+200C'],
		['a zero-width joiner', 'INV\u200d-1', 'U\\+200D'],
		['a BOM inside', 'INV\ufeff-1', 'U\\+FEFF'],
		['a left-to-right mark', 'INV\u200e-1', 'U\\+200E'],
		['a right-to-left override', 'INV-\u202e1001', 'U\\+202E'],
		['a bidi isolate', 'INV-\u20661001', 'U\\+2066'],
		['a word joiner', 'INV\u2060-1', 'U\\+2060'],
		['a soft hyphen', 'INV\u00ad-1', 'U\\+00AD'],
		['a line separator', 'INV\u2028-1', 'U\\+2028'],
		// Issue 34: each of these made two keys that look the same, so two payments.
		['a tag character (U+E0000 block)', 'INV-1\u{E0041}001', 'U\\+E0041'],
		['the cancel tag', 'INV-1001\u{E007F}x', 'U\\+E007F'],
		['a variation selector', 'INV-1\ufe0f001', 'U\\+FE0F'],
		['a supplementary variation selector', 'INV-1\u{E0100}001', 'U\\+E0100'],
		['the combining grapheme joiner', 'INV-1\u034f001', 'U\\+034F'],
		['the Hangul filler', 'INV-1\u3164001', 'U\\+3164'],
		['the halfwidth Hangul filler', 'INV-1\uffa0001', 'U\\+FFA0'],
		['the blank Braille pattern', 'INV-1\u2800001', 'U\\+2800'],
		['a no-break space inside', 'INV-1\u00a0001', 'U\\+00A0'],
		['a narrow no-break space', 'INV-1\u202f001', 'U\\+202F'],
		['an ideographic space', 'INV-1\u3000001', 'U\\+3000'],
		['an en space', 'INV-1\u2002001', 'U\\+2002'],
		['the Mongolian vowel separator', 'INV-1\u180e001', 'U\\+180E'],
		['an interlinear annotation anchor', 'INV-1\ufff9001', 'U\\+FFF9'],
	])('refuses %s', (_what, key, code) => {
		const error = refusal(() => validateIdempotencyKey(key, 'Business Key'));
		expect(error.field).toBe('Business Key');
		expect(error.message).toMatch(
			new RegExp(`^Business Key: must hold printable characters only: it contains the invisible, space-like or control character ${code} at position \\d+$`),
		);
	});

	test('the position counts characters, not UTF-16 units: a tag after an emoji', () => {
		expect(refusal(() => validateIdempotencyKey('INV-\u{1F600}\u{E0041}', 'Business Key')).message).toMatch(/U\+E0041 at position 6$/);
	});

	test.each(['INV-2026-0042', 'Rechnung-Müller-ß', '請求書-42', 'INV 42 (März)', 'ÉCOLE-№7'])('accepts the visible key %p', (key) => {
		expect(validateIdempotencyKey(key, 'Business Key')).toBe(key);
	});

	test.each(['NaN', 'nan', 'Infinity', '-Infinity', '1e+21', '1E21', '2.5e-7', '.5e3'])('refuses the text "%s" (how a broken number looks)', (key) => {
		expect(refusal(() => validateIdempotencyKey(key, 'Business Key')).message).toBe(
			`Business Key: must not be "${key}": that is how a broken number looks (NaN, Infinity or e notation), not a business reference`,
		);
	});

	test.each([Number.NaN, Number.POSITIVE_INFINITY, 1e21, 0.1 + 0.2, 12.5, -0.5, 2 ** 53])('refuses the number %p from an expression', (key) => {
		expect(refusal(() => validateIdempotencyKey(key, 'Business Key')).message).toMatch(
			/^Business Key: must be text, or a whole number up to 9007199254740991 \(got the number .*\); map the reference as text$/,
		);
	});
});

describe('IDs in request paths', () => {
	test('IDs as the service makes them pass', () => {
		for (const id of ['2f1c8a9e-5d1b-4e0a-9a7c-3b2d1e0f9a8b', 'whe_01HX9Z', 'rs.v2:abc', 'dlv_123', 42]) {
			expect(validatePathId(id, 'Payment Order')).toBe(String(id));
		}
		expect(validatePathId('  abc  ', 'Payment Order')).toBe('abc');
	});

	test.each([
		['', 'is required'],
		[undefined, 'is required'],
		['.', 'must be an ID, not "." (a path step)'],
		['..', 'must be an ID, not ".." (a path step)'],
		[' .. ', 'must be an ID, not ".." (a path step)'],
		['a/b', 'may not contain "/"'],
		['../cancel', 'may not contain "/"'],
		['a\\b', 'may not contain "\\"'],
		['a?b=1', 'may not contain "?"'],
		['a#b', 'may not contain "#"'],
		['%2e%2e', 'may not contain "%"'],
		['%2E', 'may not contain "%"'],
		['a%2fb', 'may not contain "%"'],
		['a b', 'may not contain U+0020'],
		['a\nb', 'may not contain U+000A'],
		['a\u200bb', 'may not contain U+200B'],
		['a\u0000', 'may not contain U+0000'],
		['ord-\u{E0001}', 'may not contain U+E0001'],
	])('refuses %p before sending', (id, rule) => {
		const error = refusal(() => validatePathId(id, 'Payment Order'));
		expect(error.field).toBe('Payment Order');
		expect(error.message).toMatch(/^Payment Order: /);
		expect(error.message).toContain(rule);
	});

	test("hasDotSegment: the transport's last guard", () => {
		for (const path of ['/payment-orders/../cancel', '/./x', '/x/..', '/x/%2e%2E/y', '/x/.%2e', '/x/%2E?y=1']) expect(hasDotSegment(path)).toBe(true);
		for (const path of ['/payment-orders/a.b/cancel', '/x/...', '/x?next=..', '/x/.hidden', '/webhooks/endpoints']) expect(hasDotSegment(path)).toBe(false);
	});
});
