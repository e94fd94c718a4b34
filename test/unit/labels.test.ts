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

test('a payment order row leads with memo, amount and asset, chain, status, then the address', () => {
	const order = {
		id: 'x',
		memo: 'INV-1001',
		amountUsd: 125.5,
		asset: 'USDC',
		toChain: 'ethereum',
		status: 'AWAITING_FUNDS',
		toAddress: '0xce2c6ef59804282e8a5db1257443d6e27fdeb43b',
	};
	expect(paymentOrderLabel(order)).toBe('INV-1001 · 125.5 USDC on Ethereum · AWAITING_FUNDS · to 0xce2c6e…b43b');
	expect(paymentOrderLabel({ ...order, memo: null })).toBe('125.5 USDC on Ethereum · AWAITING_FUNDS · to 0xce2c6e…b43b');
});
