/** What people see in dropdowns and From List rows. */
import { chainDisplayName, paymentOrderLabel, shortAddress } from '../../nodes/shared/labels';

test('chains by name; the API value stays the option value elsewhere', () => {
	expect(['ethereum', 'base', 'solana', 'bsc', 'newchain', ''].map(chainDisplayName)).toEqual([
		'Ethereum',
		'Base',
		'Solana',
		'BNB Smart Chain',
		'Newchain',
		'',
	]);
});

test('addresses shortened to their ends', () => {
	expect(shortAddress('0xce2c6ef59804282e8a5db1257443d6e27fdeb43b')).toBe('0xce2c6e…b43b');
	expect(shortAddress('short')).toBe('short');
});

test('a payment order row leads with memo, amount and asset, chain, status, the address, then created time and short id', () => {
	const order = {
		id: '3f0c9c4e-8a21-4b7d-9e65-1c2d3e4f5a6b',
		memo: 'INV-1001',
		amountUsd: 125.5,
		asset: 'USDC',
		toChain: 'ethereum',
		status: 'AWAITING_FUNDS',
		toAddress: '0xce2c6ef59804282e8a5db1257443d6e27fdeb43b',
		createdAt: '2026-11-26T09:30:12.345Z',
	};
	expect(paymentOrderLabel(order)).toBe('INV-1001 · 125.5 USDC on Ethereum · AWAITING_FUNDS · to 0xce2c6e…b43b · created 2026-11-26 09:30 UTC · #3f0c9c4e');
	expect(paymentOrderLabel({ ...order, memo: null })).toBe(
		'125.5 USDC on Ethereum · AWAITING_FUNDS · to 0xce2c6e…b43b · created 2026-11-26 09:30 UTC · #3f0c9c4e',
	);
});

test('two orders without a memo, same amount and recipient, get different rows', () => {
	const base = { amountUsd: 10, asset: 'USDC', toChain: 'base', status: 'AWAITING_FUNDS', toAddress: '0x0b32e9458236f37e240f9c23496a7b13e2742ef1' };
	const a = paymentOrderLabel({ ...base, id: 'aaaaaaaa-1', createdAt: '2026-11-26T09:30:00Z' });
	const b = paymentOrderLabel({ ...base, id: 'bbbbbbbb-2', createdAt: '2026-11-26T09:30:00Z' });
	expect(a).not.toBe(b);
	expect(paymentOrderLabel({ ...base, createdAt: '2026-11-26T11:30:00+02:00' })).toContain('created 2026-11-26 09:30 UTC');
	expect(paymentOrderLabel({ ...base, createdAt: 'not a date' })).toContain('created not a date');
});
