import {
	deriveIdempotencyKey,
	IdempotencyKeyError,
	stableStringify,
	validateIdempotencyKey,
} from '../../nodes/shared/idempotency';

const parts = {
	instanceId: 'instance-a',
	workflowId: 'wf-1',
	executionId: '7',
	nodeName: 'Create Payment',
	itemIndex: 0,
	content: { amountUsd: 10, toAddress: '0xabc', memo: null },
};

describe('deriveIdempotencyKey', () => {
	test('is stable for the same request in the same execution (a retry)', () => {
		const key = deriveIdempotencyKey(parts);
		expect(deriveIdempotencyKey({ ...parts, content: { memo: null, toAddress: '0xabc', amountUsd: 10 } })).toBe(key);
		expect(key).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(validateIdempotencyKey(key)).toBe(key);
	});

	test.each([
		['instanceId', 'instance-b'],
		['workflowId', 'wf-2'],
		['executionId', '8'],
		['nodeName', 'Create Payment 2'],
		['itemIndex', 1],
		['content', { amountUsd: 10.01, toAddress: '0xabc', memo: null }],
	])('changes with %s', (field, value) => {
		expect(deriveIdempotencyKey({ ...parts, [field]: value })).not.toBe(deriveIdempotencyKey(parts));
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
		expect(() => validateIdempotencyKey(input, 'Business Key')).toThrow(IdempotencyKeyError);
		expect(() => validateIdempotencyKey(input, 'Business Key')).toThrow(`Business Key: ${rule}`);
	});
});

test('stableStringify sorts keys at every depth and drops undefined', () => {
	expect(stableStringify({ b: 1, a: { d: [2, { z: 1, y: undefined }], c: null } })).toBe(
		'{"a":{"c":null,"d":[2,{"z":1}]},"b":1}',
	);
});
