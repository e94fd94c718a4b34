import { flatOrder, payHere } from '../../nodes/Clearinghouse/actions/paymentOrder/create/output';

const addresses = [
	{ chain: 'ethereum', symbol: 'USDC', address: '0xeth-usdc' },
	{ chain: 'base', symbol: 'USDC', address: '0xbase-usdc' },
	{ chain: 'base', symbol: 'PYUSD', address: '0xbase-pyusd' },
];

describe('payHere', () => {
	test("picks the entry for the order's asset on the order's chain", () => {
		expect(payHere({ toChain: 'base', asset: 'PYUSD' }, addresses)).toEqual({
			depositAddress: '0xbase-pyusd',
			depositAddressNote: expect.stringMatching(/^Send PYUSD on base \(the order's asset and chain\)/),
		});
	});

	test('null with a reason when no entry matches, or none was returned', () => {
		expect(payHere({ toChain: 'solana', asset: 'USDC' }, addresses)).toEqual({
			depositAddress: null,
			depositAddressNote:
				'None of the 3 deposit addresses is for USDC on solana: fund the order through the depositAddresses entry for the chain and stablecoin the sender pays with.',
		});
		expect(payHere({ toChain: 'base', asset: 'USDC' }, [])).toEqual({
			depositAddress: null,
			depositAddressNote: 'The service returned no deposit address for this order.',
		});
	});
});

describe('flatOrder', () => {
	test('the order at the top level, beside created, the key, the address and the list', () => {
		const response = {
			paymentOrderId: 'po-1',
			paymentOrder: { id: 'po-1', status: 'AWAITING_FUNDS', toChain: 'ethereum', asset: 'USDC', idempotencyKey: 'k' },
			depositAddresses: addresses,
		};
		expect(flatOrder(response, true, 'k')).toEqual({
			created: true,
			paymentOrderId: 'po-1',
			id: 'po-1',
			status: 'AWAITING_FUNDS',
			toChain: 'ethereum',
			asset: 'USDC',
			idempotencyKey: 'k',
			depositAddress: '0xeth-usdc',
			depositAddressNote: expect.any(String),
			depositAddresses: addresses,
			fundsSeen: false,
			fundsSeenUsd: '0',
			replayed: false,
			replayNote: null,
			underfundToleranceUsd: null,
			direction: null,
		});
	});

	test('funds already seen for an order that awaits funds: how much, and what is still missing', () => {
		const order = {
			id: 'po-4',
			status: 'AWAITING_FUNDS',
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: 10,
			receivedTotal: 0,
			inboundTransfers: [{ amountUsd: 4, status: 'PENDING_VERIFICATION' }],
		};
		const out = flatOrder({ paymentOrderId: 'po-4', paymentOrder: order, depositAddresses: addresses }, false, 'k');
		expect(out).toMatchObject({ depositAddress: '0xeth-usdc', fundsSeen: true, fundsSeenUsd: '4' });
		expect(out.depositAddressNote).toMatch(
			/^Funds of 4 USD for this order were already seen \(see inboundTransfers\)\. 6 USD is still missing: send only that/,
		);
		const covered = flatOrder({ paymentOrder: { ...order, receivedTotal: 10 }, depositAddresses: addresses }, false, 'k');
		expect(covered.depositAddressNote).toMatch(/That covers the amount: send nothing more\./);
	});

	test('an order that no longer awaits funds gets no deposit address, and the note says not to fund it', () => {
		const response = {
			paymentOrderId: 'po-3',
			paymentOrder: { id: 'po-3', status: 'FUNDED', toChain: 'ethereum', asset: 'USDC' },
			depositAddresses: addresses,
		};
		expect(flatOrder(response, false, 'k')).toMatchObject({
			status: 'FUNDED',
			depositAddress: null,
			depositAddressNote: 'The order is FUNDED: it no longer awaits funds, so no deposit address is given. Do not fund it.',
			depositAddresses: [],
		});
	});
});

test('flatOrder keeps any other top-level field of the answer', () => {
	const out = flatOrder({ paymentOrderId: 'po-2', paymentOrder: { id: 'po-2' }, depositAddresses: [], requestId: 'r-1' }, false, 'k');
	expect(out).toMatchObject({ created: false, paymentOrderId: 'po-2', id: 'po-2', requestId: 'r-1', depositAddress: null, idempotencyKey: 'k' });
	expect(out).not.toHaveProperty('paymentOrder');
});
