/** What people see in dropdowns and From List rows. */
import type { INodeProperties } from 'n8n-workflow';

import { resources } from '../../nodes/Clearinghouse/actions/router';
import { chainDisplayName, fieldLabelOfPath, paymentOrderLabel, shortAddress } from '../../nodes/shared/labels';
import { describeServiceError } from '../../nodes/shared/serviceErrors';

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

describe("a wallet list's errors name it as the panel shows it", () => {
	/** Where each operation with a wallet list sends it (below /api/v1): the label can depend on the request. */
	const SENT_TO: Record<string, string> = {
		'user.createOrUpdate': '/add-user-record',
		'paymentOrder.setReturnDetails': '/payment-orders/3f0c9c4e/return-details',
	};
	// Every top-level wallet list of the node's operations (a fixedCollection of `wallet` entries), sent under its own name.
	const lists = Object.entries(resources).flatMap(([resource, { operations }]) =>
		Object.entries(operations)
			.filter(([name]) => name !== 'description')
			.flatMap(([operation, module]) =>
				((module as { description?: INodeProperties[] }).description ?? [])
					.filter((field) => field.type === 'fixedCollection' && field.options?.some((option) => option.name === 'wallet'))
					.map((field) => ({ operation: `${resource}.${operation}`, name: field.name, displayName: field.displayName })),
			),
	);

	test('every operation with a wallet list says where it sends it', () => {
		expect([...new Set(lists.map((list) => list.operation))].sort()).toEqual(Object.keys(SENT_TO).sort());
		expect(lists.map(({ operation, name, displayName }) => `${operation} ${name}: ${displayName}`).sort()).toEqual([
			'paymentOrder.setReturnDetails wallets: Return Wallets',
			'user.createOrUpdate returnWallets: Return Wallets',
			'user.createOrUpdate wallets: Wallets',
		]);
	});

	test.each(lists.map((list) => [list.operation, list.name, list.displayName] as const))('%s: %s is labelled "%s"', (operation, name, displayName) => {
		expect(fieldLabelOfPath(`${name}[1].chain`, SENT_TO[operation])).toBe(`${displayName} → item 2 → Chain`);
		expect(fieldLabelOfPath(name, SENT_TO[operation])).toBe(displayName);
		// A refusal the service names by the path says the same.
		const { message } = describeServiceError(400, { error: 'validation_error', path: `${name}[0].address`, message: 'Invalid address' } as never, {
			method: 'POST',
			path: SENT_TO[operation],
			body: { [name]: [{ chain: 'ethereum', address: 'nope' }] },
		});
		expect(message).toMatch(new RegExp(`^${displayName} → item 1 → Address "nope"`));
	});
});
