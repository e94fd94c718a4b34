/** The pure rules behind re-runs: loopback Base URLs, `created` by lineage, which order values count. */
import { differingFields, MAPPED_LABELS } from '../../nodes/Clearinghouse/actions/paymentOrder/sameOrder';
import { createdInLineage, isLoopbackUrl } from '../../nodes/shared/idempotency';

test('isLoopbackUrl: 127.0.0.0/8, localhost and [::1] only', () => {
	for (const url of ['http://127.0.0.1:4010', 'https://127.255.0.9', 'http://localhost:4010/api/v1', 'http://[::1]:4010', 'HTTP://LOCALHOST'])
		expect(isLoopbackUrl(url)).toBe(true);
	for (const url of [
		'https://api.clearinghouse.example',
		'https://127.0.0.1.example.com',
		'http://0.0.0.0:4010',
		'http://10.0.0.1',
		'http://127.0.0.256',
		'not a url',
		'',
		undefined,
	])
		expect(isLoopbackUrl(url)).toBe(false);
});

describe('createdInLineage', () => {
	const start = Date.parse('2026-11-26T10:00:00Z');
	test('a Derived key, or an order this request made, is always made in the lineage', () => {
		expect(createdInLineage({ derived: true, byThisRequest: false, createdAt: '2020-01-01T00:00:00Z', lineageStartMs: start })).toBe(true);
		expect(createdInLineage({ derived: false, byThisRequest: true, createdAt: undefined })).toBe(true);
	});
	test('a Business Key: made in the lineage when not older than its start; unknown start or time means found', () => {
		expect(createdInLineage({ derived: false, byThisRequest: false, createdAt: '2026-11-26T10:00:00.000Z', lineageStartMs: start })).toBe(true);
		expect(createdInLineage({ derived: false, byThisRequest: false, createdAt: '2026-11-26T09:59:59.999Z', lineageStartMs: start })).toBe(false);
		expect(createdInLineage({ derived: false, byThisRequest: false, createdAt: '2026-11-26T09:59:59.000Z', lineageStartMs: start, skewMs: 2000 })).toBe(true);
		expect(createdInLineage({ derived: false, byThisRequest: false, createdAt: '2026-11-26T11:00:00Z' })).toBe(false);
		expect(createdInLineage({ derived: false, byThisRequest: false, createdAt: 'garbage', lineageStartMs: start })).toBe(false);
	});
});

describe('differingFields: only what the person chose makes another payment', () => {
	const order = {
		fromUserId: 'u1',
		toAddress: '0xce2c6ef59804282e8a5db1257443d6e27fdeb43b',
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: 12.5,
		memo: null,
		mode: 'standard',
		expiresAt: '2026-11-26T11:00:00.000Z',
		status: 'FUNDED',
	};
	const sent = {
		fromUserId: 'u1',
		toAddress: '0xCE2C6EF59804282E8A5DB1257443D6E27FDEB43B',
		toChain: 'ethereum',
		asset: 'usdc',
		amountUsd: 12.5,
		memo: '',
		mode: 'standard',
		expiresAt: '2026-11-27T11:00:00.000Z',
	};
	test('expiry, status, EVM address case, asset case, empty memo: the same payment', () => {
		expect(differingFields(order, sent)).toEqual([]);
	});
	test('amount, recipient, chain, memo and quote are named with the panel label and both values', () => {
		const other = { ...sent, amountUsd: 12.5001, toChain: 'base', memo: 'x', quoteId: 'q1' };
		expect(differingFields(order, other).map((d) => `${d.label}: ${d.order} → ${d.sent}`)).toEqual([
			'Chain: ethereum → base',
			'Amount (USD): 12.5 → 12.5001',
			'Memo: (empty) → x',
			'Quote ID: (empty) → q1',
		]);
		expect(differingFields(order, { ...sent, fromUserId: 'u2' }, MAPPED_LABELS)[0].label).toBe('Input field "fromUserId"');
	});
	test('a required value the order does not show cannot be confirmed: it counts as different', () => {
		const { amountUsd: _amount, ...withoutAmount } = order;
		void _amount;
		expect(differingFields(withoutAmount, sent).map((d) => d.field)).toEqual(['amountUsd']);
	});
	test('a mode the request cannot ask for (netted) is not compared', () => {
		expect(differingFields({ ...order, mode: 'netted' }, sent)).toEqual([]);
	});
});
